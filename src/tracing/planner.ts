// The span planner: from one observation of an object (and what tracing
// remembers about it) to the spans to emit now, fully decided — ids, times,
// attributes, links, status. Pure: no clock, no SDK, no I/O; the caller owns
// the state and passes the time in.
//
// Span model (docs/tracing.md):
// - a `<Kind> generation` root span per (object, generation), from the spec
//   change until the object is reconciled, superseded, deleted, stalled,
//   failed or timed out;
// - children `condition <Type>` for every interval a tracked condition spent
//   away from its desired status, and `phase <Phase>` for every phase held;
// - a `<Kind> degraded` root span for the ready condition leaving its desired
//   status with no spec change (a flap), linked to the generation it happened
//   in. Kinds without a status subresource get only these.
import type { ConditionState, ObjectState, ResourceIdentity } from "../core/state.ts";
import type { LinkReason, Outcome, TimeSource } from "./attributes.ts";
import * as attr from "./attributes.ts";
import { degradedTraceKey, generationTraceKey, spanIdOf, traceIdOf } from "./ids.ts";
import type {
  Episode,
  ObjectTraceState,
  OpenInterval,
  PlannerSettings,
  SpanAttributes,
  SpanLinkPlan,
  SpanPlan,
} from "./model.ts";
import type { ObjectObservation } from "./observation.ts";

export interface PlanResult {
  /** Undefined when there is nothing left to remember (the object is gone). */
  state: ObjectTraceState | undefined;
  spans: SpanPlan[];
}

interface Stamp {
  ms: number;
  source: TimeSource;
}

