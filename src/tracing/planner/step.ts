// One planning step: the settings, the time, the object's tracing state being
// changed (a copy: the caller's is never touched) and the spans decided so far.
import { defaultReadinessRules, type ReadinessRules } from "../../core/judge/readiness.ts";
import type { ObjectTraceState, PlannerSettings, SpanPlan } from "./model.ts";

export interface Step {
  settings: PlannerSettings;
  /** The observed resource's readiness rules (steps without an observation, timeouts and shutdown, consult none). */
  rules: ReadinessRules;
  /** Epoch milliseconds of the observation (the injected clock). */
  nowMs: number;
  state: ObjectTraceState;
  spans: SpanPlan[];
  /** A generation opened with a trace-context annotation that could not be parsed (counted by the tracer). */
  malformedTraceContext?: boolean;
}

export interface PlanResult {
  /** Undefined when there is nothing left to remember (the object is gone). */
  state: ObjectTraceState | undefined;
  spans: SpanPlan[];
  /** A generation opened with a malformed trace-context annotation (ignored). */
  malformedTraceContext?: boolean;
}

export function emptyTraceState(uid: string): ObjectTraceState {
  return {
    uid,
    open: undefined,
    closedGeneration: undefined,
    closedAtMs: undefined,
    tracedGeneration: undefined,
    closedDegradedSince: undefined,
  };
}

/** A step on a copy of `state`, deep enough that the step may change the open episode's children. */
export function stepOn(
  settings: PlannerSettings,
  state: ObjectTraceState,
  nowMs: number,
  rules: ReadinessRules = defaultReadinessRules,
): Step {
  const open = state.open ? { ...state.open, conditions: { ...state.open.conditions } } : undefined;
  return { settings, rules, nowMs, state: { ...state, open }, spans: [] };
}
