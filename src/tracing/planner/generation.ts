// Generation episodes: a `<Kind> generation` root span per (object,
// generation), from the spec change until the object is reconciled,
// superseded, deleted, stalled, failed or timed out.
import { findCondition, isSettled, judge } from "../../core/judge/readiness.ts";
import type { ObjectState } from "../../core/state.ts";
import * as attr from "../attributes.ts";
import { generationTraceKey, spanIdOf, traceIdOf } from "../ids.ts";
import type { ObjectObservation } from "../state-tracer.ts";
import { planDegraded } from "./degraded.ts";
import { advance, closeEpisode, type EpisodeEnd, settle } from "./episode-end.ts";
import { openPhase } from "./intervals.ts";
import { joinGeneration } from "./joins.ts";
import type { Episode, SpanAttributes, SpanLinkPlan } from "./model.ts";
import { generationLink, identityAttributes } from "./span-fields.ts";
import { bumpTime, conditionStart, observed, type Stamp, transitionEnd } from "./stamps.ts";
import type { Step } from "./step.ts";

export function planGeneration(
  step: Step,
  o: ObjectObservation,
  current: ObjectState,
  generation: number,
): void {
  const { settings, rules, nowMs, state } = step;
  const bump = bumpTime(current, generation, nowMs);

  // A newer generation supersedes whatever is open (a rollout or a flap).
  if (state.open && (state.open.generation ?? 0) < generation) {
    closeEpisode(step, state.open, {
      end: bump,
      outcome: "superseded",
      observedGeneration: current.observedGeneration,
    });
  }

  if (!state.open && (state.closedGeneration === undefined || state.closedGeneration < generation)) {
    const firstSight = o.previous === undefined;
    if (firstSight && o.replay && isSettled(current, rules, generation)) {
      // Listed already settled (a restart or a relist): nothing new to tell.
      const ready = rules.readyCondition ? findCondition(current, rules.readyCondition) : undefined;
      settle(state, generation, ready ? conditionStart(ready, nowMs).ms : nowMs);
    } else if (firstSight && nowMs >= bump.ms + settings.timeoutMs) {
      // Its timeout passed before this process saw it: the trace (if any) is already out.
      settle(state, generation, bump.ms + settings.timeoutMs);
    } else {
      openGeneration(step, o, current, generation, bump);
    }
  }

  const open = state.open;
  if (open?.kind === "generation" && open.generation === generation) {
    if (!open.childEmitted && o.joins && open.attributes[attr.PARENT] !== "request") rejoin(step, open, o);
    advance(step, open, current, o.previous, generationEnd(step, open, current, generation));
  } else if (open?.kind !== "generation" && state.closedGeneration === generation) {
    planDegraded(step, o, current, "generation");
  }
}

function openGeneration(
  step: Step,
  o: ObjectObservation,
  current: ObjectState,
  generation: number,
  bump: Stamp,
): void {
  const { settings, state } = step;
  const key = generationTraceKey(settings.cluster, current.uid, generation);
  const links: SpanLinkPlan[] = [];
  // The previous generation as seen, else the one before this: the same link after a restart.
  const previous =
    o.previous?.generation !== undefined && o.previous.generation < generation
      ? o.previous.generation
      : generation > 1
        ? generation - 1
        : undefined;
  if (previous !== undefined) {
    links.push(generationLink(settings, state, previous, "previous_generation"));
  }
  const join = joinGeneration(step, o.joins, bump.ms);
  links.push(...join.links);
  const attributes: SpanAttributes = {
    ...identityAttributes(o.resource, current),
    [attr.K8S_OBJECT_GENERATION]: generation,
    [attr.START_SOURCE]: bump.source,
  };
  if (join.parent) attributes[attr.PARENT] = join.parent;
  const episode: Episode = {
    kind: "generation",
    generation,
    traceKey: key,
    traceId: join.traceId ?? traceIdOf(key),
    rootSpanId: spanIdOf(key, "root"),
    rootName: `${o.resource.kind} generation`,
    ...(join.parentSpanId !== undefined && { parentSpanId: join.parentSpanId }),
    ...(join.traceState !== undefined && { traceState: join.traceState }),
    startMs: bump.ms,
    attributes,
    links,
    conditions: {},
    phase: undefined,
  };
  // A phase already held before the spec change was seen is held from the start of the generation.
  const heldPhase = o.previous?.phase;
  if (heldPhase !== undefined && heldPhase === current.phase) {
    episode.phase = openPhase(episode, heldPhase, { ms: episode.startMs, source: bump.source }, undefined);
  }
  state.open = episode;
  state.tracedGeneration = generation;
  state.tracedTraceId = join.traceId;
  if (join.requestContext !== undefined) state.requestContext = join.requestContext;
}

/**
 * Joins the open root again to the owner or source known now, while none of
 * its spans is out: a child listed or watched before its parent (watches of
 * different kinds are independent streams, and a restart lists them in any
 * order) still lands under the parent's root. The request context, decided
 * when the root opened, stays.
 */
function rejoin(step: Step, episode: Episode, o: ObjectObservation): void {
  const joins = o.joins;
  if (!joins || (!joins.owner && !joins.source)) return;
  const join = joinGeneration(step, { ...joins, traceContext: undefined }, episode.startMs);
  const kept = episode.links.filter((l) => {
    const reason = l.attributes[attr.LINK_REASON];
    return reason !== "owner" && reason !== "source";
  });
  const own = traceIdOf(episode.traceKey);
  episode.links = [...kept, ...join.links];
  episode.traceId = join.traceId ?? own;
  const attributes = { ...episode.attributes };
  if (join.parent) attributes[attr.PARENT] = join.parent;
  else delete attributes[attr.PARENT];
  episode.attributes = attributes;
  if (join.parentSpanId !== undefined) episode.parentSpanId = join.parentSpanId;
  else delete episode.parentSpanId;
  step.state.tracedTraceId = join.traceId;
}

/**
 * Whether this observation ends the generation, and how: the readiness
 * model's judgement (core/judge/readiness.ts) for this generation. A ready
 * condition away from its desired status for longer than failedAfter makes
 * cr_status Failed but does not end the root: it may still recover, and the
 * root then shows how long that took (or ends at the timeout).
 */
function generationEnd(
  step: Step,
  episode: Episode,
  current: ObjectState,
  generation: number,
): EpisodeEnd | undefined {
  const { rules, nowMs } = step;
  const observedGeneration = current.observedGeneration;
  const verdict = judge(current, rules, nowMs / 1000, generation);
  const condition = verdict.condition;
  if (verdict.by === "stalled" && condition) {
    const end = transitionEnd(episode.startMs, condition, nowMs);
    return { end, outcome: "stalled", errorType: condition.reason || condition.type, observedGeneration };
  }
  if (verdict.result === "Failed" && verdict.by === "phase") {
    return { end: observed(nowMs), outcome: "failed", errorType: current.phase, observedGeneration };
  }
  if (verdict.result === "Failed" && verdict.by === "cel") {
    return { end: observed(nowMs), outcome: "failed", errorType: "readiness.cel", observedGeneration };
  }
  if (verdict.result === "Failed" && verdict.by === "condition" && condition) {
    const end = transitionEnd(episode.startMs, condition, nowMs);
    return { end, outcome: "failed", errorType: condition.reason || condition.type, observedGeneration };
  }
  if (verdict.result === "Current") {
    const end = transitionEnd(episode.startMs, condition, nowMs);
    return { end, outcome: "ready", observedGeneration };
  }
  return undefined;
}
