// The single source of truth of the shipped Prometheus rules. Every alert keys
// on the object identity (cluster, namespace, group, kind, name) through
// `max by`, so exporter replicas, exporter restarts (new instance/pod labels)
// and reason changes neither duplicate an alert nor restart its `for` timer.
// Metric names come from the exporter's family catalog, and every rule works
// with the default set of families.
import { metricNames } from "../../src/core/catalog.ts";
import type { AlertingRule, RecordingRule, RuleGroup, Severity } from "./model.ts";
import type { AlertOptions } from "./options.ts";
import { currentReason, readinessSeries, readinessTemplate } from "./readiness.ts";
import { unlessSuspended } from "./suspended.ts";

const OBJECT = "cluster, namespace, group, kind, name";
const KIND_IN_NAMESPACE = "cluster, namespace, group, kind";
const RESOURCE = "cluster, job, group, version, kind";

export const RECORD_NOT_READY = "namespace_group_kind:cr_ready_false:count";
export const RECORD_OBJECTS = "namespace_group_kind:cr_objects:count";

/** "widgets ns/name" for namespaced objects, "widgets name" for cluster-scoped ones. */
const OBJECT_TEXT =
  "{{ $labels.kind }} {{ if $labels.namespace }}{{ $labels.namespace }}/{{ end }}{{ $labels.name }} ({{ $labels.group }})";

type Names = ReturnType<typeof metricNames>;

export function generateRuleGroups(options: AlertOptions): RuleGroup[] {
  return [
    { name: "cr-status.rules", rules: recordingRules(options) },
    { name: "cr-status.alerts", rules: objectAlerts(options) },
    { name: "cr-status-exporter.alerts", rules: exporterAlerts(options) },
  ];
}

function matchers(options: AlertOptions, ...extra: string[]): string {
  return `{${[options.selector, ...extra].filter((m) => m !== "").join(", ")}}`;
}

function runbook(options: AlertOptions, alert: string): string {
  return `${options.runbookBaseUrl}#${alert.toLowerCase()}`;
}

/**
 * One rule per severity: kinds listed in `criticalKinds` page, the rest get
 * `otherwise`. The alert name stays the same, so routing and inhibition
 * (critical inhibits warning on equal alertname) keep working.
 */
