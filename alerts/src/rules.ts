// The single source of truth of the shipped Prometheus rules. Every alert keys
// on the object identity (cluster, namespace, group, kind, name) through
// `max by`/`min by`, so exporter replicas and exporter restarts (new
// instance/pod labels) neither duplicate an alert nor restart it. Metric names
// come from the exporter's family catalog, and every rule works with the
// default set of families; the alerts on families a deployment must configure
// or opt in to are generated only when `families` says they are exported.
//
// No annotation calls `query`: Prometheus expands the annotations of every
// pending and firing alert at every evaluation, so a query there runs once per
// failing object per evaluation. What a description names is a label of the
// alert instead, joined in the expression (joinLabel in rule-text.ts): the
// condition `type` (constant per kind, so the identity stays stable), the
// condition's current `reason`, the `phase` of CustomResourceFailed.
//
// The reason is part of the condition alerts' identity, so a reason change is
// a new alert. A rule's `for` would start again with every new reason; the
// four condition alerts (NotReady, ReadyUnknown, Stalled, ReconcilingTooLong)
// therefore have no `for` and count their duration in the expression, from
// the condition's lastTransitionTime (cr_condition_last_transition_timestamp_seconds,
// a default family: the exporter's first sight of the status for conditions
// that carry none). The option `for.<alert>` keeps its meaning, "fires once
// the condition has held its status this long". A reason change resolves the
// alert with the old reason (after keep_firing_for, which rides over exporter
// restarts) and fires the one with the new reason at once, without waiting
// again; a condition that has been False since before Prometheus first saw it
// fires at the first evaluation.
import { metricNames } from "../../src/core/series/catalog.ts";
import { exporterAlerts } from "./exporter-rules.ts";
import { judgedFailedAlerts } from "./judged-rules.ts";
import type { AlertingRule, Duration, RuleGroup, Severity } from "./model.ts";
import type { AlertOptions } from "./options.ts";
import { readinessSeries } from "./readiness.ts";
import { recordingRules, recordNames } from "./records.ts";
import {
  joinLabel,
  KIND_IN_NAMESPACE,
  type Names,
  OBJECT,
  OBJECT_TEXT,
  perKindSeverity,
  runbook,
  scoped,
  seconds,
} from "./rule-text.ts";
import { unlessSuspended } from "./suspended.ts";

export function generateRuleGroups(options: AlertOptions): RuleGroup[] {
  const groups: RuleGroup[] = [
    {
      name: "cr-status.rules",
      rules: recordingRules(options),
    },
    { name: "cr-status.alerts", rules: [...objectAlerts(options), ...familyAlerts(options)] },
    { name: "cr-status-exporter.alerts", rules: exporterAlerts(options) },
  ];
  const scopedAlerts = new Set(groups[1]?.rules.map((rule) => ("alert" in rule ? rule.alert : "")));
  for (const alert of Object.keys(options.alertScopes))
    if (!scopedAlerts.has(alert))
      throw new Error(
        `alertScopes.${alert}: no such per-object or per-namespace alert is generated (expected one of ${[...scopedAlerts].join(", ")})`,
      );
  return groups;
}

/**
 * An alert on one condition status per object, once the condition has held
 * that status for `for`. `type` "readiness": the readiness condition of the
 * object's kind (see readiness.ts). The alert carries the condition's `type`
 * and, when exported, its `reason`; `meaning` may say `{{ $labels.type }}`.
 * The alert's scope selects the series.
 */
function conditionAlert(
  options: AlertOptions,
  spec: {
    alert: string;
    type: string;
    status: "True" | "False" | "Unknown";
    for: Duration;
    severity: Severity;
    summary: string;
    meaning: string;
  },
): AlertingRule[] {
  const n = metricNames(options.metricPrefix);
  const readiness = spec.type === "readiness";
  const select = (...extra: string[]): string => scoped(options, spec.alert, ...extra);
  const type = readiness ? [] : [`type="${spec.type}"`];
  return perKindSeverity(options, spec.severity, (kindMatcher, severity) => {
    const status = [`status="${spec.status}"`, kindMatcher];
    // Each replica's series of the condition in that status…
    const inStatus = readiness
      ? `(${readinessSeries(options, n.condition, select, status)})`
      : `${n.condition}${select(...type, ...status)}`;
    // …and its lastTransitionTime from the same replica (ignoring status: the
    // two families differ by that label only), so a replica that has not seen
    // the change yet lends no older time. min: the longest any replica has
    // seen the status; for conditions without a lastTransitionTime, a replica
    // started later would otherwise restart the clock. The value is the age.
    const held =
      `time() - min by (${OBJECT}, type) (${n.conditionLastTransition}${select(...type, kindMatcher)}` +
      ` and ignoring (status) (${inStatus} == 1)) > ${seconds(spec.for)}`;
    const expr = joinLabel(
      held,
      `${OBJECT}, type`,
      "reason",
      n.conditionReason,
      select(...type, kindMatcher),
    );
    return {
      alert: spec.alert,
      expr: readiness ? unlessSuspended(options, OBJECT, expr, spec.for) : expr,
      // No `for`: the duration is in the expression (see the top of this file).
      ...(options.keepFiringFor ? { keep_firing_for: options.keepFiringFor } : {}),
      labels: { severity },
      annotations: {
        summary: spec.summary,
        description: `${OBJECT_TEXT} ${spec.meaning} for more than ${spec.for}{{ with $labels.reason }}; reason: {{ . }}{{ else }}; no reason given{{ end }}.`,
        runbook_url: runbook(options, spec.alert),
      },
    };
  });
}

