// The pieces every rule is written with: label sets, selectors (the
// exporter's, scoped per alert), runbook links and per-kind severity.
import type { metricNames } from "../../src/core/series/catalog.ts";
import type { AlertingRule, Severity } from "./model.ts";
import type { AlertOptions } from "./options.ts";
import { scopeMatchers } from "./scope.ts";

export const OBJECT = "cluster, namespace, group, kind, name";
export const KIND_IN_NAMESPACE = "cluster, namespace, group, kind";
export const RESOURCE = "cluster, job, group, version, kind";

/** "widgets ns/name" for namespaced objects, "widgets name" for cluster-scoped ones. */
export const OBJECT_TEXT =
  "{{ $labels.kind }} {{ if $labels.namespace }}{{ $labels.namespace }}/{{ end }}{{ $labels.name }} ({{ $labels.group }})";

export type Names = ReturnType<typeof metricNames>;

export function matchers(options: AlertOptions, ...extra: string[]): string {
  return `{${[options.selector, ...extra].filter((m) => m !== "").join(", ")}}`;
}

/** The exporter's selector, then the alert's scope (kinds, namespaces), then `extra`. */
export function scoped(options: AlertOptions, alert: string, ...extra: string[]): string {
  return `{${[options.selector + scopeMatchers(options, alert), ...extra].filter((m) => m !== "").join(", ")}}`;
}

/**
 * `expr` (one series per `on` set, valued as the alert's $value) with `label`
 * joined from `family` (a per-object family valued 1, labelled with `label`,
 * selected by `selector`) of the same `on` labels; where the family has no
 * such series, `expr` as it is (the label absent). This is how the
 * descriptions name the condition's reason or the phase: a label of the alert,
 * read once per evaluation by the rule itself. A `query` in an annotation
 * runs once per pending or firing alert at every evaluation (the not-Ready
 * description asked two: at 1,000 not-Ready objects and a 30s evaluation
 * interval, about 67 queries a second).
 * topk keeps one value per object where exporter replicas briefly disagree
 * (one has seen the new reason, the other not yet): group_left would
 * otherwise fail the whole rule ("found duplicate series for the match
 * group"), for every object, until they agree again.
 */
export function joinLabel(expr: string, on: string, label: string, family: string, selector: string): string {
  const one = `topk by (${on}) (1, max by (${on}, ${label}) (${family}${selector} == 1))`;
  return `((${expr}) * on (${on}) group_left (${label}) ${one}) or on (${OBJECT}) (${expr})`;
}

const UNIT_SECONDS: Readonly<Record<string, number>> = {
  s: 1,
  m: 60,
  h: 3600,
  d: 86400,
  w: 604800,
  y: 31536000,
};

/**
 * A Prometheus duration ("15m") in seconds ("900"), for an expression that
 * compares an age with it. In the chart's rule template the duration is a
 * token (`@@for.notReady@@`); its seconds are then `@@seconds:for.notReady@@`,
 * which the chart computes from the same value (templates/prometheusrule.yaml).
 */
export function seconds(duration: string): string {
  const token = /^@@(.+)@@$/.exec(duration)?.[1];
  if (token) return `@@seconds:${token}@@`;
  const match = /^(\d+)(ms|s|m|h|d|w|y)$/.exec(duration);
  const [, count, unit] = match ?? [];
  if (count === undefined || unit === undefined)
    throw new Error(`"${duration}" is not a Prometheus duration of one unit (such as 15m)`);
  return String(unit === "ms" ? Number(count) / 1000 : Number(count) * (UNIT_SECONDS[unit] ?? Number.NaN));
}

export function runbook(options: AlertOptions, alert: string): string {
  return `${options.runbookBaseUrl}#${alert.toLowerCase()}`;
}

/**
 * One rule per severity: kinds listed in `criticalKinds` page, the rest get
 * `otherwise`. The alert name stays the same, so routing and inhibition
 * (critical inhibits warning on equal alertname) keep working.
 */
export function perKindSeverity(
  options: AlertOptions,
  otherwise: Severity,
  build: (kindMatcher: string, severity: Severity) => AlertingRule,
): AlertingRule[] {
  if (options.criticalKinds.length === 0 || otherwise === "critical") return [build("", otherwise)];
  for (const kind of options.criticalKinds) {
    if (!/^[A-Za-z][A-Za-z0-9]*$/.test(kind))
      throw new Error(`criticalKinds: "${kind}" is not a Kubernetes kind (letters and digits only)`);
  }
  const kinds = options.criticalKinds.join("|");
  return [build(`kind=~"${kinds}"`, "critical"), build(`kind!~"${kinds}"`, otherwise)];
}
