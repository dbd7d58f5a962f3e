// One copy per resource of the series text that many objects share. The
// lines of label-only families (the catalog's sharedText: cr_condition,
// cr_phase, cr_status, …) are the same for every object in the same state
// (`,type="Ready",status="True"} 1\n…`), and each object rendered its own
// copy: at 4 conditions that is about 150 bytes per object in cr_condition
// alone. The collector passes every entry it stores through here, so equal
// texts become one string. Bounded: past `maxTexts` distinct texts, new ones
// are kept as rendered (still correct, only not shared).
import { objectFamilies } from "../core/series/catalog.ts";
import type { ObjectSeries } from "../core/series/render.ts";

const sharedSlots: readonly number[] = objectFamilies.filter((f) => f.sharedText).map((f) => f.slot);

export class TailInterner {
  readonly #texts = new Map<string, string>();
  readonly #maxTexts: number;

  constructor(maxTexts = 4096) {
    this.#maxTexts = maxTexts;
  }

  /** Distinct texts held. */
  get size(): number {
    return this.#texts.size;
  }

  /**
   * Puts the held copy in place of each shared-text tail of `series`. In
   * place: the tails array is the entry's own (renderSeries copies it on
   * every render), and a text replaced by an equal one changes nothing a
   * reader can see.
   */
  intern(series: ObjectSeries | undefined): void {
    if (!series) return;
    const tails = series.tails as string[];
    for (const slot of sharedSlots) {
      const text = tails[slot];
      if (!text) continue;
      const held = this.#texts.get(text);
      if (held !== undefined) tails[slot] = held;
      else if (this.#texts.size < this.#maxTexts) this.#texts.set(text, text);
    }
  }
}
