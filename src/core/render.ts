// ObjectState → its series, pre-rendered as exposition text per family slot.
// An object is re-rendered only when it changes; the /metrics writer then only
// concatenates. The few values that move with the clock (lag seconds,
// heartbeat age, Ready=False turning into Failed) are marked dynamic and
// rendered at scrape time from the same state.
import { renderLabels, sampleLine, withLabels } from "./exposition.ts";
import { F, objectFamilies } from "./families.ts";
import { type StatusSettings, statusResults, summarizeStatus } from "./kstatus.ts";
import type { ObjectMemory } from "./observations.ts";
import type { ConditionStatus, ObjectState } from "./state.ts";

const conditionStatuses: readonly ConditionStatus[] = ["True", "False", "Unknown"];

/** Per resource type: everything rendering needs besides the object itself. */
export interface KindContext {
  group: string;
  kind: string;
  /** Full family names (prefix applied), indexed like objectFamilies. */
  names: readonly string[];
  extraLabelNames: readonly string[];
  status: StatusSettings;
  /** One-hot set of cr_phase; grows as phases are seen, up to maxPhases. */
  phases: string[];
  phasesVersion: number;
  maxPhases: number;
  /** cr_condition_reason is on, with at most maxReasons distinct reasons. */
  reasonsEnabled: boolean;
  reasons: Set<string>;
  maxReasons: number;
}

export function familyNames(prefix: string): string[] {
  return objectFamilies.map((f) => `${prefix}${f.suffix}`);
}

export function newKindContext(init: {
  group: string;
  kind: string;
  prefix: string;
  extraLabelNames?: readonly string[];
  status?: Partial<StatusSettings>;
  phases?: readonly string[];
  reasonsEnabled?: boolean;
  maxReasons?: number;
}): KindContext {
  return {
    group: init.group,
    kind: init.kind,
    names: familyNames(init.prefix),
    extraLabelNames: init.extraLabelNames ?? [],
    status: { readyCondition: "Ready", failedAfterSeconds: 300, ...init.status },
    phases: [...(init.phases ?? [])],
    phasesVersion: 0,
    maxPhases: 32,
    reasonsEnabled: init.reasonsEnabled ?? false,
    reasons: new Set(),
    maxReasons: init.maxReasons ?? 20,
  };
}

export interface ObjectCounters {
  statusUpdates: number;
  noopUpdates: number;
  generationChanges: number;
  /** Key: `${type}\u0000${status}`. */
  transitions: Map<string, number>;
}

export function newCounters(): ObjectCounters {
  return { statusUpdates: 0, noopUpdates: 0, generationChanges: 0, transitions: new Map() };
}

export interface RenderedObject {
  /** Exposition text per family slot ("" when the object has no series in it). */
  slots: string[];
  /** Bit i set: slot i is rendered at scrape time by renderDynamic(). */
  dynamic: number;
  /** Number of series, for the per-resource cap. */
  series: number;
  /** Kind's phasesVersion when the phase slot was rendered. */
  phasesVersion: number;
  /** `{group=…,name=…,extra…}` for this object. */
  labels: string;
}

export function objectLabels(ctx: KindContext, state: ObjectState): string {
  const names = ["group", "kind", "namespace", "name", ...ctx.extraLabelNames];
  const values = [ctx.group, ctx.kind, state.namespace, state.name];
  for (const name of ctx.extraLabelNames) values.push(state.extraLabels[name] ?? "");
  return renderLabels(names, values);
}

/** Learns the object's phase into the kind's one-hot set. Returns true if the set grew. */
export function learnPhase(ctx: KindContext, phase: string | undefined): boolean {
  if (phase === undefined || ctx.phases.includes(phase) || ctx.phases.length >= ctx.maxPhases) return false;
  ctx.phases.push(phase);
  ctx.phasesVersion++;
  return true;
}

function boundedReason(ctx: KindContext, reason: string): string {
  if (ctx.reasons.has(reason)) return reason;
  if (ctx.reasons.size < ctx.maxReasons) {
    ctx.reasons.add(reason);
    return reason;
  }
  return "other";
}

function countLines(text: string): number {
  let n = 0;
  for (let i = text.indexOf("\n"); i !== -1; i = text.indexOf("\n", i + 1)) n++;
  return n;
}

export function renderPhase(ctx: KindContext, labels: string, phase: string | undefined): string {
  if (phase === undefined) return "";
  const name = ctx.names[F.phase] as string;
  const set = ctx.phases.includes(phase) ? ctx.phases : [...ctx.phases, phase];
  let out = "";
  for (const p of set) out += sampleLine(name, withLabels(labels, ["phase"], [p]), p === phase ? 1 : 0);
  return out;
}

function renderStatus(ctx: KindContext, labels: string, state: ObjectState, now: number): string {
  const { result } = summarizeStatus(state, ctx.status, now);
  const name = ctx.names[F.status] as string;
  let out = "";
  for (const r of statusResults)
    out += sampleLine(name, withLabels(labels, ["result"], [r]), r === result ? 1 : 0);
  return out;
}