function objectAlerts(options: AlertOptions): AlertingRule[] {
  const n: Names = metricNames(options.metricPrefix);
  const f = options.for;
  const t = options.thresholds;
  const w = options.rateWindow;
  const keep = options.keepFiringFor ? { keep_firing_for: options.keepFiringFor } : {};
  const r = recordNames(options.metricPrefix);
  // Per kind and namespace (and exporter job), from the recorded counts.
  const aggregate = "CustomResourcesNotReadyHigh";
  const notReady = `sum without (status) (${r.objectsByReadiness}${scoped(options, aggregate, 'status="False"')})`;
  const objects = `sum without (result) (${r.objectsByResult}${scoped(options, aggregate)})`;
  return [
    ...conditionAlert(options, {
      alert: "CustomResourceNotReady",
      type: "readiness",
      status: "False",
      for: f.notReady,
      severity: "warning",
      summary: "A custom resource is not Ready.",
      meaning: "has been {{ $labels.type }}=False",
    }),
    ...conditionAlert(options, {
      alert: "CustomResourceReadyUnknown",
      type: "readiness",
      status: "Unknown",
      for: f.readyUnknown,
      severity: "warning",
      summary: "A custom resource's readiness is unknown.",
      meaning: "has been {{ $labels.type }}=Unknown",
    }),
    ...judgedFailedAlerts(options),
    ...conditionAlert(options, {
      alert: "CustomResourceStalled",
      type: "Stalled",
      status: "True",
      for: f.stalled,
      severity: "warning",
      summary: "A custom resource is stalled.",
      meaning: "has been Stalled=True",
    }),
    ...conditionAlert(options, {
      alert: "CustomResourceReconcilingTooLong",
      type: "Reconciling",
      status: "True",
      for: f.reconcilingTooLong,
      severity: "warning",
      summary: "A custom resource has been reconciling for too long.",
      meaning: "has been Reconciling=True",
    }),
    ...perKindSeverity(options, "warning", (kindMatcher, severity) => ({
      alert: "CustomResourceGenerationMismatch",
      expr: `max by (${OBJECT}) (${n.generationLag}${scoped(options, "CustomResourceGenerationMismatch", kindMatcher)}) > 0`,
      for: f.generationMismatch,
      ...keep,
      labels: { severity },
      annotations: {
        summary: "A custom resource's controller has not observed its latest generation.",
        description: `${OBJECT_TEXT} has had status.observedGeneration {{ $value }} generation(s) behind metadata.generation for more than ${f.generationMismatch}.`,
        runbook_url: runbook(options, "CustomResourceGenerationMismatch"),
      },
    })),
    {
      alert: "CustomResourceStuckTerminating",
      expr: `time() - max by (${OBJECT}) (${n.deletion}${scoped(options, "CustomResourceStuckTerminating")}) > ${t.terminatingSeconds}`,
      for: f.stuckTerminating,
      labels: { severity: "warning" },
      annotations: {
        summary: "A custom resource is stuck terminating.",
        description: `${OBJECT_TEXT} was deleted {{ $value | humanizeDuration }} ago and still exists (finalizers not removed).`,
        runbook_url: runbook(options, "CustomResourceStuckTerminating"),
      },
    },
    {
      // Each status change sets a new lastTransitionTime (a default family; the
      // transition counters are opt-in). Every replica sees the same changes: max.
      // changes() keeps the `type` label, which names the condition in the description.
      alert: "CustomResourceReadyFlapping",
      expr:
        `max by (${OBJECT}, type) (${readinessSeries(
          options,
          n.conditionLastTransition,
          (...extra) => scoped(options, "CustomResourceReadyFlapping", ...extra),
          [],
          (s) => `changes(${s}[${t.flapWindow}])`,
        )})` + ` > ${t.flapTransitions}`,
      for: f.readyFlapping,
      labels: { severity: "info" },
      annotations: {
        summary: "A custom resource's Ready condition is flapping.",
        description: `${OBJECT_TEXT} changed its {{ $labels.type }} status {{ $value | humanize }} times in the last ${t.flapWindow}.`,
        runbook_url: runbook(options, "CustomResourceReadyFlapping"),
      },
    },
    {
      alert: "CustomResourceStatusWriteStorm",
      expr:
        `max by (${OBJECT}) (rate(${n.statusUpdates}${scoped(options, "CustomResourceStatusWriteStorm")}[${w}]) + rate(${n.noopUpdates}${scoped(options, "CustomResourceStatusWriteStorm")}[${w}]))` +
        ` > ${t.writesPerSecond}`,
      for: f.statusWriteStorm,
      labels: { severity: "warning" },
      annotations: {
        summary: "A custom resource's status is written continuously.",
        description: `${OBJECT_TEXT} has had its status written {{ printf "%.2f" $value }} times per second for more than ${f.statusWriteStorm}.`,
        runbook_url: runbook(options, "CustomResourceStatusWriteStorm"),
      },
    },
    {
      // A ratio over a window, so a single optimistic-concurrency conflict (409) never fires.
      alert: "CustomResourceStatusUpdateFailures",
      expr:
        `sum by (${KIND_IN_NAMESPACE}) (rate(${n.statusUpdateFailures}${scoped(options, "CustomResourceStatusUpdateFailures")}[${w}]))` +
        ` / sum by (${KIND_IN_NAMESPACE}) (rate(${n.statusUpdateRequests}${scoped(options, "CustomResourceStatusUpdateFailures")}[${w}]))` +
        ` > ${t.updateFailureRatio}`,
      for: f.statusUpdateFailures,
      labels: { severity: "warning" },
      annotations: {
        summary: "Status updates of custom resources are failing.",
        description: `{{ $value | humanizePercentage }} of the status writes to {{ $labels.kind }} ({{ $labels.group }}) in namespace {{ $labels.namespace }} failed over the last ${w}.`,
        runbook_url: runbook(options, "CustomResourceStatusUpdateFailures"),
      },
    },
    {
      alert: "CustomResourcesNotReadyHigh",
      expr: `(${notReady} / ${objects} > ${t.notReadyRatio})` + ` and ${notReady} >= ${t.notReadyMinObjects}`,
      for: f.notReadyHigh,
      labels: { severity: "critical" },
      annotations: {
        summary: "Many custom resources of one kind are not Ready.",
        description: `{{ $value | humanizePercentage }} of the {{ $labels.kind }} objects ({{ $labels.group }}) in namespace {{ $labels.namespace }} have had their readiness condition (Ready, or the kind's own: Available, Succeeded, …) False for more than ${f.notReadyHigh}.`,
        runbook_url: runbook(options, "CustomResourcesNotReadyHigh"),
      },
    },
  ];
}

