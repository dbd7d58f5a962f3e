// The exporter's own metrics and the per-kind histograms, kept in a
// @prometheus-io/client Registry (never the global one) and written after the
// per-object families on /metrics.
import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from "@prometheus-io/client";

export const resourceLabels = ["group", "version", "kind"] as const;

export interface SelfMetrics {
  registry: Registry;
  synced: Gauge<"group" | "version" | "kind">;
  objects: Gauge<"group" | "version" | "kind">;
  series: Gauge<"group" | "version" | "kind">;
  watchEvents: Counter<"group" | "version" | "kind" | "type">;
  watchErrors: Counter<"group" | "version" | "kind" | "operation" | "code">;
  relists: Counter<"group" | "version" | "kind" | "reason">;
  listDuration: Histogram<"group" | "version" | "kind">;
  lastEvent: Gauge<"group" | "version" | "kind">;
  lastSync: Gauge<"group" | "version" | "kind">;
  handlerErrors: Counter<"group" | "version" | "kind">;
  seriesDropped: Counter<"group" | "version" | "kind">;
  configReloadSuccess: Gauge;
  configReloads: Counter<"result">;
  configHash: Gauge<"hash">;
  buildInfo: Gauge<"version" | "node_version">;
  scrapeDuration: Histogram;
  conditionStateDuration: Histogram<"group" | "kind" | "type" | "status">;
  reconcileDuration: Histogram<"group" | "kind">;
  timeToReady: Histogram<"group" | "kind">;
  illegalPhaseTransitions: Counter<"group" | "kind" | "namespace" | "from" | "to">;
}

/** Buckets for durations of minutes to days: reconciles and condition states. */
const longDurationBuckets = [1, 5, 15, 30, 60, 120, 300, 600, 1800, 3600, 7200, 21600, 86400];

export function createSelfMetrics(prefix: string, version: string): SelfMetrics {
  // Created as OpenMetrics so histograms may carry exemplars; the writer switches
  // the format per scrape.
  const registry = new Registry(Registry.OPENMETRICS_CONTENT_TYPE);
  const p = (name: string): string => `${prefix}${name}`;
  const r = [...resourceLabels];
  const metrics: SelfMetrics = {
    registry,
    synced: new Gauge({
      name: p("exporter_resource_synced"),
      help: "1 once the initial list finished and the watch is running.",
      labelNames: r,
      registers: [registry],
    }),
    objects: new Gauge({
      name: p("exporter_resource_objects"),
      help: "Objects currently held.",
      labelNames: r,
      registers: [registry],
    }),
    series: new Gauge({
      name: p("exporter_resource_series"),
      help: "Per-object series currently exported.",
      labelNames: r,
      registers: [registry],
    }),
    watchEvents: new Counter({
      name: p("exporter_watch_events_total"),
      help: "Watch events received, by type.",
      labelNames: [...r, "type"],
      registers: [registry],
    }),
    watchErrors: new Counter({
      name: p("exporter_watch_errors_total"),
      help: "Failed list or watch requests, by operation and HTTP code (0: network error or timeout).",
      labelNames: [...r, "operation", "code"],
      registers: [registry],
    }),
    relists: new Counter({
      name: p("exporter_relists_total"),
      help: "Full relists, by reason.",
      labelNames: [...r, "reason"],
      registers: [registry],
    }),
    listDuration: new Histogram({
      name: p("exporter_list_duration_seconds"),
      help: "Duration of full (paginated) lists.",
      labelNames: r,
      buckets: [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120],
      registers: [registry],
    }),
    lastEvent: new Gauge({
      name: p("exporter_last_event_timestamp_seconds"),
      help: "When the last watch event arrived.",
      labelNames: r,
      registers: [registry],
    }),
    lastSync: new Gauge({
      name: p("exporter_last_sync_timestamp_seconds"),
      help: "When the last full list finished.",
      labelNames: r,
      registers: [registry],
    }),
    handlerErrors: new Counter({
      name: p("exporter_handler_errors_total"),
      help: "Objects that could not be projected; they are skipped.",
      labelNames: r,
      registers: [registry],
    }),
    seriesDropped: new Counter({
      name: p("exporter_series_dropped_total"),
      help: "Per-object series not exported because the resource hit its maxSeries cap.",
      labelNames: r,
      registers: [registry],
    }),
    configReloadSuccess: new Gauge({
      name: p("exporter_config_reload_success"),
      help: "1 if the last configuration load succeeded.",
      registers: [registry],
    }),
    configReloads: new Counter({
      name: p("exporter_config_reloads_total"),
      help: "Configuration loads by result.",
      labelNames: ["result"],
      registers: [registry],
    }),
    configHash: new Gauge({
      name: p("exporter_config_hash"),
      help: "1, labelled with the sha256 prefix of the configuration in force.",
      labelNames: ["hash"],
      registers: [registry],
    }),
    buildInfo: new Gauge({
      name: p("exporter_build_info"),
      help: "1, labelled with the exporter and Node.js versions.",
      labelNames: ["version", "node_version"],
      registers: [registry],
    }),
    scrapeDuration: new Histogram({
      name: p("exporter_scrape_duration_seconds"),
      help: "Time to write one /metrics response.",
      buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
      registers: [registry],
    }),
    conditionStateDuration: new Histogram({
      name: p("condition_state_duration_seconds"),
      help: "How long a condition held a status before it changed (status = the one it left).",
      labelNames: ["group", "kind", "type", "status"],
      buckets: longDurationBuckets,
      registers: [registry],
    }),
    reconcileDuration: new Histogram({
      name: p("reconcile_duration_seconds"),
      help: "From a spec generation bump to observedGeneration caught up with Ready=True.",
      labelNames: ["group", "kind"],
      buckets: longDurationBuckets,
      enableExemplars: true,
      registers: [registry],
    }),
    timeToReady: new Histogram({
      name: p("time_to_ready_seconds"),
      help: "From creation to the first Ready=True.",
      labelNames: ["group", "kind"],
      buckets: longDurationBuckets,
      registers: [registry],
    }),
    illegalPhaseTransitions: new Counter({
      name: p("phase_illegal_transitions_total"),
      help: "Phase changes that the configured phaseTransitions table does not allow.",
      labelNames: ["group", "kind", "namespace", "from", "to"],
      registers: [registry],
    }),
  };
  metrics.buildInfo.set({ version, node_version: process.version }, 1);
  collectDefaultMetrics({ register: registry });
  return metrics;
}