function lagSeconds(state: ObjectState, memory: ObjectMemory, now: number): number {
  if (state.generation === undefined || state.observedGeneration === undefined) return 0;
  if (state.generation <= state.observedGeneration) return 0;
  return memory.lagSince === undefined ? 0 : Math.max(0, Math.round(now - memory.lagSince));
}

/** Renders the slots marked dynamic, at scrape time. */
export function renderDynamic(
  ctx: KindContext,
  slot: number,
  labels: string,
  state: ObjectState,
  memory: ObjectMemory,
  now: number,
): string {
  switch (slot) {
    case F.generationLagSeconds:
      return sampleLine(ctx.names[slot] as string, labels, lagSeconds(state, memory, now));
    case F.heartbeatAge:
      return state.heartbeat === undefined
        ? ""
        : sampleLine(ctx.names[slot] as string, labels, Math.max(0, Math.round(now - state.heartbeat)));
    case F.status:
      return renderStatus(ctx, labels, state, now);
    default:
      return "";
  }
}

export function renderObject(
  ctx: KindContext,
  state: ObjectState,
  counters: ObjectCounters,
  now: number,
): RenderedObject {
  const labels = objectLabels(ctx, state);
  const n = ctx.names;
  const slots: string[] = new Array(objectFamilies.length).fill("");
  let dynamic = 0;

  for (const c of state.conditions) {
    const typed = withLabels(labels, ["type"], [c.type]);
    for (const s of conditionStatuses) {
      slots[F.condition] += sampleLine(
        n[F.condition] as string,
        withLabels(typed, ["status"], [s]),
        s === c.status ? 1 : 0,
      );
      const count = counters.transitions.get(`${c.type}\u0000${s}`) ?? 0;
      slots[F.conditionTransitions] += sampleLine(
        n[F.conditionTransitions] as string,
        withLabels(typed, ["status"], [s]),
        count,
      );
    }
    if (c.lastTransitionTime !== undefined) {
      slots[F.conditionLastTransition] += sampleLine(
        n[F.conditionLastTransition] as string,
        typed,
        c.lastTransitionTime,
      );
    }
    if (c.observedGeneration !== undefined && state.generation !== undefined) {
      slots[F.conditionStale] += sampleLine(
        n[F.conditionStale] as string,
        typed,
        c.observedGeneration < state.generation ? 1 : 0,
      );
    }
    if (ctx.reasonsEnabled && c.reason !== "") {
      const reason = boundedReason(ctx, c.reason);
      slots[F.conditionReason] += sampleLine(
        n[F.conditionReason] as string,
        withLabels(typed, ["reason"], [reason]),
        1,
      );
    }
  }

  if (state.generation !== undefined)
    slots[F.generation] = sampleLine(n[F.generation] as string, labels, state.generation);
  if (state.observedGeneration !== undefined) {
    slots[F.observedGeneration] = sampleLine(
      n[F.observedGeneration] as string,
      labels,
      state.observedGeneration,
    );
    if (state.generation !== undefined) {
      const lag = Math.max(0, state.generation - state.observedGeneration);
      slots[F.generationLag] = sampleLine(n[F.generationLag] as string, labels, lag);
      if (lag > 0) dynamic |= 1 << F.generationLagSeconds;
      else slots[F.generationLagSeconds] = sampleLine(n[F.generationLagSeconds] as string, labels, 0);
    }
  }

  slots[F.phase] = renderPhase(ctx, labels, state.phase);

  const summary = summarizeStatus(state, ctx.status, now);
  if (summary.changesAt !== undefined) dynamic |= 1 << F.status;
  else slots[F.status] = renderStatus(ctx, labels, state, now);

  if (state.deletionTimestamp !== undefined) {
    slots[F.deletionTimestamp] = sampleLine(
      n[F.deletionTimestamp] as string,
      labels,
      state.deletionTimestamp,
    );
  }
  if (state.heartbeat !== undefined) dynamic |= 1 << F.heartbeatAge;

  slots[F.statusUpdates] = sampleLine(n[F.statusUpdates] as string, labels, counters.statusUpdates);
  slots[F.statusNoopUpdates] = sampleLine(n[F.statusNoopUpdates] as string, labels, counters.noopUpdates);
  slots[F.specGenerationChanges] = sampleLine(
    n[F.specGenerationChanges] as string,
    labels,
    counters.generationChanges,
  );

  let series = 0;
  for (const text of slots) series += countLines(text);
  // Dynamic slots hold one series each (status: one per result).
  if (dynamic & (1 << F.generationLagSeconds)) series += 1;
  if (dynamic & (1 << F.heartbeatAge)) series += 1;
  if (dynamic & (1 << F.status)) series += statusResults.length;
  return { slots, dynamic, series, phasesVersion: ctx.phasesVersion, labels };
}
