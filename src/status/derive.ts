// Facts derived from an ObjectView at a given time: not ready since when,
// lagging for how long, flapping or not. One definition, used by the filters,
// the sort, the JSON, the page and the CLI alike.
import type { ObjectView } from "./view.ts";

/** Anything but Current is "not Ready": InProgress, Failed, Terminating, Unknown. */
export function isNotReady(view: ObjectView): boolean {
  return view.result !== "Current";
}

/** The controller has not observed the current generation (object- or Ready-condition-level). */
export function isLagging(view: ObjectView): boolean {
  const generation = view.generation;
  if (generation === undefined) return false;
  if (view.observedGeneration !== undefined && view.observedGeneration < generation) return true;
  const readyObserved = view.ready?.observedGeneration;
  return readyObserved !== undefined && readyObserved < generation;
}

/**
 * Epoch seconds since which the object has not been Ready, for not-Ready
 * objects: termination start, else the Ready condition's last transition when
 * it is not True, else when the unobserved generation was asked for, else
 * creation. undefined for Ready objects or when nothing tells.
 */
export function notReadySince(view: ObjectView): number | undefined {
  if (!isNotReady(view)) return undefined;
  if (view.terminatingSince !== undefined) return view.terminatingSince;
  if (view.ready && view.ready.status !== "True" && view.ready.since !== undefined) return view.ready.since;
  if (isLagging(view) && view.generationRequestedAt !== undefined) return view.generationRequestedAt;
  return view.createdAt;
}

/**
 * The status says nothing the exporter reads: no condition, phase or
 * observedGeneration (a controller that never wrote status, or not yet).
 */
export function statusUnwritten(view: ObjectView): boolean {
  return view.conditions.length === 0 && view.phase === undefined && view.observedGeneration === undefined;
}

/** The SINCE of tables: since when not Ready, or since when Ready for Ready objects. */
export function stateSince(view: ObjectView): number | undefined {
  return isNotReady(view) ? notReadySince(view) : view.ready?.since;
}

/** Seconds the current generation has waited to be observed; 0 when caught up or unknown. */
export function lagSeconds(view: ObjectView, now: number): number {
  if (!isLagging(view) || view.generationRequestedAt === undefined) return 0;
  return Math.max(0, now - view.generationRequestedAt);
}

/** metadata.generation − status.observedGeneration, floored at 0; undefined when either is missing. */
export function generationLag(view: ObjectView): number | undefined {
  if (view.generation === undefined || view.observedGeneration === undefined) return undefined;
  return Math.max(0, view.generation - view.observedGeneration);
}

export function isFlapping(view: ObjectView, minTransitions: number): boolean {
  return view.transitionsInWindow >= minTransitions;
}

/** Not Ready, or flapping (Ready half of the time): what the status page lists first. */
export function needsAttention(view: ObjectView, minTransitions: number): boolean {
  return isNotReady(view) || isFlapping(view, minTransitions);
}
