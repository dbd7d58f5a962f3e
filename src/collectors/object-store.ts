// The per-object store of one resource type: projected state, counters, the
// small memory histograms need, and the pre-rendered series. Keyed by uid, so
// an object deleted and re-created under the same name starts afresh.
import type { ObjectMemory } from "../core/observations.ts";
import type { ObjectCounters, RenderedObject } from "../core/render.ts";
import type { ObjectState } from "../core/state.ts";

export interface ObjectEntry {
  state: ObjectState;
  counters: ObjectCounters;
  memory: ObjectMemory;
  /** undefined when the series cap dropped this object's series (or in aggregate mode). */
  rendered: RenderedObject | undefined;
  /** Mark used by a relist to find objects that are gone. */
  listMark: number;
}

function nameKey(state: { namespace: string; name: string }): string {
  return `${state.namespace}/${state.name}`;
}

export class ObjectStore {
  readonly #entries = new Map<string, ObjectEntry>();
  /** namespace/name → uid: one object per name, so series never repeat. */
  readonly #byName = new Map<string, string>();
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
    const held = this.#byName.get(nameKey(state));
    return held !== undefined && held !== uid ? held : undefined;
  }

  set(uid: string, entry: ObjectEntry): void {
    this.#entries.set(uid, entry);
    this.#byName.set(nameKey(entry.state), uid);
  }

  /** Replaces an entry's rendering, keeping the series count right. */
  setRendered(entry: ObjectEntry, rendered: RenderedObject | undefined): void {
    this.#series += (rendered?.series ?? 0) - (entry.rendered?.series ?? 0);
    entry.rendered = rendered;
  }

  delete(uid: string): ObjectEntry | undefined {
    const entry = this.#entries.get(uid);
    if (!entry) return undefined;
    this.#series -= entry.rendered?.series ?? 0;
    this.#entries.delete(uid);
    const key = nameKey(entry.state);
    if (this.#byName.get(key) === uid) this.#byName.delete(key);
    return entry;
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