function perKindSeverity(
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

/**
 * An alert on one condition status per object. `type` "readiness": the
 * readiness condition of the object's kind (see readiness.ts); `meaning` may
 * then say `$ready`, the condition's name.
 */
function conditionAlert(
  options: AlertOptions,
  spec: {
    alert: string;
    type: string;
    status: "True" | "False" | "Unknown";
    for: AlertingRule["for"];
    severity: Severity;
    summary: string;
    meaning: string;
  },
): AlertingRule[] {
  const family = metricNames(options.metricPrefix).condition;
  const readiness = spec.type === "readiness";
  return perKindSeverity(options, spec.severity, (kindMatcher, severity) => ({
    alert: spec.alert,
    expr: readiness
      ? unlessSuspended(
          options,
          OBJECT,
          `max by (${OBJECT}) ((${readinessSeries(options, family, [`status="${spec.status}"`, kindMatcher])}) == 1)`,
        )
      : `max by (${OBJECT}) (${family}${matchers(options, `type="${spec.type}"`, `status="${spec.status}"`, kindMatcher)} == 1)`,
    for: spec.for,
    ...(options.keepFiringFor ? { keep_firing_for: options.keepFiringFor } : {}),
    labels: { severity },
    annotations: {
      summary: spec.summary,
      description: `${readiness ? readinessTemplate(options) : ""}${OBJECT_TEXT} ${spec.meaning} for more than ${spec.for}; reason: ${currentReason(options, readiness ? undefined : spec.type)}.`,
      runbook_url: runbook(options, spec.alert),
    },
  }));
}

function recordingRules(options: AlertOptions): RecordingRule[] {
  const n: Names = metricNames(options.metricPrefix);
  return [
    {
      record: RECORD_NOT_READY,
      expr: `count by (${KIND_IN_NAMESPACE}) (${unlessSuspended(options, OBJECT, `max by (${OBJECT}) ((${readinessSeries(options, n.condition, ['status="False"'])}) == 1)`)})`,
    },
    {
      // cr_status exists for every object, whether or not it has a Ready condition.
      record: RECORD_OBJECTS,
      expr: `count by (${KIND_IN_NAMESPACE}) (max by (${OBJECT}) (${n.status}${matchers(options)} == 1))`,
    },
  ];
}

function objectAlerts(options: AlertOptions): AlertingRule[] {
  const n: Names = metricNames(options.metricPrefix);
  const f = options.for;
  const t = options.thresholds;
  const w = options.rateWindow;
  const keep = options.keepFiringFor ? { keep_firing_for: options.keepFiringFor } : {};
  return [
    ...conditionAlert(options, {
      alert: "CustomResourceNotReady",
      type: "readiness",
      status: "False",
      for: f.notReady,
      severity: "warning",
      summary: "A custom resource is not Ready.",
      meaning: "has been {{ $ready }}=False",
    }),
    ...conditionAlert(options, {
      alert: "CustomResourceReadyUnknown",
      type: "readiness",
      status: "Unknown",
      for: f.readyUnknown,
      severity: "warning",
      summary: "A custom resource's readiness is unknown.",
      meaning: "has been {{ $ready }}=Unknown",
    }),
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
      expr: `max by (${OBJECT}) (${n.generationLag}${matchers(options, kindMatcher)}) > 0`,
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
      expr: `time() - max by (${OBJECT}) (${n.deletion}${matchers(options)}) > ${t.terminatingSeconds}`,
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
      alert: "CustomResourceReadyFlapping",
      expr:
        `max by (${OBJECT}) (${readinessSeries(options, n.conditionLastTransition, [], (s) => `changes(${s}[${t.flapWindow}])`)})` +
        ` > ${t.flapTransitions}`,
      for: f.readyFlapping,
      labels: { severity: "info" },
      annotations: {
        summary: "A custom resource's Ready condition is flapping.",
        description: `${readinessTemplate(options)}${OBJECT_TEXT} changed its {{ $ready }} status {{ $value | humanize }} times in the last ${t.flapWindow}.`,
        runbook_url: runbook(options, "CustomResourceReadyFlapping"),
      },
    },
    {
      alert: "CustomResourceStatusWriteStorm",
      expr:
        `max by (${OBJECT}) (rate(${n.statusUpdates}${matchers(options)}[${w}]) + rate(${n.noopUpdates}${matchers(options)}[${w}]))` +
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
        `sum by (${KIND_IN_NAMESPACE}) (rate(${n.statusUpdateFailures}${matchers(options)}[${w}]))` +
        ` / sum by (${KIND_IN_NAMESPACE}) (rate(${n.statusUpdateRequests}${matchers(options)}[${w}]))` +
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
      expr:
        `(${RECORD_NOT_READY} / ${RECORD_OBJECTS} > ${t.notReadyRatio})` +
        ` and ${RECORD_NOT_READY} >= ${t.notReadyMinObjects}`,
      for: f.notReadyHigh,
      labels: { severity: "critical" },
      annotations: {
        summary: "Many custom resources of one kind are not Ready.",
        description: `{{ $value | humanizePercentage }} of the {{ $labels.kind }} objects ({{ $labels.group }}) in namespace {{ $labels.namespace }} have been Ready=False for more than ${f.notReadyHigh}.`,
        runbook_url: runbook(options, "CustomResourcesNotReadyHigh"),
      },
    },
  ];
}

