// Timestamps and where they came from. Server times (creationTimestamp,
// managedFields, lastTransitionTime) are reproducible after a restart; this
// process's clock (`observed`) is not, and is marked so on every span.
import type { ConditionState, ObjectState } from "../../core/state.ts";
import type { TimeSource } from "../attributes.ts";

export interface Stamp {
  ms: number;
  source: TimeSource;
}

export function observed(nowMs: number): Stamp {
  return { ms: nowMs, source: "observed" };
}

/**
 * When a generation began: creationTimestamp for the first, the time of the
 * newest spec write (managedFields) for later ones; server clocks, so a
 * restart finds the same start. Else this process's clock, marked `observed`.
 */
export function bumpTime(object: ObjectState, generation: number, nowMs: number): Stamp {
  if (generation === 1 && object.creationTimestamp !== undefined) {
    return { ms: object.creationTimestamp * 1000, source: "creation_timestamp" };
  }
  if (object.specChangedAt !== undefined) return { ms: object.specChangedAt * 1000, source: "spec_change" };
  return observed(nowMs);
}

/** The time of a transition: the condition's lastTransitionTime when it is not before `startMs`, else now. */
export function transitionEnd(startMs: number, lastTransitionTime: number | undefined, nowMs: number): Stamp {
  if (lastTransitionTime !== undefined && lastTransitionTime * 1000 >= startMs) {
    return { ms: lastTransitionTime * 1000, source: "condition" };
  }
  return observed(nowMs);
}

/** When a condition entered its current status: lastTransitionTime, else now. */
export function conditionStart(condition: ConditionState, nowMs: number): Stamp {
  const since = condition.lastTransitionTime;
  return since !== undefined ? { ms: since * 1000, source: "condition" } : observed(nowMs);
}

/** What tells one interval of a condition from the next: its lastTransitionTime (else when seen) and status. */
export function sinceKey(condition: ConditionState, nowMs: number): string {
  return condition.lastTransitionTime !== undefined
    ? `${condition.lastTransitionTime}|${condition.status}`
    : `observed:${nowMs}|${condition.status}`;
}

export function rfc3339(epochSeconds: number): string {
  return new Date(epochSeconds * 1000).toISOString().replace(/\.000Z$/, "Z");
}
