// The two series sources a resource offers the /metrics writer: its
// per-object store (pre-rendered text per family, each line's name and
// object labels put back here) and its aggregate counts. Both only copy what
// is already rendered.
import type { AggregateCounts } from "../core/series/aggregate.ts";
import { aggregateFamilies } from "../core/series/catalog.ts";
import { type KindRender, type ObjectSeries, slotTails, slotText } from "../core/series/render.ts";
import type { ChunkWriter } from "../metrics/chunks.ts";
import type { FamilyRef, ObjectSlots, SeriesSource } from "../metrics/writer.ts";
import type { ObjectStore } from "./object-store.ts";

/**
 * Objects read between two yields when none filled a chunk: a family that few
 * objects have (50,000 objects, two such families in the default set) was read
 * in one go, 10–15 ms without a look at the turn's budget, the longest stalls of
 * the event loop during a scrape (bench/README.md). 1,024 objects take ~0.3 ms.
 */
export const objectsPerYield = 1024;

export class ObjectSeriesSource implements SeriesSource {
  readonly #store: ObjectStore;
  readonly #render: () => Pick<KindRender, "names" | "selected"> | undefined;

  /** `render`: the families selected and their full names, read at every scrape (a reload may change them). */
  constructor(store: ObjectStore, render: () => Pick<KindRender, "names" | "selected"> | undefined) {
    this.#store = store;
    this.#render = render;
  }

  objects(): ObjectSlots | undefined {
    const render = this.#render();
    if (!render || render.selected === 0) return undefined;
    return { names: render.names, selected: render.selected, entries: this.#store.values() };
  }

  *write(family: FamilyRef, out: ChunkWriter): Iterable<void> {
    const render = this.#render();
    if (family.kind !== "object" || !render || !(render.selected & (1 << family.slot))) return;
    const slot = family.slot;
    const name = render.names[slot] as string;
    let read = 0;
    for (const { series } of this.#store.values()) {
      const tails = series ? slotTails(series, slot) : "";
      if (tails !== "") out.write(slotText(name, (series as ObjectSeries).open, tails));
      if (++read === objectsPerYield || out.ready) {
        read = 0;
        yield;
      }
    }
  }
}

export interface AggregateNames {
  group: string;
  kind: string;
  prefix: string;
  /** Bit per aggregate family index. */
  selected: number;
}

export class AggregateSeriesSource implements SeriesSource {
  readonly #counts: AggregateCounts;
  readonly #names: () => AggregateNames;

  constructor(counts: AggregateCounts, names: () => AggregateNames) {
    this.#counts = counts;
    this.#names = names;
  }

  /** A few lines per namespace: written in one go. */
  write(family: FamilyRef, out: ChunkWriter): Iterable<void> {
    if (family.kind !== "aggregate") return [];
    const names = this.#names();
    const definition = aggregateFamilies[family.index];
    if (!definition || !(names.selected & (1 << family.index))) return [];
    out.write(this.#counts.render(definition.key, names.prefix + definition.suffix, names.group, names.kind));
    return out.ready ? [undefined] : [];
  }
}
