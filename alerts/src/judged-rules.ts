// Kinds without a readiness condition (cr_exporter_resource_info says
// ready_condition=""): judged by their state fields (configured `states`, or
// Argo CD's health and sync when detected) or by their phase. The condition
// alerts cannot see them; their cr_status can. A kind without the info series
// is left to the condition alerts' Ready fallback, so nothing alerts twice.
import { metricNames } from "../../src/core/catalog.ts";
import type { AlertingRule } from "./model.ts";
import type { AlertOptions } from "./options.ts";
import { escapeQuoted } from "./readiness.ts";
import { matchers, OBJECT, OBJECT_TEXT, perKindSeverity, runbook, scoped } from "./rule-text.ts";
import { unlessSuspended } from "./suspended.ts";

export const JUDGED_FAILED_ALERT = "CustomResourceFailed";

/**
 * Go-template snippet printing the alerting object's state fields (by name:
 * query results come in no fixed order) and phase as they are now
 * (` health=Degraded sync=Synced`, ` phase=Failed`), or ` not exported`.
 */
export function currentStates(options: AlertOptions): string {
  const n = metricNames(options.metricPrefix);
  const labels = ["cluster", "namespace", "group", "kind", "name"];
  const object = `{${escapeQuoted(options.selector)}, ${labels.map((l) => `${l}=\\"%s\\"`).join(", ")}}`;
  const args = labels.map((l) => `$labels.${l}`).join(" ");
  const states = `max by (field, value) (${n.state}${object} == 1)`;
  const phase = `max by (phase) (${n.phase}${object} == 1)`;
  return (
    `{{ $shown := false }}` +
    `{{ range query (printf "${states}" ${args}) | sortByLabel "field" }}{{ $shown = true }} {{ .Labels.field }}={{ .Labels.value }}{{ end }}` +
    `{{ with query (printf "${phase}" ${args}) }}{{ $shown = true }} phase={{ . | first | label "phase" }}{{ end }}` +
    `{{ if not $shown }} not exported{{ end }}`
  );
}

export function judgedFailedAlerts(options: AlertOptions): AlertingRule[] {
  const n = metricNames(options.metricPrefix);
  const alert = JUDGED_FAILED_ALERT;
  const after = options.for.failed;
  // The info series is read with the exporter's selector only: a scope narrows the objects, not the kinds' join.
  // ready_condition="" also matches a series without the label: readiness_source says the exporter judged the kind.
  const withoutCondition = `${n.resourceInfo}${matchers(options, 'ready_condition=""', 'readiness_source!=""')}`;
  return perKindSeverity(options, "warning", (kindMatcher, severity) => ({
    alert,
    expr: unlessSuspended(
      options,
      OBJECT,
      `max by (${OBJECT}) ((${n.status}${scoped(options, alert, 'result="Failed"', kindMatcher)} and on (cluster, group, kind) ${withoutCondition}) == 1)`,
    ),
    for: after,
    ...(options.keepFiringFor ? { keep_firing_for: options.keepFiringFor } : {}),
    labels: { severity },
    annotations: {
      summary: "A custom resource judged by its state fields or phase has failed.",
      description: `${OBJECT_TEXT} has been Failed for more than ${after}, judged by its state fields or phase (its kind has no readiness condition); now:${currentStates(options)}.`,
      runbook_url: runbook(options, alert),
    },
  }));
}
