// Bounded label values learned per kind: phases and condition reasons become
// label values, and an object may carry any string there. The first `limit`
// distinct values seen (or a declared enum) are kept as they are; later ones
// become "other". One instance per kind, owned by its collector and passed
// explicitly to the pure core, which is the only code that calls learn().
export const otherLabelValue = "other";

export class LabelBound {
  readonly #known: Set<string>;
  readonly #limit: number;
  /** Values given up front (a CRD's phase enum): nothing else is learned. */
  readonly #closed: boolean;

  constructor(limit: number, declared: readonly string[] = []) {
    this.#known = new Set(declared);
    this.#closed = declared.length > 0;
    this.#limit = limit;
  }

  /** The label value for `value`: itself when known or while there is room, else "other". */
  learn(value: string): string {
    if (this.#known.has(value)) return value;
    if (this.#closed || this.#known.size >= this.#limit) return otherLabelValue;
    this.#known.add(value);
    return value;
  }

  get size(): number {
    return this.#known.size;
  }
}

/** The learned sets of one kind. */
export interface KindLearning {
  phases: LabelBound;
  reasons: LabelBound;
  /** Per state field (by name): its declared values, else learned like phases. */
  states: ReadonlyMap<string, LabelBound>;
}

/** At most this many distinct phases per kind without a declared enum. */
export const maxLearnedPhases = 20;

export function newKindLearning(init: {
  phaseEnum: readonly string[];
  maxReasons: number;
  /** Declared values per state field name (empty: learned). */
  stateValues?: Readonly<Record<string, readonly string[]>>;
}): KindLearning {
  const states = new Map<string, LabelBound>();
  for (const [name, values] of Object.entries(init.stateValues ?? {}))
    states.set(name, new LabelBound(maxLearnedPhases, values));
  return {
    phases: new LabelBound(maxLearnedPhases, init.phaseEnum),
    reasons: new LabelBound(init.maxReasons),
    states,
  };
}

/** The label value of a state field's value; a field without a bound (none declared) is bounded like phases. */
export function stateLabelValue(learning: KindLearning, name: string, value: string): string {
  let bound = learning.states.get(name);
  if (!bound) {
    bound = new LabelBound(maxLearnedPhases);
    (learning.states as Map<string, LabelBound>).set(name, bound);
  }
  return bound.learn(value);
}
