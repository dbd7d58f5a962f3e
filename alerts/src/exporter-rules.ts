// The exporter's own health alerts: down, watch errors, not synced, stale
// watches, series dropped at the cap, a rejected configuration, a missing shard. Per watched
// resource (or per job), never per object.
import { metricNames } from "../../src/core/series/catalog.ts";
import type { AlertingRule } from "./model.ts";
import type { AlertOptions } from "./options.ts";
import { matchers, type Names, RESOURCE, runbook } from "./rule-text.ts";

export function exporterAlerts(options: AlertOptions): AlertingRule[] {
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
      // The exporter confirms a resource's data at least every minute while its
      // watch works, and restarts a watch silent for 75 s; data older than the
      // threshold means it cannot get through. A resource never listed has 0.
      alert: "CRStatusExporterStale",
      expr: `time() - min by (${RESOURCE}) (${n.dataTimestamp}${matchers(options)}) > ${t.staleSeconds}`,
      for: f.stale,
      labels: { severity: "warning" },
      annotations: {
        summary: "The exporter's data of a resource is stale.",
        description: `The data of {{ $labels.kind }} ({{ $labels.group }}/{{ $labels.version }}) was last confirmed current {{ $value | humanizeDuration }} ago; its metrics are frozen and the exporter cannot reach the apiserver's watch.`,
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
