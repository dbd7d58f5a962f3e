// The per-object pipeline, pure: previous entry + raw object → new entry,
// transitions, histogram observations and what tracing needs. No I/O, no
// clock of its own, no state beyond its arguments, and none of them changed:
// the kind's learned label sets are read, and what a change holds and
// releases comes back as LabelChanges for their one owner (the collector) to
// commit.

import type { ObjectEntry } from "../entry.ts";
import { latestWarning, type WarningEvent } from "../events/warning-event.ts";
import { rememberTimes } from "../judge/condition-times.ts";
import {
  type GenerationSettings,
  generationLag,
  type ObjectMemory,
  type ObservedGenerationSource,
  requestTime,
} from "../judge/generations.ts";
import { isReady, isReconciled, type ReadinessRules, summarizeStatus } from "../judge/readiness.ts";
import { type ProjectionSettings, projectObject } from "../project/project.ts";
import { type ObjectShape, slotOf } from "../series/catalog.ts";
import { type KindRender, type ObjectCounters, renderSeries, zeroCounters } from "../series/render.ts";
import type { ObjectState, Transition } from "../state.ts";
import { changedInputs } from "./entry-diff.ts";
import {
  type HeldLabels,
  holdLabels,
  type KindLearning,
  LabelChanges,
  noHeldLabels,
  otherLabelValue,
} from "./label-bounds.ts";
import { noObservations, type Observations, observe } from "./observations.ts";
import { appendTransitions, emptyRing } from "./transition-ring.ts";
import { diffStates } from "./transitions.ts";

/** Everything per resource type that turns raw objects into entries. */
export interface KindSettings {
  projection: ProjectionSettings;
  /** The one readiness model's rules for this kind: cr_status, histograms and spans follow them. */
  readiness: ReadinessRules;
  generationSource: ObservedGenerationSource;
  /** Allowed phase moves (`from` → allowed `to`s); undefined = not checked. */
  phaseTransitions: Readonly<Record<string, readonly string[]>> | undefined;
  /** How per-object series are rendered; undefined in aggregate mode (no per-object series). */
  render: KindRender | undefined;
}

export interface Change {
  entry: ObjectEntry;
  /** The label values the entry holds and releases: the collector commits them with the entry. */
  labels: LabelChanges | undefined;
  /** False when nothing changed (the same resourceVersion again, as a relist replays it). */
  changed: boolean;
  transitions: readonly Transition[];
  observations: Observations;
  illegalPhaseMoves: readonly { from: string; to: string }[];
  /** For tracing; undefined when nothing changed. */
  trace: { previous: ObjectState | undefined; current: ObjectState } | undefined;
}

/** Where the lag's observed generation comes from, for this kind. */
export function generationSettings(
  kind: Pick<KindSettings, "readiness" | "generationSource">,
): GenerationSettings {
  return { source: kind.generationSource, readyCondition: kind.readiness.readyCondition };
}

function resourceVersionOf(raw: unknown): string | undefined {
  const rv = (raw as { metadata?: { resourceVersion?: unknown } } | null)?.metadata?.resourceVersion;
  return typeof rv === "string" && rv !== "" ? rv : undefined;
}

/** The counters after `transitions` (a first sight yields only "created": nothing to count). */
function count(counters: ObjectCounters, transitions: readonly Transition[]): ObjectCounters {
  let { statusUpdates, noopUpdates, generationChanges, transitions: byStatus, warnings } = counters;
  for (const t of transitions) {
    if (t.kind === "statusWrite") {
      if (t.noop) noopUpdates++;
      else statusUpdates++;
    } else if (t.kind === "generation" && t.specChanged) {
      generationChanges++;
    } else if (t.kind === "condition" && t.from !== undefined && t.to !== undefined) {
      const key = `${t.type}\u0000${t.to}`;
      const next = new Map(byStatus);
      next.set(key, (next.get(key) ?? 0) + 1);
      byStatus = next;
    }
  }
  return { statusUpdates, noopUpdates, generationChanges, transitions: byStatus, warnings };
}

