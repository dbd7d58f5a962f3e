// The KindResolver the exporter runs with: discovery and the namespace list,
// read with the exporter's own identity (never a proxied caller's). Discovery
// is open to every authenticated user; listing namespaces needs `list
// namespaces`, and without it namespaces are confirmed by successful writes
// only (docs/status-writes.md, "Bounded labels").
import type { Logger } from "../../log.ts";
import { type ApiResourceList, createDiscoveryKindResolver, type KindResolver } from "../kinds.ts";

/** A GET with the exporter's identity: HTTP status and parsed JSON body. */
export type ApiGet = (
  path: string,
  query?: Record<string, string | number | undefined>,
) => Promise<{ status: number; body: unknown }>;

interface GroupList {
  groups?: { versions?: { groupVersion?: unknown }[] }[];
}
interface NamespaceList {
  items?: { metadata?: { name?: unknown } }[];
  metadata?: { continue?: unknown };
}

async function getOk<T>(get: ApiGet, path: string, query?: Record<string, string | number | undefined>) {
  const response = await get(path, query);
  if (response.status !== 200) throw new Error(`GET ${path}: HTTP ${response.status}`);
  return response.body as T;
}

async function servedGroupVersions(get: ApiGet): Promise<string[]> {
  const core = await getOk<{ versions?: unknown[] }>(get, "/api");
  const groups = await getOk<GroupList>(get, "/apis");
  const served = (core.versions ?? []).filter((v): v is string => typeof v === "string");
  for (const group of groups.groups ?? []) {
    for (const version of group.versions ?? []) {
      if (typeof version.groupVersion === "string") served.push(version.groupVersion);
    }
  }
  return served;
}

async function namespaceNames(get: ApiGet): Promise<string[] | "forbidden"> {
  const names: string[] = [];
  let next: string | undefined;
  do {
    const response = await get("/api/v1/namespaces", { limit: 500, continue: next });
    if (response.status === 401 || response.status === 403) return "forbidden";
    if (response.status !== 200) throw new Error(`list namespaces: HTTP ${response.status}`);
    const list = response.body as NamespaceList;
    for (const item of list.items ?? []) {
      if (typeof item.metadata?.name === "string") names.push(item.metadata.name);
    }
    next =
      typeof list.metadata?.continue === "string" && list.metadata.continue
        ? list.metadata.continue
        : undefined;
  } while (next);
  return names;
}

export function createApiserverKindResolver(get: ApiGet, logger: Logger): KindResolver {
  return createDiscoveryKindResolver({
    fetchResourceList: (group, version) =>
      getOk<ApiResourceList>(get, group === "" ? `/api/${version}` : `/apis/${group}/${version}`),
    fetchServedGroupVersions: () => servedGroupVersions(get),
    namespaces: {
      list: () => namespaceNames(get),
      onError: (error) => logger.debug("namespace list failed", { error: String(error) }),
      onForbidden: () =>
        logger.info(
          'cannot list namespaces: a failed status write is counted under its namespace only where a write has succeeded, else as "other"',
        ),
    },
    onError: (error, group, version) =>
      logger.debug("kind discovery failed", {
        group,
        version,
        error: error instanceof Error ? error.message : String(error),
      }),
  });
}
