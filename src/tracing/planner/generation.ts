// Generation episodes: a `<Kind> generation` root span per (object,
// generation), from the spec change until the object is reconciled,
// superseded, deleted, stalled, failed or timed out.
import type { ObjectState } from "../../core/state.ts";
import * as attr from "../attributes.ts";
import { generationTraceKey, spanIdOf, traceIdOf } from "../ids.ts";
import type { ObjectObservation } from "../state-tracer.ts";
import { planDegraded } from "./degraded.ts";
import { advance, closeEpisode, type EpisodeEnd, settle } from "./episode-end.ts";
import { openPhase } from "./intervals.ts";
import type { Episode, PlannerSettings, SpanLinkPlan } from "./model.ts";
import {
  findCondition,
  isFailedPhase,
  isReconciled,
  isSettled,
  readyTimeMs,
  stalledCondition,
} from "./readiness.ts";
import { generationLink, identityAttributes } from "./span-fields.ts";
import { bumpTime, observed, type Stamp, transitionEnd } from "./stamps.ts";
import type { Step } from "./step.ts";

export function planGeneration(
  step: Step,
  o: ObjectObservation,
  current: ObjectState,
  generation: number,
): void {
  const { settings, nowMs, state } = step;
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
    if (firstSight && o.replay && isSettled(settings, current, generation)) {
      // Listed already settled (a restart or a relist): nothing new to tell.
      settle(state, generation, readyTimeMs(settings, current) ?? nowMs);
    } else if (firstSight && nowMs >= bump.ms + settings.timeoutMs) {
      // Its timeout passed before this process saw it: the trace (if any) is already out.
      settle(state, generation, bump.ms + settings.timeoutMs);
    } else {
      openGeneration(step, o, current, generation, bump);
    }
  }

  const open = state.open;
  if (open?.kind === "generation" && open.generation === generation) {
    advance(step, open, current, o.previous, generationEnd(settings, open, current, generation, nowMs));
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
    links.push(generationLink(settings, current.uid, previous, "previous_generation"));
  }
  const episode: Episode = {
    kind: "generation",
    generation,
    traceKey: key,
    traceId: traceIdOf(key),
    rootSpanId: spanIdOf(key, "root"),
    rootName: `${o.resource.kind} generation`,
    startMs: bump.ms,
    attributes: {
      ...identityAttributes(o.resource, current),
      [attr.K8S_OBJECT_GENERATION]: generation,
      [attr.START_SOURCE]: bump.source,
    },
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
}

/** Whether this observation ends the generation, and how. */
function generationEnd(
  settings: PlannerSettings,
  episode: Episode,
  current: ObjectState,
  generation: number,
  nowMs: number,
): EpisodeEnd | undefined {
  const observedGeneration = current.observedGeneration;
  const stalled = stalledCondition(settings, current);
  if (stalled) {
    const end = transitionEnd(episode.startMs, stalled.lastTransitionTime, nowMs);
    return { end, outcome: "stalled", errorType: stalled.reason || stalled.type, observedGeneration };
  }
  if (isFailedPhase(settings, current)) {
    return { end: observed(nowMs), outcome: "failed", errorType: current.phase, observedGeneration };
  }
  if (isReconciled(settings, current, generation)) {
    const ready = findCondition(current, settings.readyCondition);
    const end = transitionEnd(episode.startMs, ready?.lastTransitionTime, nowMs);
    return { end, outcome: "ready", observedGeneration };
  }
  return undefined;
}
