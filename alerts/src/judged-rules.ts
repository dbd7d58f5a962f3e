// Objects judged Failed by their state fields (configured `states`, or Argo
// CD's health and sync when detected) or by their phase (a failed phase of a
// kind without a readiness condition, or a `phaseResults` entry): the
// condition alerts cannot see them; their cr_status can. Objects whose
// readiness condition is away from True, or that are Stalled, are left to
// the condition alerts, so one failure gives one alert.
import { metricNames } from "../../src/core/series/catalog.ts";
import type { AlertingRule } from "./model.ts";
import type { AlertOptions } from "./options.ts";
import { readinessSeries } from "./readiness.ts";
import { joinLabel, OBJECT, OBJECT_TEXT, perKindSeverity, runbook, scoped } from "./rule-text.ts";
import { unlessSuspended } from "./suspended.ts";

export const JUDGED_FAILED_ALERT = "CustomResourceFailed";

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
  return perKindSeverity(options, "warning", (kindMatcher, severity) => {
    const failed = `max by (${OBJECT}) (${n.status}${select('result="Failed"', kindMatcher)} == 1) unless on (${OBJECT}) (${reported})`;
    return {
      alert,
      // The phase joined as a label for the description (joinLabel: no query in the annotation). A phase
      // change is then a new alert that waits its `for` again; a failed phase rarely changes to another one.
      expr: unlessSuspended(
        options,
        OBJECT,
        joinLabel(failed, OBJECT, "phase", n.phase, select(kindMatcher)),
      ),
      for: after,
      ...(options.keepFiringFor ? { keep_firing_for: options.keepFiringFor } : {}),
      labels: { severity },
      annotations: {
        summary: "A custom resource judged by its state fields, phase or readiness expression has failed.",
        // The state fields (cr_state, one series per field) would be one label per field: named, not joined.
        description:
          `${OBJECT_TEXT} has been Failed for more than ${after} by its state fields, phase or readiness expression (readiness.cel), which no readiness-condition alert reports` +
          `{{ with $labels.phase }}; phase: {{ . }}{{ end }}; state fields: ${n.state}{kind="{{ $labels.kind }}", namespace="{{ $labels.namespace }}", name="{{ $labels.name }}"}.`,
        runbook_url: runbook(options, alert),
      },
    };
  });
}