function exporterAlerts(options: AlertOptions): AlertingRule[] {
  const n: Names = metricNames(options.metricPrefix);
  const f = options.for;
  const t = options.thresholds;
  const w = options.rateWindow;
  return [
    {
      // absent() keeps the labels of the equality matchers of a bare selector, so `job` stays in the alert.
      alert: "CRStatusExporterDown",
      expr: `(sum by (cluster, job) (up${matchers(options)}) == 0) or absent(up${matchers(options)})`,
      for: f.exporterDown,
      labels: { severity: "critical" },
      annotations: {
        summary: "The custom resource status exporter is down.",
        description: `No target of job {{ $labels.job }} has been up for more than ${f.exporterDown}; custom resource alerts are blind.`,
        runbook_url: runbook(options, "CRStatusExporterDown"),
      },
    },
    {
      alert: "CRStatusExporterWatchErrors",
      expr: `sum by (${RESOURCE}) (rate(${n.watchErrors}${matchers(options)}[${w}])) > 0`,
      for: f.watchErrors,
      labels: { severity: "warning" },
      annotations: {
        summary: "The exporter cannot list or watch a resource.",
        description: `Listing or watching {{ $labels.kind }} ({{ $labels.group }}/{{ $labels.version }}) fails {{ printf "%.3f" $value }} times per second.`,
        runbook_url: runbook(options, "CRStatusExporterWatchErrors"),
      },
    },
    {
      // min: one replica that is not synced is enough.
      alert: "CRStatusExporterNotSynced",
      expr: `min by (${RESOURCE}) (${n.resourceSynced}${matchers(options)}) == 0`,
      for: f.notSynced,
      labels: { severity: "warning" },
      annotations: {
        summary: "The exporter has not synced a resource.",
        description: `{{ $labels.kind }} ({{ $labels.group }}/{{ $labels.version }}) has not finished its initial list or is relisting for more than ${f.notSynced}; its metrics are incomplete.`,
        runbook_url: runbook(options, "CRStatusExporterNotSynced"),
      },
    },
    {
      // Watch bookmarks arrive about every minute, so a quiet but healthy watch stays fresh.
      alert: "CRStatusExporterStale",
      expr: `time() - min by (${RESOURCE}) (${n.lastEvent}${matchers(options)}) > ${t.staleSeconds}`,
      for: f.stale,
      labels: { severity: "warning" },
      annotations: {
        summary: "The exporter's watch of a resource is stale.",
        description: `No watch event for {{ $labels.kind }} ({{ $labels.group }}/{{ $labels.version }}) arrived in the last {{ $value | humanizeDuration }}; the watch may be hung.`,
        runbook_url: runbook(options, "CRStatusExporterStale"),
      },
    },
    {
      alert: "CRStatusExporterSeriesDropped",
      expr: `sum by (${RESOURCE}) (increase(${n.seriesDropped}${matchers(options)}[${w}])) > 0`,
      for: f.seriesDropped,
      labels: { severity: "warning" },
      annotations: {
        summary: "The exporter drops series because a resource hit its series cap.",
        description: `Series of {{ $labels.kind }} ({{ $labels.group }}/{{ $labels.version }}) were not exported in the last ${w}: the resource reached its maxSeries cap.`,
        runbook_url: runbook(options, "CRStatusExporterSeriesDropped"),
      },
    },
    {
      alert: "CRStatusExporterConfigReloadFailed",
      expr: `min by (cluster, job) (${n.configReloadSuccess}${matchers(options)}) == 0`,
      for: f.configReloadFailed,
      labels: { severity: "warning" },
      annotations: {
        summary: "The exporter rejected its configuration.",
        description: `The last configuration load of job {{ $labels.job }} failed; the previous configuration keeps running.`,
        runbook_url: runbook(options, "CRStatusExporterConfigReloadFailed"),
      },
    },
    {
      // Every process exports cr_exporter_shards{shard} = the number of shards
      // (0 of 1 unsharded): fewer distinct shards than that means some objects
      // are exported by no one. Replicas of a shard count once.
      alert: "CRStatusExporterShardMissing",
      expr:
        `count by (cluster, job) (max by (cluster, job, shard) (${n.shards}${matchers(options)}))` +
        ` < max by (cluster, job) (${n.shards}${matchers(options)})`,
      for: f.shardMissing,
      labels: { severity: "critical" },
      annotations: {
        summary: "A shard of the exporter is missing.",
        description: `Only {{ $value }} shards of job {{ $labels.job }} have reported for more than ${f.shardMissing}, fewer than the objects are split into; the objects of the missing shards have no metrics and no alerts.`,
        runbook_url: runbook(options, "CRStatusExporterShardMissing"),
      },
    },
  ];
}
