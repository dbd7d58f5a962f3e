// What a Kubernetes REST request addresses, read from its method and path
// alone (no I/O): group, version, resource plural, namespace, name,
// subresource and the Kubernetes verb. The proxy uses it to pick out writes.

export interface ResourceRequest {
  /** "" for the core group (/api/v1). */
  group: string;
  version: string;
  /** Lower-case plural, as in the path. */
  resource: string;
  /** "" for cluster-scoped resources. */
  namespace: string;
  /** "" for collection requests. */
  name: string;
  /** "" when the request addresses the object itself. */
  subresource: string;
  /** Kubernetes verb: get, list, watch, create, update, patch, delete, deletecollection. */
  verb: string;
}

export const writeVerbs: ReadonlySet<string> = new Set([
  "create",
  "update",
  "patch",
  "delete",
  "deletecollection",
]);

function decode(segment: string): string | undefined {
  try {
    return decodeURIComponent(segment);
  } catch {
    return undefined;
  }
}

function verbFor(method: string, hasName: boolean, watch: boolean): string | undefined {
  switch (method.toUpperCase()) {
    case "GET":
    case "HEAD":
      if (watch) return "watch";
      return hasName ? "get" : "list";
    case "POST":
      return "create";
    case "PUT":
      return "update";
    case "PATCH":
      return "patch";
    case "DELETE":
      return hasName ? "delete" : "deletecollection";
    default:
      return undefined;
  }
}

/**
 * Parses `/api/v1/...` and `/apis/{group}/{version}/...` resource paths.
 * Returns undefined for anything else (discovery, /healthz, /version, the
 * legacy /watch/ prefix) and for malformed paths: such requests are still
 * forwarded, just never counted.
 */
export function parseResourceRequest(method: string, url: string): ResourceRequest | undefined {
  const queryStart = url.indexOf("?");
  const path = queryStart === -1 ? url : url.slice(0, queryStart);
  const query = queryStart === -1 ? "" : url.slice(queryStart + 1);
  const raw = path.split("/").filter((segment) => segment !== "");
  const segments: string[] = [];
  for (const segment of raw) {
    const decoded = decode(segment);
    if (decoded === undefined) return undefined;
    segments.push(decoded);
  }

  let group: string;
  let version: string;
  let rest: string[];
  if (segments[0] === "api" && segments.length >= 3) {
    group = "";
    version = segments[1] ?? "";
    rest = segments.slice(2);
  } else if (segments[0] === "apis" && segments.length >= 4) {
    group = segments[1] ?? "";
    version = segments[2] ?? "";
    rest = segments.slice(3);
  } else {
    return undefined;
  }
  if (rest[0] === "watch") return undefined;

  let namespace = "";
  if (rest[0] === "namespaces" && addressesNamespacedResource(group, rest)) {
    namespace = rest[1] ?? "";
    rest = rest.slice(2);
  }
  if (rest.length < 1 || rest.length > 3) return undefined;
  const [resource = "", name = "", subresource = ""] = rest;
  const watch = /(^|&)watch=(true|1)(&|$)/.test(query);
  const verb = verbFor(method, name !== "", watch);
  if (!verb || resource === "") return undefined;
  return { group, version, resource, namespace, name, subresource, verb };
}

// After `namespaces/{ns}/` comes a resource collection, except in the core
// group where `namespaces/{name}/status` and `namespaces/{name}/finalize`
// are subresources of the Namespace object itself.
function addressesNamespacedResource(group: string, rest: string[]): boolean {
  if (rest.length >= 4) return true;
  if (rest.length !== 3) return false;
  return group !== "" || (rest[2] !== "status" && rest[2] !== "finalize");
}

/** A write to the status subresource: the requests this module counts. */
export function isStatusWrite(request: ResourceRequest): boolean {
  return request.subresource === "status" && writeVerbs.has(request.verb);
}
