// The exporter's own metrics and the per-kind histograms fed by object
// changes, kept in a @prometheus-io/client Registry (never the global one)
// and written after the per-object families on /metrics. Names, help and
// labels come from the catalog (src/core/series/catalog.ts).
import { Counter, type Gauge, Histogram, Registry } from "@prometheus-io/client";
import { type ExporterLabels, perKindFamilies } from "../core/series/catalog.ts";
import { ExporterFamilies } from "./families.ts";
import { registerProcessMetrics } from "./process-metrics.ts";

/** Histograms and counters per kind, fed by object changes (selectable per resource, see the catalog). */
export interface KindMetrics {
  conditionStateDuration: Histogram<"group" | "kind" | "type" | "status">;
  reconcileDuration: Histogram<"group" | "kind">;
  timeToReady: Histogram<"group" | "kind">;
  phaseIllegalTransitions: Counter<"group" | "kind" | "namespace" | "from" | "to">;
  warningEvents: Counter<"group" | "kind" | "namespace" | "reason">;
}

/** The exporter's own metrics, typed by their catalog entries' labels. */
export interface SelfMetrics {
  registry: Registry;
  synced: Gauge<ExporterLabels<"resourceSynced">>;
  objects: Gauge<ExporterLabels<"resourceObjects">>;
  series: Gauge<ExporterLabels<"resourceSeries">>;
  shardFilter: Gauge<ExporterLabels<"resourceShardFilter">>;
  resourceInfo: Gauge<ExporterLabels<"resourceInfo">>;
  valueCandidate: Gauge<ExporterLabels<"valueCandidate">>;
  watchEvents: Counter<ExporterLabels<"watchEvents">>;
  watchErrors: Counter<ExporterLabels<"watchErrors">>;
  relists: Counter<ExporterLabels<"relists">>;
  listDuration: Histogram<ExporterLabels<"listDuration">>;
  lastEvent: Gauge<ExporterLabels<"lastEvent">>;
  lastSync: Gauge<ExporterLabels<"lastSync">>;
  dataTimestamp: Gauge<ExporterLabels<"dataTimestamp">>;
  handlerErrors: Counter<ExporterLabels<"handlerErrors">>;
  seriesDropped: Counter<ExporterLabels<"seriesDropped">>;
  labelValuesTruncated: Counter<ExporterLabels<"labelValuesTruncated">>;
  conditionsDropped: Counter<ExporterLabels<"conditionsDropped">>;
  valuesUnreadable: Counter<ExporterLabels<"valuesUnreadable">>;
  celErrors: Counter<ExporterLabels<"celErrors">>;
  configReloadSuccess: Gauge<ExporterLabels<"configReloadSuccess">>;
  configReloads: Counter<ExporterLabels<"configReloads">>;
  configHash: Gauge<ExporterLabels<"configHash">>;
  buildInfo: Gauge<ExporterLabels<"buildInfo">>;
  scrapeDuration: Histogram<ExporterLabels<"scrapeDuration">>;
  shards: Gauge<ExporterLabels<"shards">>;
  kinds: KindMetrics;
}

/** Buckets for durations of minutes to days: reconciles and condition states. */
const longDurationBuckets = [1, 5, 15, 30, 60, 120, 300, 600, 1800, 3600, 7200, 21600, 86400];

function kindMetrics(registry: Registry, prefix: string): KindMetrics {
  const spec = Object.fromEntries(perKindFamilies.map((f) => [f.key, f]));
  const histogram = <L extends string>(key: string, exemplars = false): Histogram<L> => {
    const f = spec[key] as (typeof perKindFamilies)[number];
    return new Histogram<L>({
      name: prefix + f.suffix,
      help: f.help,
      labelNames: f.labels as L[],
      buckets: longDurationBuckets,
      enableExemplars: exemplars,
      registers: [registry],
    });
  };
  const counter = <L extends string>(key: string): Counter<L> => {
    const f = spec[key] as (typeof perKindFamilies)[number];
    return new Counter<L>({
      name: prefix + f.suffix,
      help: f.help,
      labelNames: f.labels as L[],
      registers: [registry],
    });
  };
  return {
    conditionStateDuration: histogram("conditionStateDuration"),
    reconcileDuration: histogram("reconcileDuration", true),
    timeToReady: histogram("timeToReady"),
    phaseIllegalTransitions: counter("phaseIllegalTransitions"),
    warningEvents: counter("warningEvents"),
  };
}

export function createSelfMetrics(prefix: string, version: string): SelfMetrics {
  // Created as OpenMetrics so histograms may carry exemplars; the writer switches
  // the format per scrape.
  const registry = new Registry(Registry.OPENMETRICS_CONTENT_TYPE);
  const f = new ExporterFamilies(registry, prefix);
  const metrics: SelfMetrics = {
    registry,
    synced: f.gauge("resourceSynced"),
    objects: f.gauge("resourceObjects"),
    series: f.gauge("resourceSeries"),
    shardFilter: f.gauge("resourceShardFilter"),
    resourceInfo: f.gauge("resourceInfo"),
    valueCandidate: f.gauge("valueCandidate"),
    watchEvents: f.counter("watchEvents"),
    watchErrors: f.counter("watchErrors"),
    relists: f.counter("relists"),
    listDuration: f.histogram("listDuration"),
    lastEvent: f.gauge("lastEvent"),
    lastSync: f.gauge("lastSync"),
    dataTimestamp: f.gauge("dataTimestamp"),
    handlerErrors: f.counter("handlerErrors"),
    seriesDropped: f.counter("seriesDropped"),
    labelValuesTruncated: f.counter("labelValuesTruncated"),
    conditionsDropped: f.counter("conditionsDropped"),
    valuesUnreadable: f.counter("valuesUnreadable"),
    celErrors: f.counter("celErrors"),
    configReloadSuccess: f.gauge("configReloadSuccess"),
    configReloads: f.counter("configReloads"),
    configHash: f.gauge("configHash"),
    buildInfo: f.gauge("buildInfo"),
    scrapeDuration: f.histogram("scrapeDuration"),
    shards: f.gauge("shards"),
    kinds: kindMetrics(registry, prefix),
  };
  metrics.buildInfo.set({ version, node_version: process.version }, 1);
  registerProcessMetrics(registry);
  return metrics;
}
