// One copy per resource of the texts that many objects share. The lines of
// label-only families (the catalog's sharedText: cr_condition, cr_phase,
// cr_status, …) are the same for every object in the same state
// (`,type="Ready",status="True"} 1\n…`), and each object rendered its own
// copy: at 4 conditions about 150 bytes per object in cr_condition alone. The
// same holds for the label values of the state (condition types and reasons,
// the phase, the namespace), and the phase and reasons an entry holds in its
// kind's label bounds: JSON.parse gives every object its own copy of
// any string over 10 characters ("Progressing", "ReconciliationSucceeded").
// The collector passes every entry it stores through here, so equal texts
// become one string. Bounded: past `maxTexts` distinct texts, new ones are
// kept as they are (still correct, only not shared).
import type { HeldLabels } from "../core/change/label-bounds.ts";
import { objectFamilies } from "../core/series/catalog.ts";
import { type ObjectSeries, tailIndex } from "../core/series/render.ts";
import type { ObjectState } from "../core/state.ts";

const sharedSlots: readonly number[] = objectFamilies.filter((f) => f.sharedText).map((f) => f.slot);

export class SharedTexts {
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
  series(series: ObjectSeries | undefined): void {
    if (!series) return;
    const tails = series.tails as string[];
    for (const slot of sharedSlots) {
      const at = tailIndex(series, slot);
      if (at !== -1) tails[at] = this.#held(tails[at] as string);
    }
  }

  /**
   * Puts the held copy in place of the state's label values. In place, like
   * series(): a state is made anew from each version of the object, and
   * equal strings are interchangeable.
   */
  state(state: ObjectState): void {
    state.namespace = this.#held(state.namespace);
    if (state.phase !== undefined) state.phase = this.#held(state.phase);
    for (const condition of state.conditions) {
      condition.type = this.#held(condition.type);
      condition.reason = this.#held(condition.reason);
    }
  }

  /**
   * Puts the held copy in place of the phase and reasons an entry holds in
   * its kind's bounds (label-bounds.ts): they were taken from the state
   * before state() shared its values, so they are the object's own copies.
   * In place, like state(); an entry without any shares the frozen empty
   * labels, whose phase is undefined and reasons empty, so nothing is set on
   * them.
   */
  labels(labels: HeldLabels): void {
    if (labels.phase !== undefined) labels.phase = this.#held(labels.phase);
    const reasons = labels.reasons as string[];
    for (let i = 0; i < reasons.length; i++) reasons[i] = this.#held(reasons[i] as string);
  }

  /** The held copy of `text`, holding it when there is room. */
  #held(text: string): string {
    const held = this.#texts.get(text);
    if (held !== undefined) return held;
    if (this.#texts.size < this.#maxTexts) this.#texts.set(text, text);
    return text;
  }
}
