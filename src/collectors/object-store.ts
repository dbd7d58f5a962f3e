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

export class ObjectStore {
  readonly #entries = new Map<string, ObjectEntry>();
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

  set(uid: string, entry: ObjectEntry): void {
    this.#entries.set(uid, entry);
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
    this.#series = 0;
  }
}
