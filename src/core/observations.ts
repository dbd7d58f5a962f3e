// Histogram observations implied by one change of an object, plus the small
// per-object memory they need. Pure: timestamps come from the object where the
// API gives them (so results survive exporter restarts), else from `now`.
import { isReconciled } from "./kstatus.ts";
import type { ObjectState, Transition } from "./state.ts";

export interface ObjectMemory {
  /** Generation whose wait is being timed, and since when (epoch seconds). */
  lagGeneration: number | undefined;
  lagSince: number | undefined;
  /** Ready=True was already seen once (time-to-ready is observed only for the first). */
  readySeen: boolean;
}

export function newMemory(): ObjectMemory {
  return { lagGeneration: undefined, lagSince: undefined, readySeen: false };
}

export interface Observations {
  stateDurations: { type: string; status: string; seconds: number }[];
  /** Generation bump → reconciled, for the generation that just got reconciled. */
  reconcile: { generation: number | undefined; seconds: number } | undefined;
  timeToReadySeconds: number | undefined;
}

/** Updates `memory` in place and returns the observations for this change. */
export function observe(
  previous: ObjectState | undefined,
  next: ObjectState,
  transitions: readonly Transition[],
  memory: ObjectMemory,
  readyCondition: string,
  now: number,
): Observations {
  const result: Observations = { stateDurations: [], reconcile: undefined, timeToReadySeconds: undefined };
  for (const t of transitions) {
    if (t.kind !== "condition" || t.from === undefined || t.since === undefined) continue;
    const seconds = t.at - t.since;
    if (seconds >= 0) result.stateDurations.push({ type: t.type, status: t.from, seconds });
  }

  const ready = next.conditions.find((c) => c.type === readyCondition);
  const bumpAt = bumpTime(next, memory);
  if (previous && !isReconciled(previous, readyCondition) && isReconciled(next, readyCondition)) {
    if (bumpAt !== undefined) {
      const doneAt =
        ready?.lastTransitionTime !== undefined && ready.lastTransitionTime >= bumpAt
          ? ready.lastTransitionTime
          : now;
      result.reconcile = { generation: next.generation, seconds: Math.max(0, doneAt - bumpAt) };
    }
  }

  if (ready?.status === "True" && !memory.readySeen) {
    memory.readySeen = true;
    const wasReady = previous?.conditions.some((c) => c.type === readyCondition && c.status === "True");
    if (previous && !wasReady && next.creationTimestamp !== undefined) {
      const at = ready.lastTransitionTime ?? now;
      result.timeToReadySeconds = Math.max(0, at - next.creationTimestamp);
    }
  }

  updateLag(next, memory, now);
  return result;
}

/** When the current generation was asked for: the spec write, creation for generation 1, else first seen. */
export function bumpTime(state: ObjectState, memory: ObjectMemory): number | undefined {
  if (state.generation === 1 && state.creationTimestamp !== undefined) return state.creationTimestamp;
  if (state.specChangedAt !== undefined) return state.specChangedAt;
  return memory.lagGeneration === state.generation ? memory.lagSince : undefined;
}

function updateLag(state: ObjectState, memory: ObjectMemory, now: number): void {
  const lagging =
    state.generation !== undefined &&
    state.observedGeneration !== undefined &&
    state.generation > state.observedGeneration;
  if (!lagging) {
    memory.lagGeneration = undefined;
    memory.lagSince = undefined;
    return;
  }
  if (memory.lagGeneration !== state.generation) {
    memory.lagGeneration = state.generation;
    memory.lagSince =
      state.generation === 1 ? (state.creationTimestamp ?? now) : (state.specChangedAt ?? now);
  }
}
