// How each kind's readiness condition reaches PromQL. The exporter decides it
// per kind (configured `readyCondition`, else detected: Ready, then
// Succeeded, then Available) and says it once per kind, in
// cr_exporter_resource_info{ready_condition}; the rules join on that label
// instead of naming `type="Ready"`, so no per-object series is added. For a
// kind without that info series (an older exporter, or the series dropped by
// relabelling) they fall back to type="Ready", so nothing goes silent; a kind
// whose info says it has no readiness condition (its states or phase decide)
// gets no condition alert: CustomResourceFailed covers it (judged-rules.ts).
// The series keep the condition's `type` label, so the alerts that aggregate
// by it name the condition ({{ $labels.type }}) without asking Prometheus
// when the annotations are expanded; it is constant per kind, so the alert's
// identity stays stable.
import { metricNames } from "../../src/core/series/catalog.ts";
import type { AlertOptions } from "./options.ts";
import { matchers } from "./rule-text.ts";

/**
 * The series of `family` (a per-object family labelled with the condition
 * `type`, selected by `select(...extra)`: the exporter's selector, scoped to
 * an alert's kinds and namespaces where one asks) for each object's readiness
 * condition. The info series is read with the exporter's selector only, so a
 * scope never turns a kind's join into the Ready fallback. `wrap` turns a
 * selector into the expression to keep (e.g. a `changes()` over a range),
 * applied to both the joined and the fallback series.
 */
export function readinessSeries(
  options: AlertOptions,
  family: string,
  select: (...extra: string[]) => string,
  extra: string[],
  wrap: (selector: string) => string = (s) => s,
): string {
  const info = `${metricNames(options.metricPrefix).resourceInfo}${matchers(options)}`;
  const each = wrap(`${family}${select(...extra)}`);
  const ready = wrap(`${family}${select('type="Ready"', ...extra)}`);
  return (
    `(${each} and on (cluster, group, kind, type) label_replace(${info}, "type", "$1", "ready_condition", "(.+)"))` +
    ` or (${ready} unless on (cluster, group, kind) ${info})`
  );
}
