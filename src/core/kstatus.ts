// A kstatus-like one-word summary of an object, from its conditions and
// generations. Time-dependent only through "Ready=False for longer than
// failedAfterSeconds", so the result also says when it would next change.
import type { ConditionState, ObjectState } from "./state.ts";

export const statusResults = ["Current", "InProgress", "Failed", "Terminating", "Unknown"] as const;
export type StatusResult = (typeof statusResults)[number];

export interface StatusSettings {
  /** The condition that means "healthy" (default Ready). */
  readyCondition: string;
  /** Ready=False for this long counts as Failed (default 300 s). */
  failedAfterSeconds: number;
}

export interface StatusSummary {
  result: StatusResult;
  /** Epoch seconds at which the result turns Failed without any new event, if pending. */
  changesAt: number | undefined;
}

function find(conditions: readonly ConditionState[], type: string): ConditionState | undefined {
  return conditions.find((c) => c.type === type);
}

/** True when the controller has observed the current generation (object- and condition-level). */
export function generationObserved(state: ObjectState, condition?: ConditionState): boolean {
  const generation = state.generation;
  if (generation === undefined) return true;
  if (state.observedGeneration !== undefined && state.observedGeneration < generation) return false;
  if (condition?.observedGeneration !== undefined && condition.observedGeneration < generation) return false;
  return true;
}

export function summarizeStatus(state: ObjectState, settings: StatusSettings, now: number): StatusSummary {
  if (state.deletionTimestamp !== undefined) return { result: "Terminating", changesAt: undefined };
  const stalled = find(state.conditions, "Stalled");
  if (stalled?.status === "True") return { result: "Failed", changesAt: undefined };
  const ready = find(state.conditions, settings.readyCondition);
  const hasStatus =
    state.conditions.length > 0 || state.observedGeneration !== undefined || state.phase !== undefined;
  if (!hasStatus) return { result: "Unknown", changesAt: undefined };
  if (!generationObserved(state, ready)) return { result: "InProgress", changesAt: undefined };
  if (find(state.conditions, "Reconciling")?.status === "True")
    return { result: "InProgress", changesAt: undefined };
  if (!ready) return { result: "Current", changesAt: undefined };
  if (ready.status === "True") return { result: "Current", changesAt: undefined };
  if (ready.status === "False") {
    const since = ready.lastTransitionTime ?? now;
    const failAt = since + settings.failedAfterSeconds;
    if (now >= failAt) return { result: "Failed", changesAt: undefined };
    return { result: "InProgress", changesAt: failAt };
  }
  return { result: "InProgress", changesAt: undefined };
}

/** Ready=True with the current generation observed: the object is reconciled. */
export function isReconciled(state: ObjectState, readyCondition: string): boolean {
  const ready = find(state.conditions, readyCondition);
  if (!generationObserved(state, ready)) return false;
  return ready ? ready.status === "True" : state.observedGeneration !== undefined;
}
