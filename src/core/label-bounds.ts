// Bounded label values learned per kind: phases and condition reasons become
// label values, and an object may carry any string there. A declared enum
// (a CRD's phase enum) is kept as is and nothing else is learned; otherwise a
// value is exported as itself while fewer than `limit` distinct values are
// held by objects, and as "other" beyond. Values are counted per holder and
// forgotten when no object holds them any more, so an object that cycles
// through made-up values (or is deleted) leaves no trace, and later objects
// get their own values again. One instance per kind, owned by its collector
// and passed explicitly to the pure core, which holds and releases through
// object-update.ts (every entry keeps the labels it holds).
import type { ConditionState, ObjectState } from "./state.ts";

export const otherLabelValue = "other";

export class LabelBound {
  readonly #declared: ReadonlySet<string>;
  /** Learned values → how many holders (entries × conditions) hold them. */
  readonly #held = new Map<string, number>();
  readonly #limit: number;

  constructor(limit: number, declared: readonly string[] = []) {
    this.#declared = new Set(declared);
    this.#limit = limit;
  }

  /**
   * The label value for `value`, held until release(): itself when declared,
   * already held, or while there is room; else "other" (never learned itself,
   * so "other" always means folded).
   */
  hold(value: string): string {
    if (this.#declared.has(value) || value === otherLabelValue) return value;
    const holders = this.#held.get(value);
    if (holders !== undefined) {
      this.#held.set(value, holders + 1);
      return value;
    }
    if (this.#declared.size > 0 || this.#held.size >= this.#limit) return otherLabelValue;
    this.#held.set(value, 1);
    return value;
  }

  /** One holder of `label` (a value hold() returned) is gone; a learned value nobody holds is forgotten. */
  release(label: string): void {
    const holders = this.#held.get(label);
    if (holders === undefined) return;
    if (holders <= 1) this.#held.delete(label);
    else this.#held.set(label, holders - 1);
  }

  /** Distinct learned values currently held. */
  get size(): number {
    return this.#held.size;
  }
}

/** The learned sets of one kind. */
export interface KindLearning {
  phases: LabelBound;
  reasons: LabelBound;
  /** Per state field (by name): its declared values, else learned like phases. */
  states: ReadonlyMap<string, LabelBound>;
}

/** At most this many distinct phases held per kind without a declared enum. */
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

/**
 * The bounded label values one entry holds: its phase, the reason of each
 * condition ("" for none), and each state field's name and value.
 */
export interface HeldLabels {
  phase: string | undefined;
  reasons: readonly string[];
  states: readonly (readonly [field: string, value: string])[];
}

// never[]: the type says this holds no reason (one here would be released for every new object).
const noReasons: readonly never[] = Object.freeze([]);

export const noHeldLabels: HeldLabels = Object.freeze({
  phase: undefined,
  reasons: noReasons,
  states: Object.freeze([]),
});

/** The bound of a state field: its declared values, else bounded like phases. */
export function stateBound(learning: KindLearning, field: string): LabelBound {
  let bound = learning.states.get(field);
  if (!bound) {
    bound = new LabelBound(maxLearnedPhases);
    (learning.states as Map<string, LabelBound>).set(field, bound);
  }
  return bound;
}

/**
 * Gives back everything an entry holds (it changed, or the object is gone).
 * A condition without a reason holds "", which is never held, so releasing it does nothing.
 */
export function releaseLabels(learning: KindLearning, held: HeldLabels): void {
  if (held.phase !== undefined) learning.phases.release(held.phase);
  for (const reason of held.reasons) learning.reasons.release(reason);
  for (const [field, value] of held.states) stateBound(learning, field).release(value);
}

/**
 * The bounded labels for `state`: those `from` holds where its phase,
 * reasons and state fields are unchanged; else `from`'s are released first (its own value
 * frees its place) and the new ones held.
 */
export function holdLabels(
  learning: KindLearning,
  from: { state: ObjectState; labels: HeldLabels } | undefined,
  state: ObjectState,
  withReasons: boolean,
): HeldLabels {
  const before = from?.labels ?? noHeldLabels;
  // Shortcuts for the common update (status unchanged, or changed elsewhere): no comparison
  // work and no new object on every event; the full path below gives an equal result.
  // Stryker disable next-line ConditionalExpression: a shortcut to an equal result
  if (from?.state === state) return before;
  const phaseKept = from !== undefined && from.state.phase === state.phase;
  const reasonsKept = from !== undefined && sameReasons(from.state.conditions, state.conditions);
  const statesKept = from !== undefined && sameStates(from.state, state);
  // Stryker disable next-line ConditionalExpression: a shortcut to an equal result
  if (phaseKept && reasonsKept && statesKept) return before;
  let phase = before.phase;
  if (!phaseKept) {
    if (before.phase !== undefined) learning.phases.release(before.phase);
    phase = state.phase === undefined ? undefined : learning.phases.hold(state.phase);
  }
  let reasons = before.reasons;
  if (!reasonsKept) {
    for (const reason of before.reasons) learning.reasons.release(reason);
    reasons = withReasons
      ? state.conditions.map((c) => (c.reason === "" ? "" : learning.reasons.hold(c.reason)))
      : [];
  }
  let states = before.states;
  if (!statesKept) {
    for (const [field, value] of before.states) stateBound(learning, field).release(value);
    states = state.states.map((s) => [s.name, stateBound(learning, s.name).hold(s.value)] as const);
  }
  return { phase, reasons, states };
}

/** The same state field names and values in the same order (times do not count). */
export function sameStates(a: ObjectState, b: ObjectState): boolean {
  if (a.states.length !== b.states.length) return false;
  return b.states.every((s, i) => {
    const before = a.states[i];
    return before?.name === s.name && before.value === s.value;
  });
}

/** The same condition types and reasons in the same order (statuses do not count). */
export function sameReasons(a: readonly ConditionState[], b: readonly ConditionState[]): boolean {
  if (a.length !== b.length) return false;
  return a.every((c, i) => {
    const other = b[i];
    return other?.type === c.type && other.reason === c.reason;
  });
}
