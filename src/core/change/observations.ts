// Histogram observations implied by one change of an object. Pure:
// timestamps come from the object where the API gives them (so results
// survive exporter restarts), else from `now`.
import { findCondition, isReady, type ReadinessRules } from "../judge/readiness.ts";
import type { ObjectState, Transition } from "../state.ts";

export interface Observations {
  stateDurations: { type: string; status: string; seconds: number }[];
  /** Generation bump → reconciled, for the generation that just got reconciled. */
  reconcile: { generation: number | undefined; seconds: number } | undefined;
  timeToReadySeconds: number | undefined;
}

export const noObservations: Observations = {
  stateDurations: [],
  reconcile: undefined,
  timeToReadySeconds: undefined,
};

export interface ObservationInput {
  previous: ObjectState | undefined;
  next: ObjectState;
  transitions: readonly Transition[];
  /** When the next state's generation was requested (see generations.ts). */
  requestedAt: number | undefined;
  /** The object had been ready before this change (see isReady). */
  readySeen: boolean;
  /** The generation last seen reconciled before this change (ObjectMemory). */
  reconciledGeneration: number | undefined;
  /** The next state is reconciled (readiness.ts isReconciled), as the caller judged it once. */
  reconciled: boolean;
  readiness: ReadinessRules;
  now: number;
}

export function observe(input: ObservationInput): Observations {
  const { previous, next, readiness, now } = input;
  const stateDurations: Observations["stateDurations"] = [];
  for (const t of input.transitions) {
    if (t.kind !== "condition" || t.from === undefined || t.since === undefined) continue;
    const seconds = t.at - t.since;
    if (seconds >= 0) stateDurations.push({ type: t.type, status: t.from, seconds });
  }

  const ready =
    readiness.readyCondition === undefined ? undefined : findCondition(next, readiness.readyCondition);
  let reconcile: Observations["reconcile"];
  const bumpAt = input.requestedAt;
  // One observation per generation: a generation reconciled again (a flap
  // that recovered, a later status write) was counted the first time.
  if (
    bumpAt !== undefined &&
    previous &&
    input.reconciledGeneration !== next.generation &&
    input.reconciled
  ) {
    const doneAt = ready?.since !== undefined && ready.since >= bumpAt ? ready.since : now;
    reconcile = { generation: next.generation, seconds: Math.max(0, doneAt - bumpAt) };
  }

  let timeToReadySeconds: number | undefined;
  if (!input.readySeen && previous && next.creationTimestamp !== undefined && isReady(next, readiness)) {
    if (!isReady(previous, readiness))
      timeToReadySeconds = Math.max(0, (ready?.since ?? now) - next.creationTimestamp);
  }
  if (stateDurations.length === 0 && !reconcile && timeToReadySeconds === undefined) return noObservations;
  return { stateDurations, reconcile, timeToReadySeconds };
}
