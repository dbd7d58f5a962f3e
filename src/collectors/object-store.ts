// The entries of one resource type, keyed by uid (an object deleted and
// re-created under the same name starts afresh), with the count of rendered
// series kept as entries come and go.
import type { ObjectEntry, TraceRecord } from "../core/entry.ts";

export class ObjectStore {
  readonly #entries = new Map<string, ObjectEntry>();
  /**
   * namespace → name → uid: one object per name, so series never repeat.
   * Keyed by the state's own strings (a joined "namespace/name" key would be
   * a new string of about 100 bytes per object).
   */
  readonly #byName = new Map<string, Map<string, string>>();
  #series = 0;

  get size(): number {
    return this.#entries.size;
  }

  /** Per-object series currently rendered. */
  get series(): number {
    return this.#series;
  }

  get(uid: string): ObjectEntry | undefined {
    return this.#entries.get(uid);
  }

  /**
   * The uid currently held under this object's namespace/name, if it is not
   * `uid`: that object was deleted and re-created while we were not looking
   * (e.g. during a relist), and must go before the new one is added.
   */
  previousHolder(state: { namespace: string; name: string }, uid: string): string | undefined {
    const held = this.#byName.get(state.namespace)?.get(state.name);
    return held !== undefined && held !== uid ? held : undefined;
  }

  /** The uid held under namespace/name, if any. */
  uidByName(namespace: string, name: string): string | undefined {
    return this.#byName.get(namespace)?.get(name);
  }

  /** Stores (or replaces) an entry, keeping the series count right. */
  set(uid: string, entry: ObjectEntry): void {
    const old = this.#entries.get(uid);
    this.#series += (entry.series?.count ?? 0) - (old?.series?.count ?? 0);
    this.#entries.set(uid, entry);
    if (!old) this.#nameHolders(entry.state.namespace).set(entry.state.name, uid);
  }

  /**
   * Tracing's new record for the object (its one record: see core/entry.ts).
   * Set in place: the slot is tracing's alone (nothing renders or compares
   * it), so no entry is copied per traced change or tick.
   */
  setTrace(uid: string, trace: TraceRecord | undefined): void {
    const entry = this.#entries.get(uid);
    if (entry) entry.trace = trace;
  }

  delete(uid: string): ObjectEntry | undefined {
    const entry = this.#entries.get(uid);
    if (!entry) return undefined;
    this.#series -= entry.series?.count ?? 0;
    this.#entries.delete(uid);
    const names = this.#byName.get(entry.state.namespace);
    if (names?.get(entry.state.name) === uid) names.delete(entry.state.name);
    if (names?.size === 0) this.#byName.delete(entry.state.namespace);
    return entry;
  }

  #nameHolders(namespace: string): Map<string, string> {
    let names = this.#byName.get(namespace);
    if (!names) {
      names = new Map();
      this.#byName.set(namespace, names);
    }
    return names;
  }

  values(): IterableIterator<ObjectEntry> {
    return this.#entries.values();
  }

  entries(): IterableIterator<[string, ObjectEntry]> {
    return this.#entries.entries();
  }

  clear(): void {
    this.#entries.clear();
    this.#byName.clear();
    this.#series = 0;
  }
}
