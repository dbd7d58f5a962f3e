// The span planner: from one observation of an object (and what tracing
// remembers about it) to the spans to emit now, fully decided — ids, times,
// attributes, links, events, status. Pure: no clock, no SDK, no I/O; the
// caller owns the state and passes the time in.
//
// Span model (docs/tracing.md):
// - a `<Kind> generation` root span per (object, generation), from the spec
//   change until the object is reconciled, superseded, deleted, stalled,
//   failed or timed out (generation.ts);
// - children `condition <Type>` for every interval a tracked condition spent
//   away from its desired status, with its reason changes as events, and
//   `phase <Phase>` for every phase held (intervals.ts, reasons.ts);
// - a `<Kind> degraded` root span for the ready condition leaving its desired
//   status with no spec change (a flap), linked to the generation it happened
//   in. Kinds without a status subresource get only these (degraded.ts).
//   Kinds judged by state fields are traced through a stand-in ready
//   condition (state-readiness.ts);
// - on such kinds, with tracing.operation, an `<Kind> operation` root per
//   operation the object reports instead, keyed by its server-written start
//   (operation.ts); without a readable start, degraded roots as above.
import type { ObjectObservation } from "../state-tracer.ts";
import { planDegraded } from "./degraded.ts";
import { closeEpisode, expire } from "./episode-end.ts";
import { planGeneration } from "./generation.ts";
import type { ObjectTraceState, PlannerSettings } from "./model.ts";
import { leaveOperations, planOperation } from "./operation.ts";
import { observed } from "./stamps.ts";
import { tracedStates } from "./state-readiness.ts";
import { emptyTraceState, type PlanResult, stepOn } from "./step.ts";

/** Plans the spans for one observation. */
export function planObservation(
  settings: PlannerSettings,
  state: ObjectTraceState | undefined,
  observation: ObjectObservation,
): PlanResult {
  const o = tracedStates(observation, state?.open);
  const uid = o.current?.uid ?? o.previous?.uid ?? state?.uid;
  if (uid === undefined) return { state, spans: [] };
  const step = stepOn(settings, state ?? emptyTraceState(uid), o.nowMs, o.readiness);
  const current = o.current;

  if (!current) {
    const open = step.state.open;
    if (open) {
      const observedGeneration = o.previous?.observedGeneration;
      closeEpisode(step, open, { end: observed(o.nowMs), outcome: "deleted", observedGeneration });
    }
    return { state: undefined, spans: step.spans };
  }

  if (o.statusSubresource && current.generation !== undefined) {
    planGeneration(step, o, current, current.generation);
  } else if (current.refs?.operation) {
    planOperation(step, o, current, current.refs.operation);
  } else {
    leaveOperations(step, o, current);
    planDegraded(step, o, current, "conditions");
  }
  expire(step);
  return {
    state: step.state,
    spans: step.spans,
    ...(step.malformedTraceContext && { malformedTraceContext: true }),
  };
}

/** Plans what the passage of time alone ends: open root spans past their timeout. */
export function planTick(settings: PlannerSettings, state: ObjectTraceState, nowMs: number): PlanResult {
  if (!state.open || nowMs < state.open.startMs + settings.timeoutMs) return { state, spans: [] };
  const step = stepOn(settings, state, nowMs);
  expire(step);
  return { state: step.state, spans: step.spans };
}

/**
 * Ends an open root span (and its children) as `interrupted`: for a shutdown
 * that should not leave the work to a restarted process.
 */
export function planInterrupt(settings: PlannerSettings, state: ObjectTraceState, nowMs: number): PlanResult {
  const step = stepOn(settings, state, nowMs);
  const open = step.state.open;
  if (!open) return { state, spans: [] };
  closeEpisode(step, open, { end: observed(nowMs), outcome: "interrupted" });
  return { state: step.state, spans: step.spans };
}
