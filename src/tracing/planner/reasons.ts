// The reason history of a condition interval: the reason (and message) the
// condition gave when it left its desired status stay on the span; each later
// change of reason while the status holds becomes a span event, up to
// `maxReasonChangeEvents` per interval (further changes are only counted), so
// "False/RequestChanged, then False/SecretMismatch" reads as one interval with
// both reasons in order.
import type { ConditionState } from "../../core/state.ts";
import * as attr from "../attributes.ts";
import type { PlannerSettings, ReasonHistory, SpanAttributes, SpanEventPlan } from "./model.ts";

/** The attributes an interval starts with, and its history. */
export function firstReason(condition: ConditionState): {
  attributes: SpanAttributes;
  reasons: ReasonHistory;
} {
  const attributes: SpanAttributes = {};
  if (condition.reason) attributes[attr.CONDITION_REASON] = condition.reason;
  // Messages are cut once, on projection (core/project/project.ts).
  if (condition.message) attributes[attr.CONDITION_MESSAGE] = condition.message;
  return { attributes, reasons: { latest: condition.reason, events: [], dropped: 0 } };
}

/** The history after seeing `condition` at `nowMs`: unchanged unless its reason moved. */
export function noteReason(
  settings: PlannerSettings,
  reasons: ReasonHistory,
  condition: ConditionState,
  nowMs: number,
): ReasonHistory {
  if (condition.reason === reasons.latest) return reasons;
  if (reasons.events.length >= settings.maxReasonChangeEvents) {
    return { latest: condition.reason, events: reasons.events, dropped: reasons.dropped + 1 };
  }
  const attributes: SpanAttributes = { [attr.CONDITION_PREVIOUS_REASON]: reasons.latest };
  if (condition.reason) attributes[attr.CONDITION_REASON] = condition.reason;
  if (condition.message) attributes[attr.CONDITION_MESSAGE] = condition.message;
  const event: SpanEventPlan = { name: attr.REASON_CHANGED, timeMs: nowMs, attributes };
  return { latest: condition.reason, events: [...reasons.events, event], dropped: reasons.dropped };
}

/** The events of a span that lasts [startMs, endMs] (times seen outside it are clamped in), and the count dropped. */
export function reasonEvents(
  reasons: ReasonHistory | undefined,
  startMs: number,
  endMs: number,
): { events: SpanEventPlan[]; attributes: SpanAttributes } {
  if (!reasons) return { events: [], attributes: {} };
  const events = reasons.events.map((event) => ({
    ...event,
    timeMs: Math.min(Math.max(event.timeMs, startMs), endMs),
  }));
  const attributes: SpanAttributes =
    reasons.dropped > 0 ? { [attr.CONDITION_REASON_CHANGES_DROPPED]: reasons.dropped } : {};
  return { events, attributes };
}
