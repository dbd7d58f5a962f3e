// "CR Status / Exporter": is the exporter seeing everything it should
// (sync, watch errors, staleness), how many series it makes, what it costs.
import { metricNames } from "../../src/core/series/catalog.ts";
import { buildDashboard, type Dashboard } from "./layout.ts";
import type { DashboardOptions } from "./options.ts";
import {
  instant,
  type PanelBasics,
  query,
  RED_FROM_ONE,
  statPanel,
  steps,
  timeseriesPanel,
  valueMapping,
} from "./panels.ts";
import {
  clusterVariable,
  EXPORTER,
  EXPORTER_KIND,
  jobVariable,
  kindVariable,
  prometheusVariable,
} from "./variables.ts";

export const EXPORTER_UID = "cr-status-exporter";

/** A time series panel of one query. */
function series(spec: Omit<PanelBasics, "h">, expr: string, legend: string) {
  return timeseriesPanel({ ...spec, h: 8 }).withTarget(query(expr, legend));
}

export function exporterDashboard(options: DashboardOptions): Dashboard {
  const n = metricNames(options.metricPrefix);
  const summary = (title: string, description: string, unit: string, expr: string) =>
    statPanel({ title, description, unit, w: 6, h: 4 }).withTarget(instant(expr));
  return buildDashboard({
    uid: EXPORTER_UID,
    title: "CR Status / Exporter",
    description:
      "Health of the cr-status-exporter itself: targets, watch sync, errors, series and resource use.",
    variables: [
      prometheusVariable(),
      clusterVariable(options, n.resourceSynced),
      jobVariable(n.resourceSynced),
      kindVariable(n.resourceSynced, 'cluster=~"$cluster", job=~"$job"'),
    ],
    rows: [
      {
        title: "Summary",
        panels: [
          summary(
            "Targets up",
            "Exporter targets Prometheus scrapes successfully.",
            "short",
            `sum(up{${EXPORTER}})`,
          ).thresholds(steps(["red", null], ["green", 1])),
          summary(
            "Resources not synced",
            "Watched resource types whose initial list has not finished or that are relisting.",
            "short",
            `count(${n.resourceSynced}{${EXPORTER_KIND}} == 0) or vector(0)`,
          ).thresholds(RED_FROM_ONE),
          summary(
            "Configuration",
            "Whether the last configuration load succeeded on every replica.",
            "none",
            `min(${n.configReloadSuccess}{${EXPORTER}})`,
          )
            .thresholds(steps(["green", null]))
            .mappings([
              valueMapping([
                ["1", "Loaded", "green"],
                ["0", "Rejected", "red"],
              ]),
            ]),
          summary(
            "Series exported",
            "Per-object series currently exported, over all watched resources.",
            "short",
            `sum(max by (cluster, group, version, kind) (${n.resourceSeries}{${EXPORTER_KIND}}))`,
          ).thresholds(steps(["green", null])),
        ],
      },
      {
        title: "Sync",
        panels: [
          series(
            {
              title: "Synced",
              description:
                "1 when the resource's initial list finished and its watch runs, 0 otherwise (worst replica).",
              unit: "short",
              w: 8,
            },
            `min by (group, version, kind) (${n.resourceSynced}{${EXPORTER_KIND}})`,
            "{{kind}}",
          )
            .min(0)
            .max(1),
          series(
            {
              title: "Age of the data",
              description:
                "Seconds since each resource's data was last confirmed current (list, watch start, event or bookmark). A healthy watch stays under 60 s; above 75 s the exporter restarts the watch and the resource is not ready: its metrics are frozen.",
              unit: "s",
              w: 8,
            },
            `time() - min by (group, version, kind) (${n.dataTimestamp}{${EXPORTER_KIND}})`,
            "{{kind}}",
          ),
          series(
            {
              title: "Watch errors",
              description:
                "Failed list and watch requests, by resource, operation and HTTP code (0: network or timeout). Resources without errors show a flat 0.",
              unit: "ops",
              w: 8,
            },
            `sum by (kind, operation, code) (rate(${n.watchErrors}{${EXPORTER_KIND}}[$__rate_interval])) or sum by (kind) (rate(${n.watchEvents}{${EXPORTER_KIND}}[$__rate_interval])) * 0`,
            "{{kind}} {{operation}} {{code}}",
          ),
          series(
            {
              title: "Watch events",
              description: "Watch events received, by resource and event type.",
              unit: "ops",
              w: 8,
            },
            `sum by (kind, type) (rate(${n.watchEvents}{${EXPORTER_KIND}}[$__rate_interval]))`,
            "{{kind}} {{type}}",
          ),
          series(
            {
              title: "Relists",
              description: "Full relists, by resource and reason (initial, expired, error).",
              unit: "ops",
              w: 8,
            },
            `sum by (kind, reason) (rate(${n.relists}{${EXPORTER_KIND}}[$__rate_interval]))`,
            "{{kind}} {{reason}}",
          ),
          series(
            {
              title: "List duration (p90)",
              description: "90th percentile duration of full (paginated) lists, per resource.",
              unit: "s",
              w: 8,
            },
            `histogram_quantile(0.9, sum by (kind, le) (rate(${n.listDuration}_bucket{${EXPORTER_KIND}}[$__rate_interval])))`,
            "{{kind}}",
          ),
        ],
      },
      {
        title: "Objects and series",
        panels: [
          series(
            {
              title: "Objects held",
              description: "Objects currently held in memory, per resource.",
              unit: "short",
              w: 6,
            },
            `max by (group, version, kind) (${n.resourceObjects}{${EXPORTER_KIND}})`,
            "{{kind}}",
          ),
          series(
            {
              title: "Series per resource",
              description: "Per-object series currently exported, per resource.",
              unit: "short",
              w: 6,
            },
            `max by (group, version, kind) (${n.resourceSeries}{${EXPORTER_KIND}})`,
            "{{kind}}",
          ),
          series(
            {
              title: "Series dropped",
              description: "Series not exported because the resource hit its maxSeries cap.",
              unit: "ops",
              w: 6,
            },
            `sum by (kind) (rate(${n.seriesDropped}{${EXPORTER_KIND}}[$__rate_interval]))`,
            "{{kind}}",
          ),
          series(
            {
              title: "Malformed objects",
              description: "Objects that could not be projected into metrics (skipped), per resource.",
              unit: "ops",
              w: 6,
            },
            `sum by (kind) (rate(${n.handlerErrors}{${EXPORTER_KIND}}[$__rate_interval]))`,
            "{{kind}}",
          ),
        ],
      },
      {
        title: "Scrape and process",
        panels: [
          series(
            {
              title: "Scrape duration",
              description: "How long Prometheus takes to scrape each exporter target.",
              unit: "s",
              w: 8,
            },
            `max by (instance) (scrape_duration_seconds{${EXPORTER}})`,
            "{{instance}}",
          ),
          series(
            {
              title: "Samples per scrape",
              description: "Samples in each scrape of each exporter target: the size of /metrics.",
              unit: "short",
              w: 8,
            },
            `max by (instance) (scrape_samples_scraped{${EXPORTER}})`,
            "{{instance}}",
          ),
          series(
            {
              title: "/metrics render time (p90)",
              description: "90th percentile time the exporter takes to write one /metrics response.",
              unit: "s",
              w: 8,
            },
            `histogram_quantile(0.9, sum by (instance, le) (rate(${n.scrapeDuration}_bucket{${EXPORTER}}[$__rate_interval])))`,
            "{{instance}}",
          ),
          series(
            {
              title: "CPU",
              description: "CPU time used per second by each exporter process (1 = one core).",
              unit: "short",
              w: 8,
            },
            `sum by (instance) (rate(process_cpu_seconds_total{${EXPORTER}}[$__rate_interval]))`,
            "{{instance}}",
          ),
          series(
            {
              title: "Memory",
              description: "Resident memory of each exporter process.",
              unit: "bytes",
              w: 8,
            },
            `max by (instance) (process_resident_memory_bytes{${EXPORTER}})`,
            "{{instance}}",
          ),
          series(
            {
              title: "Event loop lag (p99)",
              description:
                "99th percentile Node.js event-loop delay of each exporter process; high values delay watch handling and scrapes.",
              unit: "s",
              w: 8,
            },
            `max by (instance) (nodejs_eventloop_lag_p99_seconds{${EXPORTER}})`,
            "{{instance}}",
          ),
        ],
      },
    ],
  });
}
