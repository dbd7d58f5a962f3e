// Objects judged Failed by their state fields (configured `states`, or Argo
// CD's health and sync when detected) or by their phase (a failed phase of a
// kind without a readiness condition, or a `phaseResults` entry): the
// condition alerts cannot see them; their cr_status can. Objects whose
// readiness condition is away from True, or that are Stalled, are left to
// the condition alerts, so one failure gives one alert.
import { metricNames } from "../../src/core/series/catalog.ts";
import type { AlertingRule } from "./model.ts";
import type { AlertOptions } from "./options.ts";
import { OBJECT_ARGS, objectSeries, readinessSeries } from "./readiness.ts";
import { OBJECT, OBJECT_TEXT, perKindSeverity, runbook, scoped } from "./rule-text.ts";
import { unlessSuspended } from "./suspended.ts";

export const JUDGED_FAILED_ALERT = "CustomResourceFailed";

/**
 * Go-template snippet printing the alerting object's state fields (by name:
 * query results come in no fixed order) and phase as they are now
 * (` health=Degraded sync=Synced`, ` phase=Failed`), or ` not exported`.
 */
export function currentStates(options: AlertOptions): string {
  const n = metricNames(options.metricPrefix);
  const states = `max by (field, value) (${objectSeries(options, n.state)} == 1)`;
  const phase = `max by (phase) (${objectSeries(options, n.phase)} == 1)`;
  return (
    `{{ $shown := false }}` +
    `{{ range query (printf "${states}" ${OBJECT_ARGS}) | sortByLabel "field" }}{{ $shown = true }} {{ .Labels.field }}={{ .Labels.value }}{{ end }}` +
    `{{ with query (printf "${phase}" ${OBJECT_ARGS}) }}{{ $shown = true }} phase={{ . | first | label "phase" }}{{ end }}` +
    `{{ if not $shown }} not exported{{ end }}`
  );
}

export function judgedFailedAlerts(options: AlertOptions): AlertingRule[] {
  const n = metricNames(options.metricPrefix);
  const alert = JUDGED_FAILED_ALERT;
  const after = options.for.failed;
  const select = (...extra: string[]): string => scoped(options, alert, ...extra);
  // Objects whose readiness condition is away from True (CustomResourceNotReady and
  // CustomResourceReadyUnknown report them) or that are Stalled (CustomResourceStalled).
  const reported =
    `max by (${OBJECT}) ((${readinessSeries(options, n.condition, select, ['status!="True"'])}) == 1)` +
    ` or max by (${OBJECT}) (${n.condition}${select('type="Stalled"', 'status="True"')} == 1)`;
  return perKindSeverity(options, "warning", (kindMatcher, severity) => ({
    alert,
    expr: unlessSuspended(
      options,
      OBJECT,
      `max by (${OBJECT}) (${n.status}${select('result="Failed"', kindMatcher)} == 1) unless on (${OBJECT}) (${reported})`,
    ),
    for: after,
    ...(options.keepFiringFor ? { keep_firing_for: options.keepFiringFor } : {}),
    labels: { severity },
    annotations: {
      summary: "A custom resource judged by its state fields or phase has failed.",
      description: `${OBJECT_TEXT} has been Failed for more than ${after} by its state fields or phase, which no readiness-condition alert reports; now:${currentStates(options)}.`,
      runbook_url: runbook(options, alert),
    },
  }));
}
