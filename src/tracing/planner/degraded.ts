// Degraded episodes: the ready condition away from its desired status without
// a spec change (a flap), as a `<Kind> degraded` root span; on kinds without a
// status subresource, every such interval (they are traced by conditions only).
import { desiredStatus, findCondition } from "../../core/judge/readiness.ts";
import type { ConditionState, ObjectState } from "../../core/state.ts";
import * as attr from "../attributes.ts";
import { degradedTraceKey, spanIdOf, traceIdOf } from "../ids.ts";
import type { ObjectObservation } from "../state-tracer.ts";
import { advance } from "./episode-end.ts";
import { openPhase, updateChildren } from "./intervals.ts";
import { joinDegraded } from "./joins.ts";
import type { Episode, SpanAttributes, SpanLinkPlan } from "./model.ts";
import { firstReason, noteReason } from "./reasons.ts";
import { generationLink, identityAttributes } from "./span-fields.ts";
import { conditionStart, observed, rfc3339, type Stamp, sinceKey, transitionEnd } from "./stamps.ts";
import type { Step } from "./step.ts";

export function planDegraded(
  step: Step,
  o: ObjectObservation,
  current: ObjectState,
  mode: "generation" | "conditions",
): void {
  const { settings, rules, nowMs, state } = step;
  // A kind without a readiness condition has no degraded episodes.
  const readyType = rules.readyCondition;
  const ready = readyType === undefined ? undefined : findCondition(current, readyType);
  const want = desiredStatus(rules, readyType ?? "");

  const open = state.open;
  if (open?.kind === "degraded") {
    if (!ready || ready.status === want || sinceKey(ready, nowMs) !== open.degradedSince) {
      const end = ready ? transitionEnd(open.startMs, ready, nowMs) : observed(nowMs);
      advance(step, open, current, o.previous, { end, outcome: "recovered", ready });
    } else {
      const reasons = open.reasons && noteReason(settings, open.reasons, ready, nowMs);
      state.open = { ...open, reasons };
      advance(step, state.open, current, o.previous, undefined);
      return;
    }
  }
  if (state.open || !ready || ready.status === want) return;

  const since = sinceKey(ready, nowMs);
  if (since === state.closedDegradedSince) return;
  const start = conditionStart(ready, nowMs);
  if (mode === "generation") {
    // Only a change seen after the generation settled is a flap; a ready
    // condition that never recovered is part of the ended generation.
    const previousReady = o.previous ? findCondition(o.previous, ready.type) : undefined;
    const wasReady = previousReady?.status === want;
    const changedSince =
      state.closedAtMs !== undefined && start.source === "condition" && start.ms > state.closedAtMs;
    if (!wasReady && !changedSince) return;
  } else if (o.previous === undefined && nowMs >= start.ms + settings.timeoutMs) {
    state.closedDegradedSince = since;
    return;
  }
  openDegraded(step, o, current, { ready, since, start, mode });
}

/** Opens the degraded episode of `ready`'s interval (keyed by `since`, starting at `start`) with its children. */
function openDegraded(
  step: Step,
  o: ObjectObservation,
  current: ObjectState,
  interval: { ready: ConditionState; since: string; start: Stamp; mode: "generation" | "conditions" },
): void {
  const { settings, state } = step;
  const { ready, since, start, mode } = interval;
  const key = degradedTraceKey(settings.cluster, current.uid, ready.type, since);
  const first = firstReason(ready);
  const attributes: SpanAttributes = {
    ...identityAttributes(o.resource, current),
    [attr.START_SOURCE]: start.source,
    [attr.CONDITION_TYPE]: ready.type,
    [attr.CONDITION_STATUS]: ready.status,
    ...first.attributes,
  };
  const links: SpanLinkPlan[] = [];
  if (mode === "generation" && current.generation !== undefined) {
    attributes[attr.K8S_OBJECT_GENERATION] = current.generation;
    links.push(generationLink(settings, state, current.generation, "generation"));
  }
  links.push(...joinDegraded(step, o.joins, start.ms));
  if (ready.lastTransitionTime !== undefined) {
    attributes[attr.CONDITION_LAST_TRANSITION_TIME] = rfc3339(ready.lastTransitionTime);
  }
  const episode: Episode = {
    kind: "degraded",
    generation: mode === "generation" ? current.generation : undefined,
    traceKey: key,
    traceId: traceIdOf(key),
    rootSpanId: spanIdOf(key, "root"),
    rootName: `${o.resource.kind} degraded`,
    startMs: start.ms,
    attributes,
    links,
    conditions: {},
    phase: undefined,
    degradedSince: since,
    reasons: first.reasons,
  };
  const heldPhase = o.previous?.phase;
  if (heldPhase !== undefined && heldPhase === current.phase) {
    episode.phase = openPhase(episode, heldPhase, { ms: episode.startMs, source: start.source }, undefined);
  }
  state.open = episode;
  updateChildren(step, episode, current, o.previous, false);
}
