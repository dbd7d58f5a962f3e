// One readiness model. cr_status (summarizeStatus below), the reconcile and time-to-ready
// histograms (observations.ts) and the span planner ask the same questions —
// which condition means ready and which status it wants, is the current
// generation observed, is the object stalled, does its phase decide, is it
// reconciled — and get the same answers from the same per-resource rules.
// Pure: the clock is an argument.

import type { ConditionState, ConditionStatus, ObjectState, StateValue, StatusResult } from "../state.ts";
import { type PhaseMapping, phaseResult } from "./phase-result.ts";

/**
 * A state field's part in readiness (Argo CD: health Healthy, Degraded
 * failing; sync Synced). Values in neither list are progress.
 */
export interface StateRule {
  name: string;
  /** The values that mean ready; empty: the field does not gate readiness. */
  ready: readonly string[];
  /** The values that turn Failed once held for failedAfter. */
  failed: readonly string[];
}

export interface ReadinessRules {
  /**
   * The condition whose desired status means ready (configured, or detected:
   * Ready, then Succeeded, then Available). Undefined: the kind has none, and
   * its phase decides (the default phase table), else observedGeneration.
   */
  readyCondition: string | undefined;
  /** True: the object is stuck and will not progress on its own (Failed). */
  stalledCondition: string;
  /** True: work in progress (InProgress). */
  reconcilingCondition: string;
  /** The ready condition away from its desired status for this long counts as Failed. */
  failedAfterSeconds: number;
  /** Condition types that are abnormal when True: their desired status is False. */
  negativePolarity: readonly string[];
  /**
   * State fields that gate readiness: every rule with `ready` values must hold
   * one of them (a missing field is progress). Without a ready condition they
   * are the readiness rule.
   */
  states: readonly StateRule[];
  /** Phase → result: the per-resource `phaseResults`, and whether the kind runs to completion (default table). */
  phases: PhaseMapping;
}

export const defaultReadinessRules: ReadinessRules = {
  readyCondition: "Ready",
  stalledCondition: "Stalled",
  reconcilingCondition: "Reconciling",
  failedAfterSeconds: 300,
  negativePolarity: ["Reconciling", "Progressing", "Stalled", "Degraded"],
  states: [],
  phases: { runToCompletion: false, overrides: {} },
};

/**
 * Readiness conditions whose opposite status is final (the Knative convention
 * for runs: Succeeded=False means the run failed, it will not be retried), so
 * it is Failed at once instead of after failedAfter.
 */
export const terminalConditions: readonly string[] = ["Succeeded"];

export function stateOf(state: ObjectState, name: string): string | undefined {
  for (const s of state.states) if (s.name === name) return s.value;
  return undefined;
}

export function findCondition(state: ObjectState, type: string): ConditionState | undefined {
  for (const c of state.conditions) if (c.type === type) return c;
  return undefined;
}

/** The status a condition type wants: False for the abnormal-true types, else True. */
export function desiredStatus(rules: ReadinessRules, type: string): ConditionStatus {
  return rules.negativePolarity.includes(type) ? "False" : "True";
}

/**
 * The controller has observed `generation` (default: the object's): neither
 * status.observedGeneration nor the ready condition's own observedGeneration
 * is behind. A controller that reports neither is taken at its word — unless
 * it reports generations on its conditions only and the ready condition is
 * not there yet (cert-manager writes Issuing before Ready): the generation is
 * then not shown observed, so a status write of other conditions never
 * passes for the reconciliation.
 */
export function generationObserved(
  state: ObjectState,
  condition: ConditionState | undefined,
  generation = state.generation,
  readyCondition: string | undefined = condition?.type,
): boolean {
  if (generation === undefined) return true;
  if (state.observedGeneration !== undefined)
    return state.observedGeneration >= generation && !behind(condition, generation);
  if (condition) return !behind(condition, generation);
  return readyCondition === undefined || !state.conditions.some((c) => c.observedGeneration !== undefined);
}

const behind = (condition: ConditionState | undefined, generation: number): boolean =>
  condition?.observedGeneration !== undefined && condition.observedGeneration < generation;

export type Verdict = "Current" | "InProgress" | "Failed" | "Unknown";

/** What the status says about readiness, before deletion, and what decided it. */
export interface Judgement {
  result: Verdict;
  /**
   * stalled: the stalled condition is True; no_status: nothing to judge by;
   * generation: the current generation is not observed yet; reconciling: the
   * reconciling condition is True; phase: the phase decided (phaseResults, or
   * the default table for a kind without a readiness condition); condition:
   * the ready condition decided (a terminal one at once); failed_after: the
   * ready condition has been away from its desired status for failedAfter;
   * observed: no ready condition on the object, its generation is observed;
   * state: the state fields decided (a value away from ready, or all ready);
   * cel: the kind's readiness expression decided (Unknown: its evaluation
   * failed), whatever the conditions, phase and states say.
   */
  by:
    | "cel"
    | "stalled"
    | "no_status"
    | "generation"
    | "reconciling"
    | "phase"
    | "condition"
    | "failed_after"
    | "observed"
    | "state";
  /** The condition that decided (the stalled or the ready one). */
  condition: ConditionState | undefined;
  /** The state field that decided (away from ready, or failed after failedAfter). */
  state?: StateValue | undefined;
  /** While the ready condition is away from its desired status: epoch seconds at which it turns Failed. */
  failsAt: number | undefined;
}

const judged = (
  result: Verdict,
  by: Judgement["by"],
  condition?: ConditionState,
  failsAt?: number,
): Judgement => ({ result, by, condition, failsAt });

const gates = (rules: ReadinessRules): boolean => rules.states.some((r) => r.ready.length > 0);