function illegalMoves(
  kind: KindSettings,
  transitions: readonly Transition[],
): { from: string; to: string }[] {
  const table = kind.phaseTransitions;
  if (!table) return [];
  const out: { from: string; to: string }[] = [];
  // Label values only from the configured table: a made-up phase is "other".
  const named = (phase: string): string =>
    Object.hasOwn(table, phase) || Object.values(table).some((to) => to.includes(phase))
      ? phase
      : otherLabelValue;
  for (const t of transitions) {
    if (t.kind !== "phase" || t.from === undefined || t.to === undefined) continue;
    if (!table[t.from]?.includes(t.to)) out.push({ from: named(t.from), to: named(t.to) });
  }
  return out;
}

/**
 * The entry with these labels and its series rendered. `previous`: the
 * series to reuse (undefined renders all).
 */
function withSeries(
  previous: ObjectEntry | undefined,
  next: Omit<ObjectEntry, "series" | "labels">,
  kind: KindSettings,
  labels: HeldLabels,
): ObjectEntry {
  const entry: ObjectEntry = { ...next, labels, series: undefined };
  if (!kind.render) return entry;
  entry.series = renderSeries(kind.render, previous?.series, changedInputs(previous, entry), {
    state: entry.state,
    counters: entry.counters,
    lag: entry.lag,
    requestedAt: entry.memory.requestedAt,
    summary: entry.summary,
    labels,
  });
  return entry;
}

/**
 * Applies one observed version of an object. Throws ProjectionError (from
 * projectObject) only for an object without identity; the caller counts it.
 * `listedAtStart`: the object comes from the exporter's first list of the kind.
 */
export function applyChange(
  previous: ObjectEntry | undefined,
  raw: unknown,
  kind: KindSettings,
  learning: KindLearning,
  now: number,
  listedAtStart = false,
): Change {
  if (previous && resourceVersionOf(raw) === previous.state.resourceVersion) {
    return {
      entry: previous,
      labels: undefined,
      changed: false,
      transitions: [],
      observations: noObservations,
      illegalPhaseMoves: [],
      trace: undefined,
    };
  }
  const state = projectObject(raw, kind.projection);
  rememberTimes(previous?.state, state, now, listedAtStart);
  const transitions = diffStates(previous?.state, state, now);
  const counters = count(previous?.counters ?? zeroCounters, transitions);
  const lag = generationLag(state, generationSettings(kind));
  const reconciled = isReconciled(state, kind.readiness);
  const memory: ObjectMemory = {
    generation: state.generation,
    requestedAt: requestTime(previous?.memory, state, lag !== undefined && lag > 0, now),
    readySeen: (previous?.memory.readySeen ?? false) || isReady(state, kind.readiness),
    reconciledGeneration: reconciled ? state.generation : previous?.memory.reconciledGeneration,
  };
  const summary = summarizeStatus(state, kind.readiness, now);
  const ring = previous ? appendTransitions(previous.ring, transitions) : emptyRing;
  const labels = new LabelChanges(learning);
  const entry = withSeries(
    previous,
    // Tracing's record goes on with the object; the collector replaces it after tracing.
    {
      state,
      counters,
      memory,
      lag,
      summary: summary.result,
      changesAt: summary.changesAt,
      ring,
      trace: previous?.trace,
      warning: previous?.warning,
    },
    kind,
    holdLabels(labels, previous, state, kind.render !== undefined),
  );
  const changed = transitions.length > 0;
  return {
    entry,
    labels,
    changed,
    transitions,
    observations: changed
      ? observe({
          previous: previous?.state,
          next: state,
          transitions,
          requestedAt: memory.requestedAt,
          // Stryker disable next-line BooleanLiteral: without a previous state there is no time to ready to observe (observe() needs one)
          readySeen: previous?.memory.readySeen ?? false,
          reconciledGeneration: previous?.memory.reconciledGeneration,
          reconciled,
          readiness: kind.readiness,
          now,
        })
      : noObservations,
    illegalPhaseMoves: illegalMoves(kind, transitions),
    trace: changed ? { previous: previous?.state, current: state } : undefined,
  };
}

/**
 * The clock-driven change: re-evaluates the summary (Ready=False for longer
 * than failedAfter → Failed). The state is the same, so are the labels it holds.
 */