/** Everything one planning step needs, plus the spans it has decided so far. */
interface Step {
  settings: PlannerSettings;
  now: number;
  spans: SpanPlan[];
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

/** Plans the spans for one observation. */
export function planObservation(
  settings: PlannerSettings,
  state: ObjectTraceState | undefined,
  o: ObjectObservation,
): PlanResult {
  const uid = o.current?.uid ?? o.previous?.uid ?? state?.uid;
  if (uid === undefined) return { state, spans: [] };
  const step: Step = { settings, now: o.now, spans: [] };
  const st = state ? copyState(state) : emptyTraceState(uid);
  const current = o.current;

  if (!current) {
    if (st.open) {
      const observed = o.previous?.observedGeneration;
      closeEpisode(step, st, st.open, { ms: o.now, source: "observed" }, "deleted", observed);
    }
    return { state: undefined, spans: step.spans };
  }

  if (o.statusSubresource && current.generation !== undefined) {
    planGeneration(step, st, o, current, current.generation);
  } else {
    planDegraded(step, st, o, current, "conditions");
  }
  expire(step, st);
  return { state: st, spans: step.spans };
}

/** Plans what the passage of time alone ends: open root spans past their timeout. */
export function planTick(settings: PlannerSettings, state: ObjectTraceState, now: number): PlanResult {
  if (!state.open || now < state.open.startMs + settings.timeoutMs) return { state, spans: [] };
  const step: Step = { settings, now, spans: [] };
  const st = copyState(state);
  expire(step, st);
  return { state: st, spans: step.spans };
}

/**
 * Ends an open root span (and its children) as `interrupted`: for a shutdown
 * that should not leave the work to a restarted process.
 */
export function planInterrupt(settings: PlannerSettings, state: ObjectTraceState, now: number): PlanResult {
  const st = copyState(state);
  if (!st.open) return { state, spans: [] };
  const step: Step = { settings, now, spans: [] };
  closeEpisode(step, st, st.open, observed(now), "interrupted", undefined);
  return { state: st, spans: step.spans };
}

/** The desired status of a condition type. */
export function desiredStatus(settings: PlannerSettings, type: string): ConditionState["status"] {
  return settings.desiredStatus[type] ?? (settings.negativePolarity.includes(type) ? "False" : "True");
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

// ---------------------------------------------------------------------------
// Generation episodes

function planGeneration(
  step: Step,
  st: ObjectTraceState,
  o: ObjectObservation,
  current: ObjectState,
  generation: number,
): void {
  const { settings, now } = step;
  const bump = bumpTime(current, generation, now);

  // A newer generation supersedes whatever is open (a rollout or a flap).
  if (st.open && (st.open.generation ?? 0) < generation) {
    closeEpisode(step, st, st.open, bump, "superseded", current.observedGeneration);
  }

  if (!st.open && (st.closedGeneration === undefined || st.closedGeneration < generation)) {
    const firstSight = o.previous === undefined;
    const settled =
      isReconciled(settings, current, generation) ||
      stalledCondition(settings, current) !== undefined ||
      isFailedPhase(settings, current);
    if (firstSight && o.replay && settled) {
      // Listed already settled (a restart or a relist): nothing new to tell.
      settle(st, generation, readyTime(settings, current) ?? now);
    } else if (firstSight && now >= bump.ms + settings.timeoutMs) {
      // Its timeout passed before this process saw it: the trace (if any) is already out.
      settle(st, generation, bump.ms + settings.timeoutMs);
    } else {
      openGeneration(step, st, o, current, generation, bump);
    }
  }

  const open = st.open;
  if (open?.kind === "generation" && open.generation === generation) {
    advance(step, st, open, current, o.previous, generationFinish(settings, open, current, generation, now));
  } else if (open?.kind !== "generation" && st.closedGeneration === generation) {
    planDegraded(step, st, o, current, "generation");
  }
}

function openGeneration(
  step: Step,
  st: ObjectTraceState,
  o: ObjectObservation,
  current: ObjectState,
  generation: number,
  bump: Stamp,
): void {
  const { settings } = step;
  const key = generationTraceKey(settings.cluster, current.uid, generation);
  const identity = identityAttributes(o.resource, current);
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
    attributes: { ...identity, [attr.K8S_OBJECT_GENERATION]: generation, [attr.START_SOURCE]: bump.source },
    links,
    conditions: {},
    phase: undefined,
  };
  // A phase already held before the spec change was seen is held from the start of the generation.
  const heldPhase = o.previous?.phase;
  if (heldPhase !== undefined && heldPhase === current.phase) {
    episode.phase = openPhase(episode, heldPhase, { ms: episode.startMs, source: bump.source }, undefined);
  }
  st.open = episode;
  st.tracedGeneration = generation;
}

interface Finish {
  end: Stamp;
  outcome: Outcome;
  errorType?: string;
}

/** Whether this observation ends the generation, and how. */
function generationFinish(
  settings: PlannerSettings,
  episode: Episode,
  current: ObjectState,
  generation: number,
  now: number,
): Finish | undefined {
  const stalled = stalledCondition(settings, current);
  if (stalled) {
    const end = transitionEnd(episode.startMs, stalled.lastTransitionTime, now);
    return { end, outcome: "stalled", errorType: stalled.reason || stalled.type };
  }
  if (isFailedPhase(settings, current)) {
    return { end: observed(now), outcome: "failed", errorType: current.phase ?? "Failed" };
  }
  if (isReconciled(settings, current, generation)) {
    const ready = findCondition(current, settings.readyCondition);
    return { end: transitionEnd(episode.startMs, ready?.lastTransitionTime, now), outcome: "ready" };
  }
  return undefined;
}

/**
 * Applies the current object to the children, then ends the episode if
 * `finish` says so. Changes seen only now (phases have no server time) are
 * placed no later than the root's end, and nothing new opens as it ends.
 */
function advance(
  step: Step,
  st: ObjectTraceState,
  episode: Episode,
  current: ObjectState,
  previous: ObjectState | undefined,
  finish: (Finish & { ready?: ConditionState }) | undefined,
): void {
  if (!finish) {
    updateEpisode(step, episode, current, previous, false);
    return;
  }
  const capped: Step = { ...step, now: Math.min(step.now, Math.max(finish.end.ms, episode.startMs)) };
  updateEpisode(capped, episode, current, previous, true);
  closeEpisode(
    step,
    st,
    episode,
    finish.end,
    finish.outcome,
    current.observedGeneration,
    finish.errorType,
    finish.ready,
  );
}

// ---------------------------------------------------------------------------
// Degraded episodes: the ready condition away from its desired status without a spec change

function planDegraded(
  step: Step,
  st: ObjectTraceState,
  o: ObjectObservation,
  current: ObjectState,
  mode: "generation" | "conditions",
): void {
  const { settings, now } = step;
  const ready = findCondition(current, settings.readyCondition);
  const want = desiredStatus(settings, settings.readyCondition);

  const open = st.open;
  if (open?.kind === "degraded") {
    if (!ready || ready.status === want || sinceKey(ready, now) !== open.degradedSince) {
      const end = ready ? transitionEnd(open.startMs, ready.lastTransitionTime, now) : observed(now);
      const finish = ready
        ? { end, outcome: "recovered" as const, ready }
        : { end, outcome: "recovered" as const };
      advance(step, st, open, current, o.previous, finish);
    } else {
      st.open = { ...open, attributes: withReadyDetails(settings, open.attributes, ready) };
      advance(step, st, st.open, current, o.previous, undefined);
      return;
    }
  }
  if (st.open || !ready || ready.status === want) return;

  const since = sinceKey(ready, now);
  if (since === st.closedDegradedSince) return;
  const start: Stamp =
    ready.lastTransitionTime !== undefined
      ? { ms: ready.lastTransitionTime * 1000, source: "condition" }
      : observed(now);
  if (mode === "generation") {
    // Only a change seen after the generation settled is a flap; a ready
    // condition that never recovered is part of the ended generation.
    const previousReady = o.previous ? findCondition(o.previous, settings.readyCondition) : undefined;
    const wasReady = previousReady?.status === want;
    const changedSince =
      st.closedAtMs !== undefined && start.source === "condition" && start.ms > st.closedAtMs;
    if (!wasReady && !changedSince) return;
  } else if (o.previous === undefined && now >= start.ms + settings.timeoutMs) {
    st.closedDegradedSince = since;
    return;
  }

  const key = degradedTraceKey(settings.cluster, current.uid, ready.type, since);
  const identity = identityAttributes(o.resource, current);
  const attributes: SpanAttributes = {
    ...identity,
    [attr.START_SOURCE]: start.source,
    [attr.CONDITION_TYPE]: ready.type,
    [attr.CONDITION_STATUS]: ready.status,
  };
  const links: SpanLinkPlan[] = [];
  if (mode === "generation" && current.generation !== undefined) {
    attributes[attr.K8S_OBJECT_GENERATION] = current.generation;
    links.push(generationLink(settings, current.uid, current.generation, "generation"));
  }
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
    attributes: withReadyDetails(settings, attributes, ready),
    links,
    conditions: {},
    phase: undefined,
    degradedSince: since,
  };
  const heldPhase = o.previous?.phase;
  if (heldPhase !== undefined && heldPhase === current.phase) {
    episode.phase = openPhase(episode, heldPhase, { ms: episode.startMs, source: start.source }, undefined);
  }
  st.open = episode;
  updateEpisode(step, episode, current, o.previous, false);
}