/** Alerts on families that exist only when configured (heartbeatField) or opted in (cr_condition_stale). */
function familyAlerts(options: AlertOptions): AlertingRule[] {
  const n: Names = metricNames(options.metricPrefix);
  const f = options.for;
  const t = options.thresholds;
  const keep = options.keepFiringFor ? { keep_firing_for: options.keepFiringFor } : {};
  const alerts: AlertingRule[] = [];
  if (options.families.heartbeat)
    alerts.push(
      ...perKindSeverity(options, "warning", (kindMatcher, severity) => ({
        alert: "CustomResourceHeartbeatStale",
        expr: `time() - max by (${OBJECT}) (${n.heartbeat}${scoped(options, "CustomResourceHeartbeatStale", kindMatcher)}) > ${t.heartbeatSeconds}`,
        for: f.heartbeatStale,
        ...keep,
        labels: { severity },
        annotations: {
          summary: "A custom resource's controller has stopped heartbeating.",
          description: `${OBJECT_TEXT} last wrote its heartbeat {{ $value | humanizeDuration }} ago; its controller may be down or stuck.`,
          runbook_url: runbook(options, "CustomResourceHeartbeatStale"),
        },
      })),
    );
  if (options.families.conditionStale)
    alerts.push(
      ...perKindSeverity(options, "warning", (kindMatcher, severity) => ({
        alert: "CustomResourceConditionStale",
        expr: `max by (${OBJECT}, type) (${n.conditionStale}${scoped(options, "CustomResourceConditionStale", kindMatcher)} == 1)`,
        for: f.conditionStale,
        ...keep,
        labels: { severity },
        annotations: {
          summary: "A custom resource's condition describes an older generation.",
          description: `The {{ $labels.type }} condition of ${OBJECT_TEXT} has described an older generation than metadata.generation for more than ${f.conditionStale}.`,
          runbook_url: runbook(options, "CustomResourceConditionStale"),
        },
      })),
    );
  return alerts;
}
