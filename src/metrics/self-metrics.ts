// The exporter's own metrics and the per-kind histograms fed by object
// changes, kept in a @prometheus-io/client Registry (never the global one)
// and written after the per-object families on /metrics. Names come from the
// catalog (src/core/catalog.ts).
import { Counter, Gauge, Histogram, Registry } from "@prometheus-io/client";
import { fixedFamilySuffixes as fixed, perKindFamilies } from "../core/catalog.ts";
import { registerProcessMetrics } from "./process-metrics.ts";

export const resourceLabels = ["group", "version", "kind"] as const;
type ResourceLabel = (typeof resourceLabels)[number];

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

/** Histograms and counters per kind, fed by object changes (selectable per resource, see the catalog). */
export interface KindMetrics {
  conditionStateDuration: Histogram<"group" | "kind" | "type" | "status">;
  reconcileDuration: Histogram<"group" | "kind">;
  timeToReady: Histogram<"group" | "kind">;
  phaseIllegalTransitions: Counter<"group" | "kind" | "namespace" | "from" | "to">;
}

export interface SelfMetrics {
  registry: Registry;
  synced: Gauge<ResourceLabel>;
  objects: Gauge<ResourceLabel>;
  series: Gauge<ResourceLabel>;
  resourceInfo: Gauge<(typeof resourceInfoLabels)[number]>;
  watchEvents: Counter<ResourceLabel | "type">;
  watchErrors: Counter<ResourceLabel | "operation" | "code">;
  relists: Counter<ResourceLabel | "reason">;
  listDuration: Histogram<ResourceLabel>;
  lastEvent: Gauge<ResourceLabel>;
  lastSync: Gauge<ResourceLabel>;
  dataTimestamp: Gauge<ResourceLabel>;
  handlerErrors: Counter<ResourceLabel>;
  seriesDropped: Counter<ResourceLabel>;
  labelValuesTruncated: Counter<ResourceLabel>;
  conditionsDropped: Counter<ResourceLabel>;
  configReloadSuccess: Gauge;
  configReloads: Counter<"result">;
  configHash: Gauge<"hash">;
  buildInfo: Gauge<"version" | "node_version">;
  scrapeDuration: Histogram;
  shards: Gauge<"shard">;
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
  const illegal = spec.phaseIllegalTransitions as (typeof perKindFamilies)[number];
  return {
    conditionStateDuration: histogram("conditionStateDuration"),
    reconcileDuration: histogram("reconcileDuration", true),
    timeToReady: histogram("timeToReady"),
    phaseIllegalTransitions: new Counter({
      name: prefix + illegal.suffix,
      help: illegal.help,
      labelNames: ["group", "kind", "namespace", "from", "to"],
      registers: [registry],
    }),
  };
}

// biome-ignore lint/complexity/noExcessiveLinesPerFunction: the self-metric families declared as one literal
export function createSelfMetrics(prefix: string, version: string): SelfMetrics {
  // Created as OpenMetrics so histograms may carry exemplars; the writer switches
  // the format per scrape.
  const registry = new Registry(Registry.OPENMETRICS_CONTENT_TYPE);
  const registers = [registry];
  const r = [...resourceLabels];
  const gauge = <L extends string>(suffix: string, help: string, labelNames: readonly L[] = []): Gauge<L> =>
    new Gauge<L>({ name: prefix + suffix, help, labelNames, registers });
  const counter = <L extends string>(
    suffix: string,
    help: string,
    labelNames: readonly L[] = [],
  ): Counter<L> => new Counter<L>({ name: prefix + suffix, help, labelNames, registers });
  const metrics: SelfMetrics = {
    registry,
    synced: gauge(fixed.resourceSynced, "1 once the initial list finished and the watch is running.", r),
    objects: gauge(fixed.resourceObjects, "Objects currently held.", r),
    series: gauge(fixed.resourceSeries, "Per-object series currently exported.", r),
    resourceInfo: gauge(
      fixed.resourceInfo,
      "1 per watched resource, labelled with how its objects are read.",
      resourceInfoLabels,
    ),
    watchEvents: counter(fixed.watchEvents, "Watch events received, by type.", [...r, "type"]),
    watchErrors: counter(
      fixed.watchErrors,
      "Failed list or watch requests, by operation and HTTP code (0: network error or timeout).",
      [...r, "operation", "code"],
    ),
    relists: counter(fixed.relists, "Full relists, by reason.", [...r, "reason"]),
    listDuration: new Histogram({
      name: prefix + fixed.listDuration,
      help: "Duration of full (paginated) lists.",
      labelNames: r,
      buckets: [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120],
      registers,
    }),
    lastEvent: gauge(
      fixed.lastEvent,
      "When the last watch event arrived (bookmarks included); 0 before the first.",
      r,
    ),
    lastSync: gauge(fixed.lastSync, "When the last full list finished.", r),
    dataTimestamp: gauge(
      fixed.dataTimestamp,
      "When the resource's data was last confirmed current (a list, a watch opened, an event or bookmark); 0 before the first list.",
      r,
    ),
    handlerErrors: counter(fixed.handlerErrors, "Objects that could not be projected; they are skipped.", r),
    seriesDropped: counter(
      fixed.seriesDropped,
      "Per-object series not exported because the resource hit its maxSeries cap.",
      r,
    ),
    labelValuesTruncated: counter(
      fixed.labelValuesTruncated,
      "Label values (phase, condition type or reason, extra labels) cut to the length cap, per object version read.",
      r,
    ),
    conditionsDropped: counter(
      fixed.conditionsDropped,
      "Conditions past the per-object cap, not exported, per object version read.",
      r,
    ),
    configReloadSuccess: gauge(fixed.configReloadSuccess, "1 if the last configuration load succeeded."),
    configReloads: counter(fixed.configReloads, "Configuration loads by result.", ["result"]),
    configHash: gauge(fixed.configHash, "1, labelled with the sha256 prefix of the configuration in force.", [
      "hash",
    ]),
    buildInfo: gauge(fixed.buildInfo, "1, labelled with the exporter and Node.js versions.", [
      "version",
      "node_version",
    ]),
    scrapeDuration: new Histogram({
      name: prefix + fixed.scrapeDuration,
      help: "Time to write one /metrics response.",
      buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5],
      registers,
    }),
    shards: gauge(
      fixed.shards,
      "The number of shards the objects are split into, labelled with this process's shard (0 of 1 unsharded).",
      ["shard"],
    ),
    kinds: kindMetrics(registry, prefix),
  };
  metrics.buildInfo.set({ version, node_version: process.version }, 1);
  registerProcessMetrics(registry);
  return metrics;
}