export function refreshSummary(entry: ObjectEntry, kind: KindSettings, now: number): ObjectEntry {
  const summary = summarizeStatus(entry.state, kind.readiness, now);
  if (summary.result === entry.summary && summary.changesAt === entry.changesAt) return entry;
  return withSeries(
    entry,
    { ...entry, summary: summary.result, changesAt: summary.changesAt },
    kind,
    entry.labels,
  );
}

/**
 * The kind's readiness rules or generation source changed (detection decided
 * from objects, or a reload): summary and lag judged again from what is
 * stored, and rendered from scratch.
 */
export function rejudge(entry: ObjectEntry, kind: KindSettings, now: number): ObjectEntry {
  const lag = generationLag(entry.state, generationSettings(kind));
  const summary = summarizeStatus(entry.state, kind.readiness, now);
  return withSeries(
    undefined,
    { ...entry, lag, summary: summary.result, changesAt: summary.changesAt },
    kind,
    entry.labels,
  );
}

/**
 * A Warning event about the object: `occurrences` new ones under the
 * (bounded) reason label `reason`, counted per object while
 * cr_object_warning_events_total is selected, and the event as the object's
 * latest warning when it is newer. The same entry when nothing changes.
 */
export function applyWarning(
  entry: ObjectEntry,
  kind: KindSettings,
  event: WarningEvent,
  reason: string,
  occurrences: number,
): ObjectEntry {
  const warning = latestWarning(entry.warning, event);
  const perObject = kind.render !== undefined && (kind.render.selected & perObjectWarnings) !== 0;
  let counters = entry.counters;
  if (perObject && occurrences > 0) {
    const warnings = new Map(counters.warnings);
    warnings.set(reason, (warnings.get(reason) ?? 0) + occurrences);
    counters = { ...counters, warnings };
  }
  if (warning === entry.warning && counters === entry.counters) return entry;
  return withSeries(entry, { ...entry, counters, warning }, kind, entry.labels);
}

const perObjectWarnings = 1 << slotOf.objectWarningEvents;

/** Renders an entry from scratch (the family selection, prefix or cap changed). */
export function rerender(entry: ObjectEntry, kind: KindSettings): ObjectEntry {
  return withSeries(undefined, entry, kind, entry.labels);
}

/** What an entry's series count depends on (see the catalog's cost formulas). */
export function shapeOf(entry: ObjectEntry): ObjectShape {
  const s = entry.state;
  let conditionsWithReason = 0;
  let conditionsWithGeneration = 0;
  for (const c of s.conditions) {
    if (c.reason !== "") conditionsWithReason++;
    if (c.observedGeneration !== undefined && s.generation !== undefined) conditionsWithGeneration++;
  }
  return {
    conditions: s.conditions.length,
    conditionsWithReason,
    conditionsWithGeneration,
    generation: s.generation !== undefined,
    statusObservedGeneration: s.observedGeneration !== undefined,
    lagKnown: entry.lag !== undefined,
    requestedAtKnown: entry.memory.requestedAt !== undefined,
    phase: s.phase !== undefined,
    states: s.states.length,
    values: s.values.length,
    terminating: s.deletionTimestamp !== undefined,
    suspended: s.suspended,
    heartbeat: s.heartbeat !== undefined,
    warningReasons: entry.counters.warnings?.size ?? 0,
  };
}

/**
 * The shape of a projected object on its own (no history): the generation is
 * taken as requested at creation or at the last spec write, as for an object
 * first seen. For cost estimates from a sample of objects.
 */
export function shapeOfState(state: ObjectState, generations: GenerationSettings, now: number): ObjectShape {
  const lag = generationLag(state, generations);
  return shapeOf({
    state,
    counters: zeroCounters,
    memory: {
      generation: state.generation,
      requestedAt: requestTime(undefined, state, (lag ?? 0) > 0, now),
      // Stryker disable next-line BooleanLiteral: shapeOf reads no memory but requestedAt
      readySeen: false,
      reconciledGeneration: undefined,
    },
    lag,
    summary: "Unknown",
    changesAt: undefined,
    labels: noHeldLabels,
    series: undefined,
    ring: emptyRing,
    trace: undefined,
    warning: undefined,
  });
}
