// Kubernetes Warning events as span events of the object's open root: each
// counted update of a Warning event about the object (core/events/
// warning-event.ts decides what is counted) while a generation or degraded
// root is open becomes a `k8s.event` event at the event's own time, up to
// `maxWarningEvents` per root; later ones are only counted in
// `k8s.event.dropped`. Pure and plain-value like the rest of the planner: the
// episode carries the bounded list, the root's plan carries the events.
//
// An event with no open root, or from before the root began (an earlier
// episode's, seen late), is ignored; one whose second is after the root's end
// is dropped when the root ends (it came after the root closed). Events are
// recorded only while this process runs: a root resumed after a restart has
// none from before it (the watch counts no history).
import * as attr from "../attributes.ts";
import type {
  ObjectTraceState,
  PlannerSettings,
  SpanAttributes,
  SpanEventPlan,
  WarningHistory,
  WarningObservation,
} from "./model.ts";

const second = (ms: number): number => Math.floor(ms / 1000);

/**
 * The state after a Warning event's update was counted at `nowMs`: the open
 * root records it (or counts it past the bound); the same state when nothing
 * is open, nothing new was counted, or the event is older than the root.
 */
export function planWarning(
  settings: PlannerSettings,
  state: ObjectTraceState,
  warning: WarningObservation,
  nowMs: number,
): ObjectTraceState {
  const open = state.open;
  if (!open || !(warning.count > 0)) return state;
  const timeMs = warning.atMs ?? nowMs;
  if (second(timeMs) < second(open.startMs)) return state;
  const history: WarningHistory = open.warnings ?? { events: [], dropped: 0 };
  let warnings: WarningHistory;
  if (history.events.length >= settings.maxWarningEvents) {
    warnings = { events: history.events, dropped: history.dropped + 1 };
  } else {
    const attributes: SpanAttributes = {
      [attr.K8S_EVENT_TYPE]: "Warning",
      [attr.K8S_EVENT_REASON]: warning.reason,
      [attr.K8S_EVENT_MESSAGE]: warning.message,
      [attr.K8S_EVENT_COUNT]: warning.count,
    };
    const event: SpanEventPlan = { name: attr.K8S_EVENT, timeMs, attributes };
    warnings = { events: [...history.events, event], dropped: history.dropped };
  }
  return { ...state, open: { ...open, warnings } };
}

/**
 * The `k8s.event` events of a root that lasts [startMs, endMs]: those in a
 * second after the end are left out (they came after it closed), the rest
 * clamped in; and the root's dropped count.
 */
export function warningEvents(
  warnings: WarningHistory | undefined,
  startMs: number,
  endMs: number,
): { events: SpanEventPlan[]; attributes: SpanAttributes } {
  if (!warnings) return { events: [], attributes: {} };
  const events = warnings.events
    .filter((event) => second(event.timeMs) <= second(endMs))
    .map((event) => ({ ...event, timeMs: Math.min(Math.max(event.timeMs, startMs), endMs) }));
  const attributes: SpanAttributes =
    warnings.dropped > 0 ? { [attr.K8S_EVENT_DROPPED]: warnings.dropped } : {};
  return { events, attributes };
}
