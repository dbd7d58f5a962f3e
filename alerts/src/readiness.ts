// How each kind's readiness condition reaches PromQL. The exporter decides it
// per kind (configured `readyCondition`, else detected: Ready, then
// Succeeded, then Available) and says it once per kind, in
// cr_exporter_resource_info{ready_condition}; the rules join on that label
// instead of naming `type="Ready"`, so no per-object series is added. For a
// kind without that info series (an older exporter, or the series dropped by
// relabelling) they fall back to type="Ready", so nothing goes silent; a kind
// whose info says it has no readiness condition (its states or phase decide)
// gets no condition alert: CustomResourceFailed covers it (judged-rules.ts).
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

const escapeQuoted = (text: string): string => text.replaceAll("%", "%%").replaceAll('"', '\\"');

/** `{selector, matchers…}` quoted for a printf in an annotation; an empty selector adds no matcher. */
function quotedMatchers(options: AlertOptions, ...matchers: string[]): string {
  return `{${[escapeQuoted(options.selector), ...matchers].filter((m) => m !== "").join(", ")}}`;
}

const objectLabels = ["cluster", "namespace", "group", "kind", "name"];
/** The alerting object's labels, as printf arguments for objectSeries(). */
export const OBJECT_ARGS = objectLabels.map((l) => `$labels.${l}`).join(" ");

/**
 * `metric{selector, cluster=\"%s\", …, name=\"%s\", extra…}` inside an annotation's printf
 * (with OBJECT_ARGS): the series of `metric` of the alerting object.
 */
export function objectSeries(options: AlertOptions, metric: string, ...extra: string[]): string {
  return `${metric}${quotedMatchers(options, ...objectLabels.map((l) => `${l}=\\"%s\\"`), ...extra)}`;
}

/**
 * A Go-template prologue for an alert annotation: sets `$ready` to the
 * readiness condition of the alerting object's kind, as the exporter says it
 * (Ready when it does not).
 */
export function readinessTemplate(options: AlertOptions): string {
  const info = metricNames(options.metricPrefix).resourceInfo;
  const kind = quotedMatchers(options, `cluster=\\"%s\\"`, `group=\\"%s\\"`, `kind=\\"%s\\"`);
  const query = `max by (ready_condition) (${info}${kind})`;
  return (
    `{{ $ready := "Ready" }}{{ with query (printf "${query}" $labels.cluster $labels.group $labels.kind) }}` +
    `{{ with . | first | label "ready_condition" }}{{ $ready = . }}{{ end }}{{ end }}`
  );
}

/**
 * Go-template snippet printing the current reason of the alerting object's
 * condition `type`, or of its readiness condition (`$ready`, see
 * readinessTemplate) when no type is given.
 */
export function currentReason(options: AlertOptions, type?: string): string {
  const typeMatcher = type === undefined ? `type=\\"%s\\"` : `type=\\"${type}\\"`;
  const reasons = objectSeries(options, metricNames(options.metricPrefix).conditionReason, typeMatcher);
  const args = type === undefined ? `${OBJECT_ARGS} $ready` : OBJECT_ARGS;
  return `{{ with query (printf "max by (reason) (${reasons} == 1)" ${args}) }}{{ . | first | label "reason" }}{{ else }}not exported{{ end }}`;
}
