// Suspended objects (cr_suspended: Flux's spec.suspend, Cluster API's
// spec.paused, a configured switch) keep whatever status they had when they
// were suspended — often Ready=False — and nobody is reconciling them, on
// purpose: the Not-Ready rules leave them out unless `includeSuspended` is set.
import { metricNames } from "../../src/core/catalog.ts";
import type { AlertOptions } from "./options.ts";

/** `expr` (per object, keyed by `objectLabels`) without the objects that are suspended. */
export function unlessSuspended(options: AlertOptions, objectLabels: string, expr: string): string {
  if (options.includeSuspended) return expr;
  const selector = options.selector === "" ? "" : `{${options.selector}}`;
  const suspended = `${metricNames(options.metricPrefix).suspended}${selector}`;
  return `(${expr}) unless on (${objectLabels}) (${suspended} == 1)`;
}
