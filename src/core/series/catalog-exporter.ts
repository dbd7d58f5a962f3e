// The exporter's own part of the metric family catalog (see catalog.ts): its
// health per watched resource, configuration and process facts, the
// status-write families of the API proxy and audit receiver, and tracing's
// health. Always exported, not selectable. src/metrics/families.ts makes the
// registry's metrics from these entries, so name, type, help and labels are
// said once.
import type { FamilyType } from "./catalog-objects.ts";

export const resourceLabels = ["group", "version", "kind"] as const;

/** Labels of cr_exporter_resource_info: how a resource is read (bounded: one series per watched resource). */
export const resourceInfoLabels = [
  ...resourceLabels,
  "status_subresource",
  "conditions_path",
  "observed_generation_path",
  "observed_generation_source",
  "phase_path",
  "ready_condition",
  "readiness_source",
  "run_to_completion",
  "condition_times",
] as const;

interface ExporterFamilySpec {
  suffix: string;
  type: FamilyType;
  help: string;
  labels: readonly string[];
  /** Histograms only. */
  buckets?: readonly number[];
}

const r = resourceLabels;

// Status writes take milliseconds when healthy, seconds under apiserver load
// or a slow admission webhook (whose own timeout defaults to 10 s).
export const statusWriteDurationBuckets = [
  0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30,
] as const;

