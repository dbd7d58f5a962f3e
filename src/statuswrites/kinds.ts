// What the apiserver confirmed about the target of a status write: the kind
// of its resource (through the discovery document of its group/version) and
// whether its namespace exists. A request names its group, resource and
// namespace itself, and a failed one (403 to a made-up namespace, 404 to a
// made-up group) proves nothing about them, so labels come only from here;
// see confirmed-labels.ts.
//
// Discovery results are cached; a plural not in the cache refreshes its
// group/version at most once per retry interval, so a CRD installed later is
// picked up and an unknown plural never causes a request storm. With the list
// of served group/versions, a made-up group or version costs no request at
// all; without it, at most maxTrackedGroupVersions are ever asked about.
import { KnownNamespaces, type KnownNamespacesOptions } from "./namespaces.ts";

export interface KindResolver {
  /** The kind the apiserver serves for group/resource, or undefined when it serves none (or cannot tell now). */
  kindOf(group: string, version: string, resource: string): Promise<string | undefined>;
  /** True when the namespace is known to exist: listed by the apiserver, or a write in it succeeded. */
  namespaceExists(namespace: string): Promise<boolean>;
  /** A write in this namespace succeeded, so the apiserver holds an object there. */
  namespaceConfirmed(namespace: string): void;
}

/** The fields of a discovery APIResourceList that are read here. */
export interface ApiResourceList {
  resources?: { name?: unknown; kind?: unknown }[];
}

export type ResourceListFetcher = (group: string, version: string) => Promise<ApiResourceList>;

export interface DiscoveryKindResolverOptions {
  fetchResourceList: ResourceListFetcher;
  /** "group/version" (core: "v1") of every API the apiserver serves, from /api and /apis. */
  fetchServedGroupVersions?: () => Promise<string[]>;
  /** How namespaces are confirmed (a namespace list, if the exporter may read one). */
  namespaces?: KnownNamespacesOptions;
  /** Kinds already known (e.g. from the exporter's configuration); never refetched. */
  known?: { group: string; resource: string; kind: string }[];
  /** Minimum time between two discovery fetches of one group/version (default 30 s). */
  retryAfterMs?: number;
  now?: () => number;
  onError?: (error: unknown, group: string, version: string) => void;
}

/** Group/versions asked about without the served list; a real cluster serves about a hundred. */
export const maxTrackedGroupVersions = 512;

/** Confirms nothing: every group, kind and namespace is folded. The default when no discovery is wired. */
export const unconfirmingKindResolver: KindResolver = {
  kindOf: () => Promise.resolve(undefined),
  namespaceExists: () => Promise.resolve(false),
  namespaceConfirmed: () => {},
};

/** Knows exactly these kinds and namespaces (tests, and setups that know their API up front). */
export function staticKindResolver(
  kinds: { group: string; resource: string; kind: string }[],
  namespaces: string[] = [],
): KindResolver {
  const byResource = new Map(kinds.map((k) => [`${k.group}/${k.resource}`, k.kind]));
  const known = new KnownNamespaces({ initial: namespaces });
  return {
    kindOf: (group, _version, resource) => Promise.resolve(byResource.get(`${group}/${resource}`)),
    namespaceExists: (namespace) => known.exists(namespace),
    namespaceConfirmed: (namespace) => known.confirm(namespace),
  };
}

/** Calls `fetch` at most once per interval per key, sharing a call in flight. */
class Throttled {
  readonly #last = new Map<string, number>();
  readonly #inFlight = new Map<string, Promise<void>>();
  readonly #intervalMs: number;
  readonly #now: () => number;

  constructor(intervalMs: number, now: () => number) {
    this.#intervalMs = intervalMs;
    this.#now = now;
  }

  get size(): number {
    return this.#last.size;
  }

  has(key: string): boolean {
    return this.#last.has(key);
  }

  /** Forgets keys fetched longer than an interval ago. */
  prune(): void {
    for (const [key, at] of this.#last) if (this.#now() - at >= this.#intervalMs) this.#last.delete(key);
  }

  run(key: string, fetch: () => Promise<void>): Promise<void> {
    const running = this.#inFlight.get(key);
    if (running) return running;
    const previous = this.#last.get(key);
    if (previous !== undefined && this.#now() - previous < this.#intervalMs) return Promise.resolve();
    this.#last.set(key, this.#now());
    const fetching = fetch().finally(() => this.#inFlight.delete(key));
    this.#inFlight.set(key, fetching);
    return fetching;
  }
}

export function createDiscoveryKindResolver(options: DiscoveryKindResolverOptions): KindResolver {
  const retryAfterMs = options.retryAfterMs ?? 30_000;
  const now = options.now ?? Date.now;
  // Keyed by group + plural: a kind is the same in every version of a group.
  const kinds = new Map<string, string>();
  const served = new Set<string>();
  const lists = new Throttled(retryAfterMs, now);
  const servedLists = new Throttled(retryAfterMs, now);
  const namespaces = new KnownNamespaces({ retryAfterMs, now, ...options.namespaces });
  for (const entry of options.known ?? []) kinds.set(`${entry.group}/${entry.resource}`, entry.kind);

  const refreshServed = (): Promise<void> => {
    const fetchServed = options.fetchServedGroupVersions;
    if (!fetchServed) return Promise.resolve();
    return servedLists.run("", async () => {
      try {
        const list = await fetchServed();
        served.clear();
        for (const groupVersion of list) served.add(groupVersion);
      } catch (error) {
        options.onError?.(error, "", "");
      }
    });
  };

  /** Whether asking discovery about group/version is worth a request. */
  const mayAsk = async (group: string, version: string): Promise<boolean> => {
    const groupVersion = group === "" ? version : `${group}/${version}`;
    if (options.fetchServedGroupVersions) {
      if (!served.has(groupVersion)) await refreshServed();
      return served.has(groupVersion);
    }
    if (lists.has(groupVersion) || lists.size < maxTrackedGroupVersions) return true;
    lists.prune();
    return lists.size < maxTrackedGroupVersions;
  };

  const refresh = (group: string, version: string): Promise<void> =>
    lists.run(group === "" ? version : `${group}/${version}`, async () => {
      try {
        const list = await options.fetchResourceList(group, version);
        for (const resource of list.resources ?? []) {
          const { name, kind } = resource;
          // "widgets/status" entries repeat the parent's kind; skip subresources.
          if (typeof name !== "string" || typeof kind !== "string" || name.includes("/")) continue;
          kinds.set(`${group}/${name}`, kind);
        }
      } catch (error) {
        options.onError?.(error, group, version);
      }
    });

  return {
    async kindOf(group, version, resource) {
      const key = `${group}/${resource}`;
      const cached = kinds.get(key);
      if (cached !== undefined) return cached;
      if (!(await mayAsk(group, version))) return undefined;
      await refresh(group, version);
      return kinds.get(key);
    },
    namespaceExists: (namespace) => namespaces.exists(namespace),
    namespaceConfirmed: (namespace) => namespaces.confirm(namespace),
  };
}
