// Ending root spans: a generation reconciled, superseded, deleted, stalled,
// failed, timed out or interrupted; a degraded interval recovered. Children
// end with their root.
import type { ConditionState, ObjectState } from "../../core/state.ts";
import type { Outcome } from "../attributes.ts";
import * as attr from "../attributes.ts";
import { endInterval, updateChildren } from "./intervals.ts";
import type { Episode, ObjectTraceState, OpenInterval, SpanAttributes } from "./model.ts";
import { reasonEvents } from "./reasons.ts";
import type { Stamp } from "./stamps.ts";
import type { Step } from "./step.ts";
import { warningEvents } from "./warnings.ts";

/** How and when an episode ends. */
export interface EpisodeEnd {
  end: Stamp;
  outcome: Outcome;
  /** status.observedGeneration at the end (generation episodes record it). */
  observedGeneration?: number | undefined;
  /** error.type of a failed outcome (default: the outcome). */
  errorType?: string | undefined;
  /** The ready condition as it ended the episode, for its next status. */
  ready?: ConditionState | undefined;
}

/** Ends `episode` (the open one of `step.state`) and its children. */
export function closeEpisode(step: Step, episode: Episode, ending: EpisodeEnd): void {
  const { end, outcome, errorType } = ending;
  const endMs = Math.max(end.ms, episode.startMs);
  // Children end with their root, and never start after it.
  const clampInto = (interval: OpenInterval): OpenInterval => ({
    ...interval,
    startMs: Math.min(interval.startMs, endMs),
  });
  for (const interval of Object.values(episode.conditions)) {
    endInterval(step, episode, clampInto(interval), { ms: endMs, source: end.source }, {});
  }
  if (episode.phase) {
    endInterval(step, episode, clampInto(episode.phase), { ms: endMs, source: end.source }, {});
  }

  const reasons = reasonEvents(episode.reasons, episode.startMs, endMs);
  const warnings = warningEvents(episode.warnings, episode.startMs, endMs);
  const attributes: SpanAttributes = {
    ...episode.attributes,
    ...reasons.attributes,
    ...warnings.attributes,
    [attr.OUTCOME]: outcome,
    [attr.END_SOURCE]: end.source,
  };
  if (ending.observedGeneration !== undefined && episode.kind === "generation") {
    attributes[attr.OBSERVED_GENERATION] = ending.observedGeneration;
  }
  if (ending.ready) attributes[attr.CONDITION_NEXT_STATUS] = ending.ready.status;
  const failed = outcome === "stalled" || outcome === "failed" || outcome === "timeout";
  if (failed) attributes[attr.ERROR_TYPE] = errorType ?? outcome;
  step.spans.push({
    traceId: episode.traceId,
    spanId: episode.rootSpanId,
    parentSpanId: episode.parentSpanId,
    name: episode.rootName,
    startMs: episode.startMs,
    endMs,
    attributes,
    links: episode.links,
    events: [...reasons.events, ...warnings.events],
    status: failed
      ? { code: "error", message: errorType ?? outcome }
      : outcome === "ready" || outcome === "recovered" || outcome === "succeeded"
        ? { code: "ok" }
        : { code: "unset" },
    ...(episode.traceState !== undefined && { traceState: episode.traceState }),
  });

  step.state.open = undefined;
  if (episode.kind === "generation" && episode.generation !== undefined) {
    settle(step.state, episode.generation, endMs);
  } else if (episode.kind === "operation") {
    step.state.closedOperationAt = episode.operationStartedAt;
  } else {
    step.state.closedDegradedSince = episode.degradedSince;
  }
}

/**
 * Applies the current object to the children, then ends the episode if
 * `ending` says so. Changes seen only now (phases have no server time) are
 * placed no later than the root's end, and nothing new opens as it ends.
 */
export function advance(
  step: Step,
  episode: Episode,
  current: ObjectState,
  previous: ObjectState | undefined,
  ending: EpisodeEnd | undefined,
): void {
  if (!ending) {
    updateChildren(step, episode, current, previous, false);
    return;
  }
  const cappedMs = Math.min(step.nowMs, Math.max(ending.end.ms, episode.startMs));
  updateChildren({ ...step, nowMs: cappedMs }, episode, current, previous, true);
  closeEpisode(step, episode, ending);
}

/** Ends the open episode as `timeout` once its deadline has passed. */
export function expire(step: Step): void {
  const open = step.state.open;
  if (!open) return;
  const deadlineMs = open.startMs + step.settings.timeoutMs;
  if (step.nowMs < deadlineMs) return;
  closeEpisode(step, open, { end: { ms: deadlineMs, source: "deadline" }, outcome: "timeout" });
}

/** Records that `generation` needs no (more) root span. */
export function settle(state: ObjectTraceState, generation: number, atMs: number): void {
  if (state.closedGeneration === undefined || state.closedGeneration <= generation) {
    state.closedGeneration = generation;
    state.closedAtMs = atMs;
  }
}