const exporterSpecs = {
  resourceSynced: {
    suffix: "exporter_resource_synced",
    type: "gauge",
    help: "1 once the initial list finished and the watch is running.",
    labels: r,
  },
  resourceObjects: {
    suffix: "exporter_resource_objects",
    type: "gauge",
    help: "Objects currently held.",
    labels: r,
  },
  resourceSeries: {
    suffix: "exporter_resource_series",
    type: "gauge",
    help: "Per-object series currently exported.",
    labels: r,
  },
  resourceShardFilter: {
    suffix: "exporter_resource_shard_filter",
    type: "gauge",
    help: "A sharded process's resource: 1 for who keeps its shard's objects (apiserver: the list and watch carry the shard's selector and the apiserver applies it; exporter: every object is received and the shard's kept).",
    labels: [...r, "filter"],
  },
  resourceInfo: {
    suffix: "exporter_resource_info",
    type: "gauge",
    help: "1 per watched resource, labelled with how its objects are read.",
    labels: resourceInfoLabels,
  },
  valueCandidate: {
    suffix: "exporter_value_candidate_info",
    type: "gauge",
    help: "1 per numeric or date-time status field the resource's CRD schema declares that values does not export (at most 20 per resource): what values could add, at one cr_value series per object each.",
    labels: [...r, "path", "type"],
  },
  watchEvents: {
    suffix: "exporter_watch_events_total",
    type: "counter",
    help: "Watch events received, by type.",
    labels: [...r, "type"],
  },
  watchErrors: {
    suffix: "exporter_watch_errors_total",
    type: "counter",
    help: "Failed list or watch requests, by operation and HTTP code (0: network error or timeout).",
    labels: [...r, "operation", "code"],
  },
  relists: {
    suffix: "exporter_relists_total",
    type: "counter",
    help: "Full relists, by reason.",
    labels: [...r, "reason"],
  },
  listDuration: {
    suffix: "exporter_list_duration_seconds",
    type: "histogram",
    help: "Duration of full (paginated) lists.",
    labels: r,
    buckets: [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120],
  },
  lastEvent: {
    suffix: "exporter_last_event_timestamp_seconds",
    type: "gauge",
    help: "When the last watch event arrived (bookmarks included); 0 before the first.",
    labels: r,
  },
  lastSync: {
    suffix: "exporter_last_sync_timestamp_seconds",
    type: "gauge",
    help: "When the last full list finished.",
    labels: r,
  },
  dataTimestamp: {
    suffix: "exporter_resource_data_timestamp_seconds",
    type: "gauge",
    help: "When the resource's data was last confirmed current (a list, a watch opened, an event or bookmark); 0 before the first list.",
    labels: r,
  },
  handlerErrors: {
    suffix: "exporter_handler_errors_total",
    type: "counter",
    help: "Objects that could not be projected; they are skipped.",
    labels: r,
  },
  seriesDropped: {
    suffix: "exporter_series_dropped_total",
    type: "counter",
    help: "Per-object series not exported because the resource hit its maxSeries cap.",
    labels: r,
  },
  labelValuesTruncated: {
    suffix: "exporter_label_values_truncated_total",
    type: "counter",
    help: "Label values (phase, condition type or reason, extra labels) cut to the length cap, per object version read.",
    labels: r,
  },
  conditionsDropped: {
    suffix: "exporter_conditions_dropped_total",
    type: "counter",
    help: "Conditions past the per-object cap, not exported, per object version read.",
    labels: r,
  },
  valuesUnreadable: {
    suffix: "exporter_values_unreadable_total",
    type: "counter",
    help: "Configured values present in an object but not readable as numbers (no series), per object version read.",
    labels: r,
  },
  celErrors: {
    suffix: "exporter_cel_errors_total",
    type: "counter",
    help: "Evaluations of a configured CEL expression that failed (readiness Unknown, or no cr_value series), by expression (field: readiness.cel or the value's name) and reason, per object version read.",
    labels: [...r, "field", "reason"],
  },
  configReloadSuccess: {
    suffix: "exporter_config_reload_success",
    type: "gauge",
    help: "1 if the last configuration load succeeded.",
    labels: [],
  },
  configReloads: {
    suffix: "exporter_config_reloads_total",
    type: "counter",
    help: "Configuration loads by result.",
    labels: ["result"],
  },
  configHash: {
    suffix: "exporter_config_hash",
    type: "gauge",
    help: "1, labelled with the sha256 prefix of the configuration in force.",
    labels: ["hash"],
  },
  buildInfo: {
    suffix: "exporter_build_info",
    type: "gauge",
    help: "1, labelled with the exporter and Node.js versions.",
    labels: ["version", "node_version"],
  },
  scrapeDuration: {
    suffix: "exporter_scrape_duration_seconds",
    type: "histogram",
    help: "Time to write one /metrics response.",
    labels: [],
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
  },
  shards: {
    suffix: "exporter_shards",
    type: "gauge",
    help: "The number of shards the objects are split into, labelled with this process's shard (0 of 1 unsharded).",
    labels: ["shard"],
  },
  statusUpdateRequests: {
    suffix: "status_update_requests_total",
    type: "counter",
    help: "Writes to a /status subresource, by HTTP response code.",
    labels: ["group", "kind", "namespace", "verb", "code", "source"],
  },
  statusUpdateFailures: {
    suffix: "status_update_failures_total",
    type: "counter",
    help: "Failed status writes by reason.",
    labels: ["group", "kind", "namespace", "reason", "source"],
  },
  statusUpdateRequestDuration: {
    suffix: "status_update_request_duration_seconds",
    type: "histogram",
    help: "Latency of status writes.",
    labels: ["group", "kind", "verb", "source"],
    buckets: statusWriteDurationBuckets,
  },
  statusUpdateRequestsByUser: {
    suffix: "status_update_requests_by_user_total",
    type: "counter",
    help: "Writes to a /status subresource seen by the audit receiver, by writer identity and HTTP response code.",
    labels: ["user", "group", "kind", "code"],
  },
  statusUpdateLabelsFolded: {
    suffix: "status_update_labels_folded_total",
    type: "counter",
    help: 'Status writes counted with a label folded into "other", by label and cause (unconfirmed by the apiserver, or over the series budget).',
    labels: ["source", "label", "cause"],
  },
  apiProxyUp: {
    suffix: "exporter_api_proxy_up",
    type: "gauge",
    help: "1 when this scrape read the status-write counters of the API proxy process, 0 when it did not answer (restarting or stopped: the values of its last answer are shown).",
    labels: [],
  },
  processRestarts: {
    suffix: "exporter_process_restarts_total",
    type: "counter",
    help: "Times the supervisor restarted the exporter or the API proxy process since the container started.",
    labels: ["process"],
  },
  tracingLeader: {
    suffix: "exporter_tracing_leader",
    type: "gauge",
    help: "1 when this replica exports spans (it holds the tracing Lease, or no Lease is configured), else 0.",
    labels: [],
  },
  tracingOpenEpisodes: {
    suffix: "exporter_tracing_open_episodes",
    type: "gauge",
    help: "Objects with an open root span: a generation not yet reconciled, or a degraded interval.",
    labels: [],
  },
  tracingSpansEmitted: {
    suffix: "exporter_tracing_spans_emitted_total",
    type: "counter",
    help: "Spans handed to the OpenTelemetry SDK for export.",
    labels: [],
  },
  tracingSpansDeduplicated: {
    suffix: "exporter_tracing_spans_deduplicated_total",
    type: "counter",
    help: "Spans not emitted because this process had emitted them already (relists, replays).",
    labels: [],
  },
  tracingSpansExportFailed: {
    suffix: "exporter_tracing_spans_export_failed_total",
    type: "counter",
    help: "Spans the OTLP exporter could not deliver.",
    labels: [],
  },
  tracingTraceContextMalformed: {
    suffix: "exporter_tracing_trace_context_malformed_total",
    type: "counter",
    help: "Trace-context annotations that were not a valid W3C traceparent (ignored; counted once per generation).",
    labels: [],
  },
  otlpMetricsExports: {
    suffix: "exporter_otlp_metrics_exports_total",
    type: "counter",
    help: "OTLP metrics exports by result: success (every request of the export accepted), failure (a request refused or not answered after its retries; the rest of that export is dropped, the next reads the store again), skipped (another replica holds the Lease).",
    labels: ["result"],
  },
  otlpMetricsLastSuccess: {
    suffix: "exporter_otlp_metrics_last_success_timestamp_seconds",
    type: "gauge",
    help: "When the last OTLP metrics export that succeeded ended; 0 before the first.",
    labels: [],
  },
} as const satisfies Record<string, ExporterFamilySpec>;

export type ExporterFamilyKey = keyof typeof exporterSpecs;
/** The label names of one exporter family. */
export type ExporterLabels<K extends ExporterFamilyKey> = (typeof exporterSpecs)[K]["labels"][number];

export interface ExporterFamily extends ExporterFamilySpec {
  key: ExporterFamilyKey;
}

export const exporterFamilies: Readonly<Record<ExporterFamilyKey, ExporterFamily>> = Object.fromEntries(
  Object.entries(exporterSpecs).map(([key, spec]) => [key, { ...(spec as ExporterFamilySpec), key }]),
) as Record<ExporterFamilyKey, ExporterFamily>;

/** Every exporter family's name without the prefix, by key. */
export const fixedFamilySuffixes = Object.fromEntries(
  Object.entries(exporterSpecs).map(([key, spec]) => [key, spec.suffix]),
) as { readonly [K in ExporterFamilyKey]: (typeof exporterSpecs)[K]["suffix"] };
