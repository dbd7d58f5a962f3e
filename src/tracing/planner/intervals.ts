// The children of an open episode: an interval span for every time a tracked
// condition spent away from its desired status, and one for every phase held.
import { desiredStatus } from "../../core/judge/readiness.ts";
import type { ConditionState, ObjectState } from "../../core/state.ts";
import * as attr from "../attributes.ts";
import { spanIdOf } from "../ids.ts";
import type { Episode, OpenInterval, PlannerSettings, SpanAttributes } from "./model.ts";
import { firstReason, noteReason, reasonEvents } from "./reasons.ts";
import { identityOf } from "./span-fields.ts";
import { conditionStart, observed, rfc3339, type Stamp, sinceLabel, transitionEnd } from "./stamps.ts";
import type { Step } from "./step.ts";

/**
 * Opens, ends and refreshes the child intervals of an open episode from the
 * current object; `ending`: the episode ends with this observation, so only end.
 */
export function updateChildren(
  step: Step,
  episode: Episode,
  current: ObjectState,
  previous: ObjectState | undefined,
  ending: boolean,
): void {
  updateConditions(step, episode, current, ending);
  const { nowMs } = step;
  const phase = current.phase;
  if (episode.phase && episode.phase.key !== phase) {
    const extra: SpanAttributes = phase === undefined ? {} : { [attr.NEXT_PHASE]: phase };
    endInterval(step, episode, episode.phase, observed(nowMs), extra);
    const left = episode.phase.key;
    episode.phase = undefined;
    if (phase !== undefined && !ending) episode.phase = openPhase(episode, phase, observed(nowMs), left);
  } else if (phase !== undefined && !episode.phase && !ending) {
    const before = previous?.phase !== phase ? previous?.phase : undefined;
    episode.phase = openPhase(episode, phase, observed(nowMs), before);
  }
}

function updateConditions(step: Step, episode: Episode, current: ObjectState, ending: boolean): void {
  const { settings, rules, nowMs } = step;
  const seen = new Set<string>();
  for (const condition of current.conditions) {
    if (!isTracked(settings, rules.readyCondition, episode, condition.type)) continue;
    seen.add(condition.type);
    const open = episode.conditions[condition.type];
    if (open) {
      const moved =
        condition.status !== open.status ||
        (condition.since !== undefined && condition.since !== open.sinceSeconds);
      if (!moved) {
        episode.conditions[condition.type] = refreshCondition(settings, open, condition, nowMs);
        continue;
      }
      const end = transitionEnd(open.startMs, condition, nowMs);
      endInterval(step, episode, open, end, { [attr.CONDITION_NEXT_STATUS]: condition.status });
      delete episode.conditions[condition.type];
    }
    if (condition.status !== desiredStatus(rules, condition.type) && !ending) {
      episode.conditions[condition.type] = openCondition(step, episode, condition);
    }
  }
  for (const [type, open] of Object.entries(episode.conditions)) {
    if (seen.has(type)) continue;
    endInterval(step, episode, open, observed(nowMs), {});
    delete episode.conditions[type];
  }
}

function isTracked(
  settings: PlannerSettings,
  readyCondition: string | undefined,
  episode: Episode,
  type: string,
): boolean {
  // A degraded episode's root span is the ready condition's interval already.
  if (episode.kind === "degraded" && type === readyCondition) return false;
  if (type === readyCondition) return true;
  return settings.trackedConditions === undefined || settings.trackedConditions.includes(type);
}

function openCondition(step: Step, episode: Episode, condition: ConditionState): OpenInterval {
  const start = conditionStart(condition, step.nowMs);
  const role = `cond=${condition.type}|since=${sinceLabel(condition, step.nowMs)}|status=${condition.status}`;
  const first = firstReason(condition);
  const attributes: SpanAttributes = {
    [attr.CONDITION_TYPE]: condition.type,
    [attr.CONDITION_STATUS]: condition.status,
    [attr.START_SOURCE]: start.source,
    ...first.attributes,
  };
  if (condition.lastTransitionTime !== undefined)
    attributes[attr.CONDITION_LAST_TRANSITION_TIME] = rfc3339(condition.lastTransitionTime);
  if (condition.observedGeneration !== undefined) {
    attributes[attr.CONDITION_OBSERVED_GENERATION] = condition.observedGeneration;
  }
  return {
    spanId: spanIdOf(episode.traceKey, role),
    name: `condition ${condition.type}`,
    key: condition.type,
    startMs: Math.max(start.ms, episode.startMs),
    status: condition.status,
    sinceSeconds: condition.since,
    attributes,
    reasons: first.reasons,
  };
}

/** The same interval seen again: a new reason is an event; observedGeneration is the latest seen. */
function refreshCondition(
  settings: PlannerSettings,
  interval: OpenInterval,
  condition: ConditionState,
  nowMs: number,
): OpenInterval {
  const reasons = interval.reasons && noteReason(settings, interval.reasons, condition, nowMs);
  if (condition.observedGeneration === undefined && reasons === interval.reasons) return interval;
  const attributes: SpanAttributes = { ...interval.attributes };
  if (condition.observedGeneration !== undefined) {
    attributes[attr.CONDITION_OBSERVED_GENERATION] = condition.observedGeneration;
  }
  return { ...interval, attributes, reasons };
}

export function openPhase(
  episode: Episode,
  phase: string,
  start: Stamp,
  previousPhase: string | undefined,
): OpenInterval {
  const startMs = Math.max(start.ms, episode.startMs);
  const attributes: SpanAttributes = { [attr.PHASE]: phase, [attr.START_SOURCE]: start.source };
  if (previousPhase !== undefined) attributes[attr.PREVIOUS_PHASE] = previousPhase;
  return {
    spanId: spanIdOf(episode.traceKey, `phase=${phase}|since=${startMs}`),
    name: `phase ${phase}`,
    key: phase,
    startMs,
    attributes,
  };
}

export function endInterval(
  step: Step,
  episode: Episode,
  interval: OpenInterval,
  end: Stamp,
  extra: SpanAttributes,
): void {
  const endMs = Math.max(end.ms, interval.startMs);
  const reasons = reasonEvents(interval.reasons, interval.startMs, endMs);
  episode.childEmitted = true;
  step.spans.push({
    traceId: episode.traceId,
    spanId: interval.spanId,
    parentSpanId: episode.rootSpanId,
    ...(episode.traceState !== undefined && { traceState: episode.traceState }),
    name: interval.name,
    startMs: interval.startMs,
    endMs,
    attributes: {
      ...identityOf(episode),
      ...interval.attributes,
      ...reasons.attributes,
      ...extra,
      [attr.END_SOURCE]: end.source,
    },
    links: [],
    events: reasons.events,
    status: { code: "unset" },
  });
}
