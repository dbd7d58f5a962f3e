// Which namespaces exist, known cheaply: a namespace is confirmed when a
// status write in it succeeded (the apiserver holds an object there), or when
// the apiserver lists it. Listing needs `list namespaces`, which the exporter
// may not have: then only successful writes confirm. A miss refreshes the list
// at most once per interval, so made-up namespaces cost one list per interval
// whatever their number, and both sets are capped.

export interface KnownNamespacesOptions {
  /** Names of every namespace, read with the exporter's identity; "forbidden" turns listing off for good. */
  list?: () => Promise<string[] | "forbidden">;
  /** Namespaces known from the start. */
  initial?: string[];
  /** Minimum time between two lists (default 30 s). */
  retryAfterMs?: number;
  now?: () => number;
  /**
   * Most namespaces held in each set (default 10,000: the number of namespaces
   * Kubernetes' scalability thresholds are tested with). Past it, a namespace
   * not yet held is not confirmed and its writes are counted as "other".
   */
  maxNamespaces?: number;
  onError?: (error: unknown) => void;
  /** Called once when listing turns out to be forbidden. */
  onForbidden?: () => void;
}

export class KnownNamespaces {
  readonly #options: KnownNamespacesOptions;
  readonly #max: number;
  readonly #retryAfterMs: number;
  readonly #now: () => number;
  /** Confirmed by a successful write. */
  readonly #written = new Set<string>();
  /** From the last list. */
  #listed = new Set<string>();
  #listedAt: number | undefined;
  #listing: Promise<void> | undefined;
  #forbidden = false;

  constructor(options: KnownNamespacesOptions = {}) {
    this.#options = options;
    this.#max = options.maxNamespaces ?? 10_000;
    this.#retryAfterMs = options.retryAfterMs ?? 30_000;
    this.#now = options.now ?? Date.now;
    for (const namespace of options.initial ?? []) this.confirm(namespace);
  }

  confirm(namespace: string): void {
    if (this.#written.size < this.#max) this.#written.add(namespace);
  }

  async exists(namespace: string): Promise<boolean> {
    if (this.#known(namespace)) return true;
    await this.#refresh();
    return this.#known(namespace);
  }

  #known(namespace: string): boolean {
    return this.#written.has(namespace) || this.#listed.has(namespace);
  }

  #refresh(): Promise<void> {
    const list = this.#options.list;
    if (!list || this.#forbidden) return Promise.resolve();
    if (this.#listing) return this.#listing;
    if (this.#listedAt !== undefined && this.#now() - this.#listedAt < this.#retryAfterMs) {
      return Promise.resolve();
    }
    this.#listedAt = this.#now();
    this.#listing = list()
      .then((names) => {
        if (names === "forbidden") {
          this.#forbidden = true;
          this.#options.onForbidden?.();
          return;
        }
        this.#listed = new Set(names.slice(0, this.#max));
      })
      .catch((error: unknown) => this.#options.onError?.(error))
      .finally(() => {
        this.#listing = undefined;
      });
    return this.#listing;
  }
}
