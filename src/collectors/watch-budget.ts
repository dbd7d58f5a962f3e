// The total of list/watches once discovery has matched CRDs: a discovery entry
// (a group glob, a category, CRD labels) starts one per namespace it lists
// (one without) for every CRD it matches, which the configuration check
// cannot know. Past the limit (config/watch-limits.ts), plans are kept in a
// stable order (by key) while they fit and the rest are not started, so a
// cluster that gains CRDs cannot make the exporter open thousands of watches.
import { maxWatches } from "../config/watch-limits.ts";
import type { CollectorPlan } from "./selection.ts";

/** List/watches one plan starts: one per namespace listed for a namespaced kind, else one. */
export function watchesOf(plan: CollectorPlan): number {
  return plan.identity.namespaced ? Math.max(1, plan.options.namespaces.length) : 1;
}

export interface WatchBudget {
  kept: CollectorPlan[];
  /** Keys of the plans not started; empty within the limit. */
  skipped: string[];
  /** List/watches all plans would need. */
  needed: number;
  limit: number;
}

export function fitWatchLimit(plans: readonly CollectorPlan[], limit = maxWatches): WatchBudget {
  const needed = plans.reduce((sum, plan) => sum + watchesOf(plan), 0);
  if (needed <= limit) return { kept: [...plans], skipped: [], needed, limit };
  const kept: CollectorPlan[] = [];
  const skipped: string[] = [];
  let used = 0;
  for (const plan of [...plans].sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0))) {
    const cost = watchesOf(plan);
    if (used + cost <= limit) {
      kept.push(plan);
      used += cost;
    } else skipped.push(plan.key);
  }
  return { kept, skipped, needed, limit };
}

/** The readiness and log text for plans left out. */
export function describeOverLimit(budget: WatchBudget): string {
  const shown = budget.skipped.slice(0, 5).join(", ");
  const more = budget.skipped.length > 5 ? ` and ${budget.skipped.length - 5} more` : "";
  return (
    `the resource entries match CRDs that need ${budget.needed} list/watches (one per listed namespace of each ` +
    `matched CRD), more than the ${budget.limit} allowed: ${budget.skipped.length} resources not watched ` +
    `(${shown}${more}); narrow the discovery entries or watch whole clusters instead of namespaces`
  );
}
