// Bounded label values learned per kind: phases and condition reasons become
// label values, and an object may carry any string there. A declared enum
// (a CRD's phase enum) is kept as is and nothing else is learned; otherwise a
// value is exported as itself while fewer than `limit` distinct values are
// held by objects, and as "other" beyond. Values are counted per holder and
// forgotten when no object holds them any more, so an object that cycles
// through made-up values (or is deleted) leaves no trace, and later objects
// get their own values again. One instance per kind, owned by its collector.
// The pure core never changes it: what one change holds and releases is a
// LabelChanges the core returns and the collector commits.
import type { ConditionState, ObjectState } from "../state.ts";

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
    const holders = this.holders(value);
    const label = this.labelFor(value, holders, this.#held.size);
    if (label === value && this.learns(value)) this.setHolders(value, holders + 1);
    return label;
  }

  /** One holder of `label` (a value hold() returned) is gone; a learned value nobody holds is forgotten. */
  release(label: string): void {
    // Unheld (0): setHolders forgets it either way.
    this.setHolders(label, this.holders(label) - 1);
  }

  /** How many hold the learned value `value` (0: not held). */
  holders(value: string): number {
    return this.#held.get(value) ?? 0;
  }

  /** Whether `value` is counted when held: a value learned, not a declared one or "other". */
  learns(value: string): boolean {
    return !this.#declared.has(value) && value !== otherLabelValue;
  }

  /** The label for `value`, when `holders` hold it and `size` learned values are held. */
  labelFor(value: string, holders: number, size: number): string {
    if (!this.learns(value) || holders > 0) return value;
    return this.#declared.size > 0 || size >= this.#limit ? otherLabelValue : value;
  }

  /** Sets how many hold a learned value; 0 forgets it. */
  setHolders(value: string, holders: number): void {
    if (holders <= 0) this.#held.delete(value);
    else this.#held.set(value, holders);
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

/**
 * Gives back everything an entry holds (the object is gone; the collector's).
 * A condition without a reason holds "", which is never held, so releasing it does nothing.
 */
export function releaseLabels(learning: KindLearning, held: HeldLabels): void {
  if (held.phase !== undefined) learning.phases.release(held.phase);
  for (const reason of held.reasons) learning.reasons.release(reason);
  // A field's bound exists once a value of it was held (LabelChanges.commit adds it).
  for (const [field, value] of held.states) learning.states.get(field)?.release(value);
}

/**
 * What one change holds and releases, judged against the kind's bounds as
 * they are plus the change's own earlier holds and releases, so its labels
 * are the ones holding and releasing in place would give. Nothing changes
 * until commit(): the core records, the collector commits (before the next
 * change is applied, which is judged against the committed bounds).
 */
export class LabelChanges {
  readonly #learning: KindLearning;
  /** Holders after this change, of the values it touched, per bound. */
  readonly #holders = new Map<LabelBound, Map<string, number>>();
  /** Learned values held after this change, per bound it touched. */
  readonly #sizes = new Map<LabelBound, number>();
  /** Bounds of state fields the kind had not seen, added on commit. */
  readonly #newStates = new Map<string, LabelBound>();

  constructor(learning: KindLearning) {
    this.#learning = learning;
  }

  hold(bound: LabelBound, value: string): string {
    const holders = this.#holdersOf(bound, value);
    const label = bound.labelFor(value, holders, this.#sizes.get(bound) ?? bound.size);
    if (label === value && bound.learns(value)) this.#set(bound, value, holders + 1);
    return label;
  }

  release(bound: LabelBound, label: string): void {
    // Never below 0: an unheld label (another object's "other", a declared value) has no holder to give back.
    this.#set(bound, label, Math.max(0, this.#holdersOf(bound, label) - 1));
  }

  get phases(): LabelBound {
    return this.#learning.phases;
  }

  get reasons(): LabelBound {
    return this.#learning.reasons;
  }

  /** The bound of a state field (a new one is the kind's on commit). */
  state(field: string): LabelBound {
    let bound = this.#learning.states.get(field) ?? this.#newStates.get(field);
    if (!bound) {
      bound = new LabelBound(maxLearnedPhases);
      this.#newStates.set(field, bound);
    }
    return bound;
  }

  /** Applies every hold and release to the kind's bounds, once: a change is committed with its entry, then dropped. */
  commit(): void {
    for (const [field, bound] of this.#newStates)
      (this.#learning.states as Map<string, LabelBound>).set(field, bound);
    for (const [bound, values] of this.#holders) for (const [value, n] of values) bound.setHolders(value, n);
  }

  #holdersOf(bound: LabelBound, value: string): number {
    return this.#holders.get(bound)?.get(value) ?? bound.holders(value);
  }

  #set(bound: LabelBound, value: string, holders: number): void {
    const before = this.#holdersOf(bound, value);
    let values = this.#holders.get(bound);
    if (!values) {
      values = new Map();
      this.#holders.set(bound, values);
    }
    values.set(value, holders);
    const size = this.#sizes.get(bound) ?? bound.size;
    this.#sizes.set(
      bound,
      size + (before === 0 && holders > 0 ? 1 : 0) - (before > 0 && holders === 0 ? 1 : 0),
    );
  }
}

/**
 * The bounded labels for `state`: those `from` holds where its phase,
 * reasons and state fields are unchanged; else `from`'s are released first (its own value
 * frees its place) and the new ones held, in `changes`.
 */
export function holdLabels(
  changes: LabelChanges,
  from: { state: ObjectState; labels: HeldLabels } | undefined,
  state: ObjectState,
  withReasons: boolean,
): HeldLabels {
  const before = from?.labels ?? noHeldLabels;
  // Shortcuts for the common update (status unchanged, or changed elsewhere): no comparison
  // work and no new object on every event; the full path below gives an equal result.
  if (from?.state === state) return before;
  const phaseKept = from !== undefined && from.state.phase === state.phase;
  const reasonsKept = from !== undefined && sameReasons(from.state.conditions, state.conditions);
  const statesKept = from !== undefined && sameStates(from.state, state);
  if (phaseKept && reasonsKept && statesKept) return before;
  let phase = before.phase;
  if (!phaseKept) {
    if (before.phase !== undefined) changes.release(changes.phases, before.phase);
    phase = state.phase === undefined ? undefined : changes.hold(changes.phases, state.phase);
  }
  let reasons = before.reasons;
  if (!reasonsKept) {
    for (const reason of before.reasons) changes.release(changes.reasons, reason);
    reasons = withReasons
      ? state.conditions.map((c) => (c.reason === "" ? "" : changes.hold(changes.reasons, c.reason)))
      : [];
  }
  let states = before.states;
  if (!statesKept) {
    for (const [field, value] of before.states) changes.release(changes.state(field), value);
    states = state.states.map((s) => [s.name, changes.hold(changes.state(s.name), s.value)] as const);
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