// ---------------------------------------------------------------------------
// Children: condition intervals and phases

/**
 * Opens, ends and refreshes the child intervals of an open episode from the
 * current object; `ending`: the episode ends with this observation, so only end.
 */
function updateEpisode(
  step: Step,
  episode: Episode,
  current: ObjectState,
  previous: ObjectState | undefined,
  ending: boolean,
): void {
  const { settings, now } = step;
  const seen = new Set<string>();
  for (const condition of current.conditions) {
    if (!isTracked(settings, episode, condition.type)) continue;
    seen.add(condition.type);
    const want = desiredStatus(settings, condition.type);
    const open = episode.conditions[condition.type];
    if (open) {
      const moved =
        condition.status !== open.status ||
        (condition.lastTransitionTime !== undefined && condition.lastTransitionTime !== open.since);
      if (!moved) {
        episode.conditions[condition.type] = withConditionDetails(settings, open, condition);
        continue;
      }
      const end = transitionEnd(open.startMs, condition.lastTransitionTime, now);
      endInterval(step, episode, open, end, { [attr.CONDITION_NEXT_STATUS]: condition.status });
      delete episode.conditions[condition.type];
    }
    if (condition.status !== want && !ending) {
      episode.conditions[condition.type] = openCondition(step, episode, condition);
    }
  }
  for (const [type, open] of Object.entries(episode.conditions)) {
    if (seen.has(type)) continue;
    endInterval(step, episode, open, observed(now), {});
    delete episode.conditions[type];
  }

  const phase = current.phase;
  if (episode.phase && episode.phase.key !== phase) {
    const extra: SpanAttributes = phase === undefined ? {} : { [attr.NEXT_PHASE]: phase };
    endInterval(step, episode, episode.phase, observed(now), extra);
    const left = episode.phase.key;
    episode.phase = undefined;
    if (phase !== undefined && !ending) episode.phase = openPhase(episode, phase, observed(now), left);
  } else if (phase !== undefined && !episode.phase && !ending) {
    const before = previous?.phase !== phase ? previous?.phase : undefined;
    episode.phase = openPhase(episode, phase, observed(now), before);
  }
}