/**
 * The state fields' verdict when one is away from ready: Failed once a failed
 * value has lasted failedAfter (the first such field), else InProgress, with
 * the earliest time a failed value turns Failed. Undefined: none is away.
 */
function judgeStates(state: ObjectState, rules: ReadinessRules, now: number): Judgement | undefined {
  let away: Judgement | undefined;
  for (const rule of rules.states) {
    const value = state.states.find((s) => s.name === rule.name);
    if (value && rule.failed.includes(value.value)) {
      const failsAt = (value.since ?? now) + rules.failedAfterSeconds;
      if (now >= failsAt)
        return {
          result: "Failed",
          by: "failed_after",
          condition: undefined,
          state: value,
          failsAt: undefined,
        };
      if (away?.failsAt === undefined || failsAt < away.failsAt)
        away = { result: "InProgress", by: "state", condition: undefined, state: value, failsAt };
    } else if (rule.ready.length > 0 && !(value && rule.ready.includes(value.value))) {
      away ??= { result: "InProgress", by: "state", condition: undefined, state: value, failsAt: undefined };
    }
  }
  return away;
}

/**
 * The object's readiness at `now` (epoch seconds), for `generation` (default
 * its own). Deletion is not judged here: a terminating object is still ready
 * or not (summarizeStatus puts Terminating first).
 */
export function judge(
  state: ObjectState,
  rules: ReadinessRules,
  now: number,
  generation = state.generation,
): Judgement {
  // The expression sees the whole object (generations included): it alone decides.
  if (state.celVerdict !== undefined) return judged(state.celVerdict, "cel");
  const stalled = findCondition(state, rules.stalledCondition);
  if (stalled?.status === "True") return judged("Failed", "stalled", stalled);
  const hasStatus =
    state.conditions.length > 0 ||
    state.observedGeneration !== undefined ||
    state.phase !== undefined ||
    state.states.length > 0;
  if (!hasStatus) return judged("Unknown", "no_status");
  const ready = rules.readyCondition === undefined ? undefined : findCondition(state, rules.readyCondition);
  if (!generationObserved(state, ready, generation, rules.readyCondition))
    return judged("InProgress", "generation");
  if (findCondition(state, rules.reconcilingCondition)?.status === "True")
    return judged("InProgress", "reconciling");
  // An explicit phaseResults entry decides whatever the conditions say; the
  // default table only for kinds without a readiness condition.
  const phase = phaseResult(state.phase, rules.phases);
  if (phase.source === "override") return judged(phase.result, "phase");
  const byStates = judgeStates(state, rules, now);
  if (byStates) return byStates;
  if (rules.readyCondition === undefined && gates(rules)) return judged("Current", "state");
  if (rules.readyCondition === undefined && phase.source !== "absent") return judged(phase.result, "phase");
  if (!ready) return judged("Current", "observed");
  const want = desiredStatus(rules, ready.type);
  if (ready.status === want) return judged("Current", "condition", ready);
  if (ready.status === "Unknown") return judged("InProgress", "condition", ready);
  if (terminalConditions.includes(ready.type)) return judged("Failed", "condition", ready);
  const failsAt = (ready.since ?? now) + rules.failedAfterSeconds;
  if (now >= failsAt) return judged("Failed", "failed_after", ready);
  return judged("InProgress", "condition", ready, failsAt);
}

/**
 * Reconciled: `generation` is observed and the object is ready (Current).
 * Time does not enter: only failedAfter depends on the clock, and it never
 * makes an object Current.
 */
export function isReconciled(
  state: ObjectState,
  rules: ReadinessRules,
  generation = state.generation,
): boolean {
  return judge(state, rules, 0, generation).result === "Current";
}

/**
 * Nothing more will happen to `generation` on its own: reconciled, stalled,
 * or failed for good (a Failed phase, a terminal readiness condition) — not a
 * ready condition merely away for longer than failedAfter, which may recover.
 */
export function isSettled(state: ObjectState, rules: ReadinessRules, generation = state.generation): boolean {
  const j = judge(state, rules, 0, generation);
  return j.result === "Current" || (j.result === "Failed" && j.by !== "failed_after");
}

/**
 * Ready, generations aside: the ready condition is in its desired status; for
 * a kind without a readiness condition, or whose readiness expression
 * decides, the object is Current. Time to ready
 * counts up to the first time this holds.
 */
export function isReady(state: ObjectState, rules: ReadinessRules): boolean {
  if (rules.readyCondition === undefined || state.celVerdict !== undefined)
    return judge(state, rules, 0).result === "Current";
  const ready = findCondition(state, rules.readyCondition);
  return (
    ready !== undefined &&
    ready.status === desiredStatus(rules, ready.type) &&
    rules.states.every((r) => r.ready.length === 0 || isReadyValue(r.ready, stateOf(state, r.name)))
  );
}

/** A missing field is not ready, whatever the list holds (even "", which no field is projected as). */
function isReadyValue(ready: readonly string[], value: string | undefined): boolean {
  return value !== undefined && ready.includes(value);
}

/** The kstatus-like summary of an object, and when it would next change with no new event. */
export interface StatusSummary {
  result: StatusResult;
  /** Epoch seconds at which the result turns Failed without any new event, if pending. */
  changesAt: number | undefined;
}

/**
 * The readiness judgement as one word, with Terminating first. Time-dependent
 * only through "the ready condition away from its desired status for longer
 * than failedAfterSeconds", so it also says when it would next change.
 */
export function summarizeStatus(state: ObjectState, rules: ReadinessRules, now: number): StatusSummary {
  if (state.deletionTimestamp !== undefined) return { result: "Terminating", changesAt: undefined };
  const { result, failsAt } = judge(state, rules, now);
  return { result, changesAt: failsAt };
}
