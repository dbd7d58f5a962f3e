// What the planner asks of an object: the desired status of a condition, and
// whether the object is reconciled, stalled or failed.
import type { ConditionState, ObjectState } from "../../core/state.ts";
import type { PlannerSettings } from "./model.ts";

/** The desired status of a condition type. */
export function desiredStatus(settings: PlannerSettings, type: string): ConditionState["status"] {
  return settings.desiredStatus[type] ?? (settings.negativePolarity.includes(type) ? "False" : "True");
}

export function findCondition(object: ObjectState, type: string): ConditionState | undefined {
  return object.conditions.find((c) => c.type === type);
}

/**
 * Reconciled: status.observedGeneration has caught up with `generation` and
 * the ready condition is in its desired status, for this generation if the
 * condition carries its own observedGeneration. A controller that reports no
 * observedGeneration at all is taken at its ready condition's word.
 */
export function isReconciled(settings: PlannerSettings, object: ObjectState, generation: number): boolean {
  const ready = findCondition(object, settings.readyCondition);
  if (!ready || ready.status !== desiredStatus(settings, ready.type)) return false;
  if (ready.observedGeneration !== undefined && ready.observedGeneration < generation) return false;
  const observed = object.observedGeneration ?? ready.observedGeneration;
  return observed === undefined || observed >= generation;
}

export function stalledCondition(settings: PlannerSettings, object: ObjectState): ConditionState | undefined {
  const stalled = findCondition(object, settings.stalledCondition);
  return stalled?.status === "True" ? stalled : undefined;
}

export function isFailedPhase(settings: PlannerSettings, object: ObjectState): boolean {
  return object.phase !== undefined && settings.failedPhases.includes(object.phase);
}

/** Reconciled, stalled or failed: nothing more will happen to this generation on its own. */
export function isSettled(settings: PlannerSettings, object: ObjectState, generation: number): boolean {
  return (
    isReconciled(settings, object, generation) ||
    stalledCondition(settings, object) !== undefined ||
    isFailedPhase(settings, object)
  );
}

/** When the ready condition entered its current status (epoch ms), if the object says. */
export function readyTimeMs(settings: PlannerSettings, object: ObjectState): number | undefined {
  const since = findCondition(object, settings.readyCondition)?.lastTransitionTime;
  return since === undefined ? undefined : since * 1000;
}