function isTracked(settings: PlannerSettings, episode: Episode, type: string): boolean {
  // A degraded episode's root span is the ready condition's interval already.
  if (episode.kind === "degraded" && type === settings.readyCondition) return false;
  if (type === settings.readyCondition) return true;
  return settings.trackedConditions === undefined || settings.trackedConditions.includes(type);
}

function openCondition(step: Step, episode: Episode, condition: ConditionState): OpenInterval {
  const since = condition.lastTransitionTime;
  const start: Stamp = since !== undefined ? { ms: since * 1000, source: "condition" } : observed(step.now);
  const role = `cond=${condition.type}|since=${since ?? `observed:${step.now}`}|status=${condition.status}`;
  const attributes: SpanAttributes = {
    [attr.CONDITION_TYPE]: condition.type,
    [attr.CONDITION_STATUS]: condition.status,
    [attr.START_SOURCE]: start.source,
  };
  if (since !== undefined) attributes[attr.CONDITION_LAST_TRANSITION_TIME] = rfc3339(since);
  const interval: OpenInterval = {
    spanId: spanIdOf(episode.traceKey, role),
    name: `condition ${condition.type}`,
    key: condition.type,
    startMs: Math.max(start.ms, episode.startMs),
    status: condition.status,
    since,
    attributes,
  };
  return withConditionDetails(step.settings, interval, condition);
}

/** A degraded root carries why the ready condition is away: the latest reason and message seen. */
function withReadyDetails(
  settings: PlannerSettings,
  attributes: SpanAttributes,
  ready: ConditionState,
): SpanAttributes {
  const result: SpanAttributes = { ...attributes };
  if (ready.reason) result[attr.CONDITION_REASON] = ready.reason;
  if (ready.message) result[attr.CONDITION_MESSAGE] = truncate(ready.message, settings.messageLimit);
  return result;
}

/** Reason, message and observedGeneration: the latest seen while the interval lasts. */
function withConditionDetails(
  settings: PlannerSettings,
  interval: OpenInterval,
  condition: ConditionState,
): OpenInterval {
  const attributes: SpanAttributes = { ...interval.attributes };
  if (condition.reason) attributes[attr.CONDITION_REASON] = condition.reason;
  else delete attributes[attr.CONDITION_REASON];
  if (condition.message)
    attributes[attr.CONDITION_MESSAGE] = truncate(condition.message, settings.messageLimit);
  else delete attributes[attr.CONDITION_MESSAGE];
  if (condition.observedGeneration !== undefined) {
    attributes[attr.CONDITION_OBSERVED_GENERATION] = condition.observedGeneration;
  }
  return { ...interval, attributes };
}

