// ObjectState → its series, pre-rendered as exposition text per family slot.
// An object is re-rendered only when it changes; the /metrics writer then only
// concatenates. The few values that move with the clock (lag seconds,
// heartbeat age, Ready=False turning into Failed) are marked dynamic and
// rendered at scrape time from the same state.
import { escapeLabelValue, renderLabels, sampleLine } from "./exposition.ts";
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

/** `{a="x",b="y"}` → `{a="x",b="y"` so more pairs can be appended cheaply. */
function opened(labels: string): string {
  return labels.slice(0, -1);
}

export function renderPhase(ctx: KindContext, labels: string, phase: string | undefined): string {
  if (phase === undefined) return "";
  const name = ctx.names[F.phase] as string;
  const open = opened(labels);
  const set = ctx.phases.includes(phase) ? ctx.phases : [...ctx.phases, phase];
  let out = "";
  for (const p of set) out += `${name}${open},phase="${escapeLabelValue(p)}"} ${p === phase ? 1 : 0}\n`;
  return out;
}

function renderStatus(ctx: KindContext, labels: string, state: ObjectState, now: number): string {
  const { result } = summarizeStatus(state, ctx.status, now);
  const name = ctx.names[F.status] as string;
  const open = opened(labels);
  let out = "";
  for (const r of statusResults) out += `${name}${open},result="${r}"} ${r === result ? 1 : 0}\n`;
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
  // Hot path (every object change): lines are built from pre-escaped label
  // prefixes by plain concatenation, and series are counted as they are made.
  const labels = objectLabels(ctx, state);
  const open = opened(labels);
  const n = ctx.names;
  const slots: string[] = new Array(objectFamilies.length).fill("");
  let dynamic = 0;
  let series = 0;

  let conditionText = "";
  let transitionsText = "";
  let lastTransitionText = "";
  let staleText = "";
  let reasonText = "";
  for (const c of state.conditions) {
    const typedOpen = `${open},type="${escapeLabelValue(c.type)}"`;
    for (const s of conditionStatuses) {
      const withStatus = `${typedOpen},status="${s}"}`;
      conditionText += `${n[F.condition]}${withStatus} ${s === c.status ? 1 : 0}\n`;
      transitionsText += `${n[F.conditionTransitions]}${withStatus} ${counters.transitions.get(`${c.type}\u0000${s}`) ?? 0}\n`;
    }
    series += 6;
    if (c.lastTransitionTime !== undefined) {
      lastTransitionText += `${n[F.conditionLastTransition]}${typedOpen}} ${c.lastTransitionTime}\n`;
      series++;
    }
    if (c.observedGeneration !== undefined && state.generation !== undefined) {
      staleText += `${n[F.conditionStale]}${typedOpen}} ${c.observedGeneration < state.generation ? 1 : 0}\n`;
      series++;
    }
    if (ctx.reasonsEnabled && c.reason !== "") {
      reasonText += `${n[F.conditionReason]}${typedOpen},reason="${escapeLabelValue(boundedReason(ctx, c.reason))}"} 1\n`;
      series++;
    }
  }
  slots[F.condition] = conditionText;
  slots[F.conditionTransitions] = transitionsText;
  slots[F.conditionLastTransition] = lastTransitionText;
  slots[F.conditionStale] = staleText;
  slots[F.conditionReason] = reasonText;

  const line = (slot: number, value: number): void => {
    slots[slot] = sampleLine(n[slot] as string, labels, value);
    series++;
  };
  if (state.generation !== undefined) line(F.generation, state.generation);
  if (state.observedGeneration !== undefined) {
    line(F.observedGeneration, state.observedGeneration);
    if (state.generation !== undefined) {
      const lag = Math.max(0, state.generation - state.observedGeneration);
      line(F.generationLag, lag);
      if (lag > 0) {
        dynamic |= 1 << F.generationLagSeconds;
        series++;
      } else line(F.generationLagSeconds, 0);
    }
  }

  if (state.phase !== undefined) {
    slots[F.phase] = renderPhase(ctx, labels, state.phase);
    series += ctx.phases.includes(state.phase) ? ctx.phases.length : ctx.phases.length + 1;
  }

  const summary = summarizeStatus(state, ctx.status, now);
  if (summary.changesAt !== undefined) dynamic |= 1 << F.status;
  else slots[F.status] = renderStatus(ctx, labels, state, now);
  series += statusResults.length;

  if (state.deletionTimestamp !== undefined) line(F.deletionTimestamp, state.deletionTimestamp);
  if (state.heartbeat !== undefined) {
    dynamic |= 1 << F.heartbeatAge;
    series++;
  }
  line(F.statusUpdates, counters.statusUpdates);
  line(F.statusNoopUpdates, counters.noopUpdates);
  line(F.specGenerationChanges, counters.generationChanges);
  return { slots, dynamic, series, phasesVersion: ctx.phasesVersion, labels };
}
