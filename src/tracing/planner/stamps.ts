// Timestamps and where they came from. Server times (creationTimestamp,
// managedFields, lastTransitionTime) are reproducible after a restart; this
// process's clock (`observed`, and the times it remembers for conditions that
// carry none) is not, and is marked so on every span.
import { generationStart } from "../../core/judge/generations.ts";
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
 * When a generation began: the same start metrics use (core/judge/generations.ts:
 * creation for the first, the newest spec write for later ones), else this
 * process's clock, marked `observed`.
 */
export function bumpTime(object: ObjectState, generation: number, nowMs: number): Stamp {
  const start = generationStart(object, generation);
  return start ? { ms: start.at * 1000, source: start.source } : observed(nowMs);
}

/** When a condition entered its current status: lastTransitionTime, else when the exporter first saw it, else now. */
export function conditionStart(condition: ConditionState, nowMs: number): Stamp {
  const since = condition.since;
  if (since === undefined) return observed(nowMs);
  return { ms: since * 1000, source: condition.lastTransitionTime !== undefined ? "condition" : "observed" };
}

/** The time of a transition: the condition's start (conditionStart) when it is not before `startMs`, else now. */
export function transitionEnd(startMs: number, condition: ConditionState | undefined, nowMs: number): Stamp {
  const stamp = condition?.since !== undefined ? conditionStart(condition, nowMs) : undefined;
  return stamp && stamp.ms >= startMs ? stamp : observed(nowMs);
}

/** Tells one interval of a condition from the next in ids: its lastTransitionTime, else when it was first seen. */
export function sinceLabel(condition: ConditionState, nowMs: number): string {
  if (condition.lastTransitionTime !== undefined) return String(condition.lastTransitionTime);
  return `observed:${condition.since !== undefined ? condition.since * 1000 : nowMs}`;
}

/** What tells one interval of a condition from the next: its since label and status. */
export function sinceKey(condition: ConditionState, nowMs: number): string {
  return `${sinceLabel(condition, nowMs)}|${condition.status}`;
}

export function rfc3339(epochSeconds: number): string {
  return new Date(epochSeconds * 1000).toISOString().replace(/\.000Z$/, "Z");
}