function openPhase(
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

function endInterval(
  step: Step,
  episode: Episode,
  interval: OpenInterval,
  end: Stamp,
  extra: SpanAttributes,
): void {
  step.spans.push({
    traceId: episode.traceId,
    spanId: interval.spanId,
    parentSpanId: episode.rootSpanId,
    name: interval.name,
    startMs: interval.startMs,
    endMs: Math.max(end.ms, interval.startMs),
    attributes: { ...identityOf(episode), ...interval.attributes, ...extra, [attr.END_SOURCE]: end.source },
    links: [],
    status: { code: "unset" },
  });
}

// ---------------------------------------------------------------------------
// Ending episodes

function closeEpisode(
  step: Step,
  st: ObjectTraceState,
  episode: Episode,
  end: Stamp,
  outcome: Outcome,
  observedGeneration: number | undefined,
  errorType?: string,
  ready?: ConditionState,
): void {
  const endMs = Math.max(end.ms, episode.startMs);
  // Children end with their root, and never start after it.
  const clampInto = (interval: OpenInterval): OpenInterval => ({
    ...interval,
    startMs: Math.min(interval.startMs, endMs),
  });
  for (const interval of Object.values(episode.conditions)) {
    endInterval(step, episode, clampInto(interval), { ms: endMs, source: end.source }, {});
  }
  if (episode.phase)
    endInterval(step, episode, clampInto(episode.phase), { ms: endMs, source: end.source }, {});

  const attributes: SpanAttributes = {
    ...episode.attributes,
    [attr.OUTCOME]: outcome,
    [attr.END_SOURCE]: end.source,
  };
  if (observedGeneration !== undefined && episode.kind === "generation") {
    attributes[attr.OBSERVED_GENERATION] = observedGeneration;
  }
  if (ready) attributes[attr.CONDITION_NEXT_STATUS] = ready.status;
  const failed = outcome === "stalled" || outcome === "failed" || outcome === "timeout";
  if (failed) attributes[attr.ERROR_TYPE] = errorType ?? outcome;
  step.spans.push({
    traceId: episode.traceId,
    spanId: episode.rootSpanId,
    parentSpanId: undefined,
    name: episode.rootName,
    startMs: episode.startMs,
    endMs,
    attributes,
    links: episode.links,
    status: failed
      ? { code: "error", message: errorType ?? outcome }
      : outcome === "ready" || outcome === "recovered"
        ? { code: "ok" }
        : { code: "unset" },
  });

  st.open = undefined;
  if (episode.kind === "generation" && episode.generation !== undefined) {
    settle(st, episode.generation, endMs);
  } else {
    st.closedDegradedSince = episode.degradedSince;
  }
}

function expire(step: Step, st: ObjectTraceState): void {
  const open = st.open;
  if (!open) return;
  const deadline = open.startMs + step.settings.timeoutMs;
  if (step.now < deadline) return;
  closeEpisode(step, st, open, { ms: deadline, source: "deadline" }, "timeout", undefined, "timeout");
}

function settle(st: ObjectTraceState, generation: number, atMs: number): void {
  if (st.closedGeneration === undefined || st.closedGeneration <= generation) {
    st.closedGeneration = generation;
    st.closedAtMs = atMs;
  }
}

// ---------------------------------------------------------------------------
// Helpers

/**
 * When a generation began: creationTimestamp for the first, the time of the
 * newest spec write (managedFields) for later ones; server clocks, so a
 * restart finds the same start. Else this process's clock, marked `observed`.
 */
function bumpTime(object: ObjectState, generation: number, now: number): Stamp {
  if (generation === 1 && object.creationTimestamp !== undefined) {
    return { ms: object.creationTimestamp * 1000, source: "creation_timestamp" };
  }
  if (object.specChangedAt !== undefined) return { ms: object.specChangedAt * 1000, source: "spec_change" };
  return observed(now);
}

/** The time of a transition: the condition's lastTransitionTime when it is not before `startMs`, else now. */
function transitionEnd(startMs: number, lastTransitionTime: number | undefined, now: number): Stamp {
  if (lastTransitionTime !== undefined && lastTransitionTime * 1000 >= startMs) {
    return { ms: lastTransitionTime * 1000, source: "condition" };
  }
  return observed(now);
}

function observed(now: number): Stamp {
  return { ms: now, source: "observed" };
}

function readyTime(settings: PlannerSettings, object: ObjectState): number | undefined {
  const since = findCondition(object, settings.readyCondition)?.lastTransitionTime;
  return since === undefined ? undefined : since * 1000;
}

function sinceKey(condition: ConditionState, now: number): string {
  return condition.lastTransitionTime !== undefined
    ? `${condition.lastTransitionTime}|${condition.status}`
    : `observed:${now}|${condition.status}`;
}

function stalledCondition(settings: PlannerSettings, object: ObjectState): ConditionState | undefined {
  const stalled = findCondition(object, settings.stalledCondition);
  return stalled?.status === "True" ? stalled : undefined;
}

function isFailedPhase(settings: PlannerSettings, object: ObjectState): boolean {
  return object.phase !== undefined && settings.failedPhases.includes(object.phase);
}

function findCondition(object: ObjectState, type: string): ConditionState | undefined {
  return object.conditions.find((c) => c.type === type);
}

function generationLink(
  settings: PlannerSettings,
  uid: string,
  generation: number,
  reason: LinkReason,
): SpanLinkPlan {
  const key = generationTraceKey(settings.cluster, uid, generation);
  return {
    traceId: traceIdOf(key),
    spanId: spanIdOf(key, "root"),
    attributes: { [attr.LINK_REASON]: reason },
  };
}

const identityKeys = [
  attr.K8S_NAMESPACE_NAME,
  attr.K8S_OBJECT_KIND,
  attr.K8S_OBJECT_NAME,
  attr.K8S_OBJECT_UID,
  attr.K8S_OBJECT_API_VERSION,
  attr.RESOURCE,
];

function identityAttributes(resource: ResourceIdentity, object: ObjectState): SpanAttributes {
  const attributes: SpanAttributes = {};
  if (resource.namespaced && object.namespace) attributes[attr.K8S_NAMESPACE_NAME] = object.namespace;
  attributes[attr.K8S_OBJECT_KIND] = resource.kind;
  attributes[attr.K8S_OBJECT_NAME] = object.name;
  attributes[attr.K8S_OBJECT_UID] = object.uid;
  attributes[attr.K8S_OBJECT_API_VERSION] = resource.group
    ? `${resource.group}/${resource.version}`
    : resource.version;
  attributes[attr.RESOURCE] = resource.group ? `${resource.resource}.${resource.group}` : resource.resource;
  return attributes;
}

/** The identity attributes of an episode, repeated on its children so each span can be found alone. */
function identityOf(episode: Episode): SpanAttributes {
  const identity: SpanAttributes = {};
  for (const key of identityKeys) {
    const value = episode.attributes[key];
    if (value !== undefined) identity[key] = value;
  }
  return identity;
}

function rfc3339(epochSeconds: number): string {
  return new Date(epochSeconds * 1000).toISOString().replace(/\.000Z$/, "Z");
}

function truncate(text: string, limit: number): string {
  return text.length <= limit ? text : `${text.slice(0, Math.max(0, limit - 1))}…`;
}

function copyState(state: ObjectTraceState): ObjectTraceState {
  const open = state.open ? { ...state.open, conditions: { ...state.open.conditions } } : undefined;
  return { ...state, open };
}
