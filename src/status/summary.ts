// Counts per kind × kstatus result, plus the not-Ready, lagging, terminating
// and flapping counts a person scans first. Kinds with no objects are listed
// with zeros, so "no objects" is visible rather than missing.
import { type StatusResult, statusResults } from "../core/state.ts";
import { isFlapping, isLagging, isNotReady } from "./derive.ts";
import { namesKind } from "./kind-name.ts";
import { matches, type QuerySettings } from "./query.ts";
import type { ObjectFilter } from "./query-params.ts";
import type { KindRef, ObjectView } from "./view.ts";

export interface KindSummary extends KindRef {
  total: number;
  results: Record<StatusResult, number>;
  notReady: number;
  lagging: number;
  terminating: number;
  flapping: number;
}

export interface Summary {
  kinds: KindSummary[];
  total: Omit<KindSummary, keyof KindRef>;
}

function zero(): Omit<KindSummary, keyof KindRef> {
  const results = Object.fromEntries(statusResults.map((r) => [r, 0])) as Record<StatusResult, number>;
  return { total: 0, results, notReady: 0, lagging: 0, terminating: 0, flapping: 0 };
}

function add(into: Omit<KindSummary, keyof KindRef>, view: ObjectView, settings: QuerySettings): void {
  into.total++;
  into.results[view.result]++;
  if (isNotReady(view)) into.notReady++;
  if (isLagging(view)) into.lagging++;
  if (view.terminatingSince !== undefined) into.terminating++;
  if (isFlapping(view, settings.flappingMinTransitions)) into.flapping++;
}

/** Takes views one at a time (add) and answers the summary (summary). */
export interface SummaryCollector {
  add(view: ObjectView): void;
  summary(): Summary;
}

export function summaryCollector(
  kinds: readonly KindRef[],
  filter: ObjectFilter | undefined,
  settings: QuerySettings,
): SummaryCollector {
  const byKind = new Map<string, KindSummary>();
  const keyOf = (k: KindRef): string => `${k.group}/${k.kind}`;
  const total = zero();
  for (const k of kinds) {
    // With a kind or group filter, only the kinds asked for are listed.
    const kindOk = !filter?.kinds.length || filter.kinds.some((f) => namesKind(k, f));
    const groupOk = !filter?.groups.length || filter.groups.includes(k.group);
    if (kindOk && groupOk)
      byKind.set(keyOf(k), {
        group: k.group,
        version: k.version,
        kind: k.kind,
        resource: k.resource,
        ...zero(),
      });
  }
  return {
    add(view) {
      if (filter && !matches(view, filter, settings)) return;
      let entry = byKind.get(keyOf(view));
      if (!entry) {
        entry = {
          group: view.group,
          version: view.version,
          kind: view.kind,
          resource: view.resource,
          ...zero(),
        };
        byKind.set(keyOf(view), entry);
      }
      add(entry, view, settings);
      add(total, view, settings);
    },
    summary() {
      const sorted = [...byKind.values()].sort((a, b) =>
        a.kind === b.kind ? (a.group < b.group ? -1 : 1) : a.kind < b.kind ? -1 : 1,
      );
      return { kinds: sorted, total };
    },
  };
}

export function summarize(
  kinds: readonly KindRef[],
  views: Iterable<ObjectView>,
  filter: ObjectFilter | undefined,
  settings: QuerySettings,
): Summary {
  const collector = summaryCollector(kinds, filter, settings);
  for (const view of views) collector.add(view);
  return collector.summary();
}
