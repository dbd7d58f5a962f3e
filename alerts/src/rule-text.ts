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
