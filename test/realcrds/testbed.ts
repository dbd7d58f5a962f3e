// Putting catalog kinds and their drafts on the testbed: objects created
// and their status written with strict field validation (a field the
// project's schema does not know fails the request instead of being pruned),
// through /status when the CRD has the subresource.
import { type CrdManifest, crPath, type ResourceRef, type RestClient, waitUntil } from "../cluster/index.ts";
import type { ObjectDraft } from "./objects/index.ts";

const strict = { fieldValidation: "Strict" } as const;

export interface PlacedObject {
  ref: ResourceRef;
  draft: ObjectDraft;
  /** The object as the API server returned it after the status write (and the delete, for terminating). */
  served: Record<string, unknown>;
}

interface CrdVersion {
  name: string;
  storage: boolean;
  subresources?: { status?: unknown };
}

export function storageVersion(crd: CrdManifest): CrdVersion {
  const versions = crd.spec.versions as CrdVersion[];
  const storage = versions.find((v) => v.storage);
  if (!storage) throw new Error(`${crd.metadata.name} has no storage version`);
  return storage;
}

export function refOf(crd: CrdManifest, namespace: string, name?: string): ResourceRef {
  const ref: ResourceRef = {
    group: crd.spec.group,
    version: storageVersion(crd).name,
    plural: crd.spec.names.plural,
  };
  if (crd.spec.scope === "Namespaced") ref.namespace = namespace;
  if (name) ref.name = name;
  return ref;
}

/** Creates the draft's object, writes its status, and for a terminating draft deletes it (the finalizer holds it). */
export async function placeDraft(
  rest: RestClient,
  crd: CrdManifest,
  namespace: string,
  name: string,
  draft: ObjectDraft,
): Promise<PlacedObject> {
  const ref = refOf(crd, namespace, name);
  const subresource = storageVersion(crd).subresources?.status !== undefined;
  const metadata: Record<string, unknown> = { name };
  if (ref.namespace) metadata.namespace = ref.namespace;
  if (draft.labels) metadata.labels = draft.labels;
  if (draft.annotations) metadata.annotations = draft.annotations;
  if (draft.finalizers) metadata.finalizers = draft.finalizers;
  const body: Record<string, unknown> = {
    apiVersion: `${ref.group}/${ref.version}`,
    kind: crd.spec.names.kind,
    metadata,
    spec: draft.spec,
  };
  // Without the subresource, status is part of the object and is written with it.
  if (draft.status && !subresource) body.status = draft.status;
  const collection = crPath({ ...ref, name: undefined });
  let served = await rest.call<Record<string, unknown>>("POST", collection, body, { query: strict });
  if (draft.status && subresource) {
    served = await rest.call<Record<string, unknown>>(
      "PATCH",
      crPath(ref, "status"),
      { status: draft.status },
      { contentType: "application/merge-patch+json", query: strict },
    );
  }
  if (draft.scenario === "terminating") {
    await rest.delete(crPath(ref));
    served = await rest.get<Record<string, unknown>>(crPath(ref));
  }
  return { ref, draft, served };
}

/** Drops the finalizers of a held object and waits until it is gone. */
export async function release(rest: RestClient, ref: ResourceRef): Promise<void> {
  const path = crPath(ref);
  const response = await rest.raw(
    "PATCH",
    path,
    { metadata: { finalizers: null } },
    {
      contentType: "application/merge-patch+json",
    },
  );
  if (response.status === 404) return;
  if (response.status >= 300)
    throw new Error(`PATCH ${path} → ${response.status}: ${JSON.stringify(response.body)}`);
  await waitUntil(`${path} deleted`, 30_000, async () => (await rest.raw("GET", path)).status === 404);
}

/**
 * Every value in `expected` is in `actual` at the same place (arrays element by
 * element); returns the paths where it is not. Fields the server adds
 * (defaults) are allowed; fields it dropped or changed are reported.
 */
export function missingFrom(actual: unknown, expected: unknown, path = "status"): string[] {
  if (Array.isArray(expected)) {
    if (!Array.isArray(actual) || actual.length !== expected.length) {
      return [`${path}: expected ${expected.length} entries, got ${JSON.stringify(actual)}`];
    }
    return expected.flatMap((value, i) => missingFrom(actual[i], value, `${path}[${i}]`));
  }
  if (typeof expected === "object" && expected !== null) {
    if (typeof actual !== "object" || actual === null || Array.isArray(actual)) {
      return [`${path}: expected an object, got ${JSON.stringify(actual)}`];
    }
    return Object.entries(expected).flatMap(([key, value]) =>
      missingFrom((actual as Record<string, unknown>)[key], value, `${path}.${key}`),
    );
  }
  return actual === expected
    ? []
    : [`${path}: expected ${JSON.stringify(expected)}, got ${JSON.stringify(actual)}`];
}
