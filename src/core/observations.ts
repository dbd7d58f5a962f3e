// Histogram observations implied by one change of an object. Pure:
// timestamps come from the object where the API gives them (so results
// survive exporter restarts), else from `now`.
import { findCondition } from "./generations.ts";
import { isReconciled } from "./kstatus.ts";
import type { ObjectState, Transition } from "./state.ts";

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
  /** Ready=True had been seen before this change. */
  readySeen: boolean;
  readyCondition: string;
  now: number;
}

export function observe(input: ObservationInput): Observations {
  const { previous, next, readyCondition, now } = input;
  const stateDurations: Observations["stateDurations"] = [];
  for (const t of input.transitions) {
    if (t.kind !== "condition" || t.from === undefined || t.since === undefined) continue;
    const seconds = t.at - t.since;
    if (seconds >= 0) stateDurations.push({ type: t.type, status: t.from, seconds });
  }

  const ready = findCondition(next, readyCondition);
  let reconcile: Observations["reconcile"];
  const bumpAt = input.requestedAt;
  if (
    bumpAt !== undefined &&
    previous &&
    !isReconciled(previous, readyCondition) &&
    isReconciled(next, readyCondition)
  ) {
    const doneAt =
      ready?.lastTransitionTime !== undefined && ready.lastTransitionTime >= bumpAt
        ? ready.lastTransitionTime
        : now;
    reconcile = { generation: next.generation, seconds: Math.max(0, doneAt - bumpAt) };
  }

  let timeToReadySeconds: number | undefined;
  if (ready?.status === "True" && !input.readySeen && previous && next.creationTimestamp !== undefined) {
    const wasReady = findCondition(previous, readyCondition)?.status === "True";
    if (!wasReady)
      timeToReadySeconds = Math.max(0, (ready.lastTransitionTime ?? now) - next.creationTimestamp);
  }
  if (stateDurations.length === 0 && !reconcile && timeToReadySeconds === undefined) return noObservations;
  return { stateDurations, reconcile, timeToReadySeconds };
}
