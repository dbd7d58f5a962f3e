// The JSON shapes of the API (docs/api.md): a compact item per object for
// lists, the full view for one object. Times are RFC 3339 strings with the
// matching durations in seconds at the response's `now`; absent values are
// null, so every item has the same keys.

import type { StatusPageConfig } from "../config/status-page.ts";
import type { StatusResult } from "../core/state.ts";
import { generationLag, isFlapping, isLagging, isNotReady, lagSeconds, stateSince } from "./derive.ts";
import { type LinkTemplates, objectLinks } from "./links.ts";
import type { QuerySettings } from "./query.ts";
import type { ConditionView, ObjectView, TransitionRecord } from "./view.ts";

export interface OutputSettings extends QuerySettings {
  links: LinkTemplates;
  /** The window flapping is counted in (the flapping marker says it). */
  flappingWindowSeconds: number;
}

/** The output settings of the `statusPage` configuration section. */
export function outputSettingsOf(config: StatusPageConfig): OutputSettings {
  return {
    flappingMinTransitions: config.flappingTransitions,
    flappingWindowSeconds: config.flappingWindowSeconds,
    links: { dashboardUrl: config.dashboardUrl, traceUrl: config.traceUrl },
  };
}

/** RFC 3339 in whole seconds: the running exporter's clock (and so every observation time) has fractions. */
export function isoTime(seconds: number | undefined): string | null {
  return seconds === undefined
    ? null
    : new Date(Math.floor(seconds) * 1000).toISOString().replace(".000Z", "Z");
}

function secondsSince(at: number | undefined, now: number): number | null {
  return at === undefined ? null : Math.max(0, Math.round(now - at));
}

export interface ConditionJson {
  type: string;
  status: string;
  reason: string;
  message: string;
  since: string | null;
  /** lastTransitionTime, first_seen or exporter_start ("since exporter start": a lower bound). */
  sinceSource: string | null;
  observedGeneration: number | null;
}

function conditionJson(c: ConditionView): ConditionJson {
  return {
    type: c.type,
    status: c.status,
    reason: c.reason,
    message: c.message,
    since: isoTime(c.since),
    sinceSource: c.sinceSource ?? null,
    observedGeneration: c.observedGeneration ?? null,
  };
}

export interface WarningJson {
  reason: string;
  /** Cut to 256 characters. */
  message: string;
  /** When it last happened (series.lastObservedTime, else eventTime). */
  at: string | null;
  ageSeconds: number | null;
}

export interface ObjectItemJson {
  uid: string;
  group: string;
  version: string;
  kind: string;
  namespace: string;
  name: string;
  result: StatusResult;
  notReady: boolean;
  ready: ConditionJson | null;
  /** Since when not Ready (not-Ready objects), or since when Ready. */
  since: string | null;
  sinceSeconds: number | null;
  phase: string | null;
  generation: number | null;
  observedGeneration: number | null;
  generationLag: number | null;
  lagging: boolean;
  lagSeconds: number;
  generationRequestedAt: string | null;
  createdAt: string | null;
  ageSeconds: number | null;
  terminatingSince: string | null;
  transitionsInWindow: number;
  flapping: boolean;
  /** The newest Kubernetes Warning event about the object; null when none was seen (or warningEvents is off). */
  warning: WarningJson | null;
  links: { self: string; dashboard: string | null; trace: string | null };
}

export interface ObjectDetailJson extends ObjectItemJson {
  labels: Record<string, string>;
  conditions: ConditionJson[];
  recentTransitions: (Omit<TransitionRecord, "at"> & { at: string | null })[];
  traceId: string | null;
}

export function objectItem(view: ObjectView, now: number, settings: OutputSettings): ObjectItemJson {
  const since = stateSince(view);
  const links = objectLinks(view, settings.links);
  return {
    uid: view.uid,
    group: view.group,
    version: view.version,
    kind: view.kind,
    namespace: view.namespace,
    name: view.name,
    result: view.result,
    notReady: isNotReady(view),
    ready: view.ready ? conditionJson(view.ready) : null,
    since: isoTime(since),
    sinceSeconds: secondsSince(since, now),
    phase: view.phase ?? null,
    generation: view.generation ?? null,
    observedGeneration: view.observedGeneration ?? null,
    generationLag: generationLag(view) ?? null,
    lagging: isLagging(view),
    lagSeconds: Math.round(lagSeconds(view, now)),
    generationRequestedAt: isoTime(view.generationRequestedAt),
    createdAt: isoTime(view.createdAt),
    ageSeconds: secondsSince(view.createdAt, now),
    terminatingSince: isoTime(view.terminatingSince),
    transitionsInWindow: view.transitionsInWindow,
    flapping: isFlapping(view, settings.flappingMinTransitions),
    warning: view.warning
      ? {
          reason: view.warning.reason,
          message: view.warning.message,
          at: isoTime(view.warning.at),
          ageSeconds: secondsSince(view.warning.at, now),
        }
      : null,
    links: {
      self: `/api/v1/objects/${encodeURIComponent(view.uid)}`,
      dashboard: links.dashboard ?? null,
      trace: links.trace ?? null,
    },
  };
}

export function objectDetail(view: ObjectView, now: number, settings: OutputSettings): ObjectDetailJson {
  return {
    ...objectItem(view, now, settings),
    labels: { ...view.labels },
    conditions: view.conditions.map(conditionJson),
    recentTransitions: view.recentTransitions.map((t) => ({ ...t, at: isoTime(t.at) })),
    traceId: view.traceId ?? null,
  };
}
