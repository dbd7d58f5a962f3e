// Suspended objects (cr_suspended: Flux's spec.suspend, Cluster API's
// spec.paused, a configured switch) keep whatever status they had when they
// were suspended — often Ready=False — and nobody is reconciling them, on
// purpose: the Not-Ready rules leave them out unless `includeSuspended` is set.
import { metricNames } from "../../src/core/series/catalog.ts";
import type { AlertOptions } from "./options.ts";
import { SCOPE_TOKEN_SCOPE } from "./scope.ts";

/**
 * In the chart's rule template the clause that leaves suspended objects out
 * sits between these tokens; the chart keeps it, or drops it when
 * prometheusRule.includeSuspended is set.
 */
export const SUSPENDED_TOKENS = { start: "@@suspended@@", end: "@@/suspended@@" } as const;

/**
 * `expr` (per object, keyed by `objectLabels`) without the objects that are
 * suspended, or, with `window`, that were suspended at any time in the last
 * `window`. The condition alerts count their duration in the expression, from
 * lastTransitionTime (rules.ts): a resumed object whose condition turned False
 * days ago would fire the moment it is resumed, before its controller has
 * looked at it. Left out for `window` after the resume, it waits the alert's
 * duration as a newly failing object does.
 */
export function unlessSuspended(
  options: AlertOptions,
  objectLabels: string,
  expr: string,
  window?: string,
): string {
  // In parentheses either way: the chart's template renders the same text with the clause dropped.
  if (options.includeSuspended) return `(${expr})`;
  const selector = options.selector === "" ? "" : `{${options.selector}}`;
  const series = `${metricNames(options.metricPrefix).suspended}${selector}`;
  const suspended = window === undefined ? series : `max_over_time(${series}[${window}])`;
  const clause = ` unless on (${objectLabels}) (${suspended} == 1)`;
  if (options.scope === SCOPE_TOKEN_SCOPE)
    return `(${expr})${SUSPENDED_TOKENS.start}${clause}${SUSPENDED_TOKENS.end}`;
  return `(${expr})${clause}`;
}
