// Maps a resource plural (all a request path or an audit event names) to its
// kind, through the apiserver's discovery document for the group/version.
// Results are cached; a plural not in the cache triggers a refresh of its
// group/version, at most once per retry interval, so a CRD installed later is
// picked up and an unknown plural never causes a request storm. Until
// discovery answers, the plural itself is used as the kind label.

export interface KindResolver {
  kindOf(group: string, version: string, resource: string): Promise<string>;
}

/** The kind of a resource, or its plural when discovery cannot tell: a write is never dropped for want of a kind. */
export function kindOrPlural(
  kinds: KindResolver,
  target: { group: string; version: string; resource: string },
): Promise<string> {
  return kinds.kindOf(target.group, target.version, target.resource).catch(() => target.resource);
}

/** The fields of a discovery APIResourceList that are read here. */
export interface ApiResourceList {
  resources?: { name?: unknown; kind?: unknown }[];
}

export type ResourceListFetcher = (group: string, version: string) => Promise<ApiResourceList>;

export interface DiscoveryKindResolverOptions {
  fetchResourceList: ResourceListFetcher;
  /** Kinds already known (e.g. from the exporter's configuration); never refetched. */
  known?: { group: string; resource: string; kind: string }[];
  /** Minimum time between two discovery fetches of one group/version (default 30 s). */
  retryAfterMs?: number;
  now?: () => number;
  onError?: (error: unknown, group: string, version: string) => void;
}

/** Uses the plural as the kind: for when no discovery access is configured. */
export const pluralKindResolver: KindResolver = {
  kindOf: (_group, _version, resource) => Promise.resolve(resource),
};

export function createDiscoveryKindResolver(options: DiscoveryKindResolverOptions): KindResolver {
  const retryAfterMs = options.retryAfterMs ?? 30_000;
  const now = options.now ?? Date.now;
  // Keyed by group + plural: a kind is the same in every version of a group.
  const kinds = new Map<string, string>();
  const lastFetch = new Map<string, number>();
  const inFlight = new Map<string, Promise<void>>();
  for (const entry of options.known ?? []) kinds.set(`${entry.group}/${entry.resource}`, entry.kind);

  const refresh = (group: string, version: string): Promise<void> => {
    const key = `${group}/${version}`;
    const running = inFlight.get(key);
    if (running) return running;
    const previous = lastFetch.get(key);
    if (previous !== undefined && now() - previous < retryAfterMs) return Promise.resolve();
    lastFetch.set(key, now());
    const fetching = options
      .fetchResourceList(group, version)
      .then((list) => {
        for (const resource of list.resources ?? []) {
          const { name, kind } = resource;
          // "widgets/status" entries repeat the parent's kind; skip subresources.
          if (typeof name !== "string" || typeof kind !== "string" || name.includes("/")) continue;
          kinds.set(`${group}/${name}`, kind);
        }
      })
      .catch((error: unknown) => options.onError?.(error, group, version))
      .finally(() => inFlight.delete(key));
    inFlight.set(key, fetching);
    return fetching;
  };

  return {
    async kindOf(group, version, resource) {
      const key = `${group}/${resource}`;
      const cached = kinds.get(key);
      if (cached !== undefined) return cached;
      await refresh(group, version);
      return kinds.get(key) ?? resource;
    },
  };
}
