// "CR Status / Exporter": is the exporter seeing everything it should
// (sync, watch errors, staleness), how many series it makes, what it costs.
import { metricNames } from "../../src/core/catalog.ts";
import { dashboard, valueMapping } from "./build.ts";
import type { Dashboard } from "./model.ts";
import {
  clusterVariable,
  type DashboardOptions,
  datasourceVariable,
  EXPORTER,
  EXPORTER_KIND,
  jobVariable,
  kindVariable,
} from "./variables.ts";

export const EXPORTER_UID = "cr-status-exporter";

const stat = { reduceOptions: { calcs: ["lastNotNull"], fields: "", values: false }, colorMode: "value" };

export function exporterDashboard(options: DashboardOptions): Dashboard {
  const n = metricNames(options.metricPrefix);
  return dashboard({
    uid: EXPORTER_UID,
    title: "CR Status / Exporter",
    description:
      "Health of the cr-status-exporter itself: targets, watch sync, errors, series and resource use.",
    variables: [
      datasourceVariable,
      clusterVariable(options, n.resourceSynced),
      jobVariable(n.resourceSynced),
      kindVariable(n.resourceSynced, 'cluster=~"$cluster", job=~"$job"'),
    ],
    rows: [
      {
        title: "Summary",
        panels: [
          {
            type: "stat",
            title: "Targets up",
            description: "Exporter targets Prometheus scrapes successfully.",
            unit: "short",
            w: 6,
            h: 4,
            targets: [{ expr: `sum(up{${EXPORTER}})`, instant: true }],
            thresholds: [
              { color: "red", value: null },
              { color: "green", value: 1 },
            ],
            options: stat,
          },
          {
            type: "stat",
            title: "Resources not synced",
            description: "Watched resource types whose initial list has not finished or that are relisting.",
            unit: "short",
            w: 6,
            h: 4,
            targets: [
              {
                expr: `count(${n.resourceSynced}{${EXPORTER_KIND}} == 0) or vector(0)`,
                instant: true,
              },
            ],
            thresholds: [
              { color: "green", value: null },
              { color: "red", value: 1 },
            ],
            options: stat,
          },
          {
            type: "stat",
            title: "Configuration",
            description: "Whether the last configuration load succeeded on every replica.",
            unit: "none",
            w: 6,
            h: 4,
            targets: [{ expr: `min(${n.configReloadSuccess}{${EXPORTER}})`, instant: true }],
            mappings: [
              valueMapping([
                ["1", "Loaded", "green"],
                ["0", "Rejected", "red"],
              ]),
            ],
            options: stat,
          },
          {
            type: "stat",
            title: "Series exported",
            description: "Per-object series currently exported, over all watched resources.",
            unit: "short",
            w: 6,
            h: 4,
            targets: [
              {
                expr: `sum(max by (cluster, group, version, kind) (${n.resourceSeries}{${EXPORTER_KIND}}))`,
                instant: true,
              },
            ],
            options: stat,
          },
        ],
      },
      {
        title: "Sync",
        panels: [
          {
            type: "timeseries",
            title: "Synced",
            description:
              "1 when the resource's initial list finished and its watch runs, 0 otherwise (worst replica).",
            unit: "short",
            w: 8,
            h: 8,
            min: 0,
            max: 1,
            targets: [
              {
                expr: `min by (group, version, kind) (${n.resourceSynced}{${EXPORTER_KIND}})`,
                legend: "{{kind}}",
              },
            ],
          },
          {
            type: "timeseries",
            title: "Age of the data",
            description:
              "Seconds since each resource's data was last confirmed current (list, watch start, event or bookmark). A healthy watch stays under 60 s; above 75 s the exporter restarts the watch and the resource is not ready: its metrics are frozen.",
            unit: "s",
            w: 8,
            h: 8,
            targets: [
              {
                expr: `time() - min by (group, version, kind) (${n.dataTimestamp}{${EXPORTER_KIND}})`,
                legend: "{{kind}}",
              },
            ],
          },
          {
            type: "timeseries",
            title: "Watch errors",
            description:
              "Failed list and watch requests, by resource, operation and HTTP code (0: network or timeout). Resources without errors show a flat 0.",
            unit: "ops",
            w: 8,
            h: 8,
            targets: [
              {
                expr: `sum by (kind, operation, code) (rate(${n.watchErrors}{${EXPORTER_KIND}}[$__rate_interval])) or sum by (kind) (rate(${n.watchEvents}{${EXPORTER_KIND}}[$__rate_interval])) * 0`,
                legend: "{{kind}} {{operation}} {{code}}",
              },
            ],
          },
          {
            type: "timeseries",
            title: "Watch events",
            description: "Watch events received, by resource and event type.",
            unit: "ops",
            w: 8,
            h: 8,
            targets: [
              {
                expr: `sum by (kind, type) (rate(${n.watchEvents}{${EXPORTER_KIND}}[$__rate_interval]))`,
                legend: "{{kind}} {{type}}",
              },
            ],
          },
          {
            type: "timeseries",
            title: "Relists",
            description: "Full relists, by resource and reason (initial, expired, error).",
            unit: "ops",
            w: 8,
            h: 8,
            targets: [
              {
                expr: `sum by (kind, reason) (rate(${n.relists}{${EXPORTER_KIND}}[$__rate_interval]))`,
                legend: "{{kind}} {{reason}}",
              },
            ],
          },
          {
            type: "timeseries",
            title: "List duration (p90)",
            description: "90th percentile duration of full (paginated) lists, per resource.",
            unit: "s",
            w: 8,
            h: 8,
            targets: [
              {
                expr: `histogram_quantile(0.9, sum by (kind, le) (rate(${n.listDuration}_bucket{${EXPORTER_KIND}}[$__rate_interval])))`,
                legend: "{{kind}}",
              },
            ],
          },
        ],
      },
      {
        title: "Objects and series",
        panels: [
          {
            type: "timeseries",
            title: "Objects held",
            description: "Objects currently held in memory, per resource.",
            unit: "short",
            w: 6,
            h: 8,
            targets: [
              {
                expr: `max by (group, version, kind) (${n.resourceObjects}{${EXPORTER_KIND}})`,
                legend: "{{kind}}",
              },
            ],
          },
          {
            type: "timeseries",
            title: "Series per resource",
            description: "Per-object series currently exported, per resource.",
            unit: "short",
            w: 6,
            h: 8,
            targets: [
              {
                expr: `max by (group, version, kind) (${n.resourceSeries}{${EXPORTER_KIND}})`,
                legend: "{{kind}}",
              },
            ],
          },
          {
            type: "timeseries",
            title: "Series dropped",
            description: "Series not exported because the resource hit its maxSeries cap.",
            unit: "ops",
            w: 6,
            h: 8,
            targets: [
              {
                expr: `sum by (kind) (rate(${n.seriesDropped}{${EXPORTER_KIND}}[$__rate_interval]))`,
                legend: "{{kind}}",
              },
            ],
          },
          {
            type: "timeseries",
            title: "Malformed objects",
            description: "Objects that could not be projected into metrics (skipped), per resource.",
            unit: "ops",
            w: 6,
            h: 8,
            targets: [
              {
                expr: `sum by (kind) (rate(${n.handlerErrors}{${EXPORTER_KIND}}[$__rate_interval]))`,
                legend: "{{kind}}",
              },
            ],
          },
        ],
      },
      {
        title: "Scrape and process",
        panels: [
          {
            type: "timeseries",
            title: "Scrape duration",
            description: "How long Prometheus takes to scrape each exporter target.",
            unit: "s",
            w: 8,
            h: 8,
            targets: [
              { expr: `max by (instance) (scrape_duration_seconds{${EXPORTER}})`, legend: "{{instance}}" },
            ],
          },
          {
            type: "timeseries",
            title: "Samples per scrape",
            description: "Samples in each scrape of each exporter target: the size of /metrics.",
            unit: "short",
            w: 8,
            h: 8,
            targets: [
              { expr: `max by (instance) (scrape_samples_scraped{${EXPORTER}})`, legend: "{{instance}}" },
            ],
          },
          {
            type: "timeseries",
            title: "/metrics render time (p90)",
            description: "90th percentile time the exporter takes to write one /metrics response.",
            unit: "s",
            w: 8,
            h: 8,
            targets: [
              {
                expr: `histogram_quantile(0.9, sum by (instance, le) (rate(${n.scrapeDuration}_bucket{${EXPORTER}}[$__rate_interval])))`,
                legend: "{{instance}}",
              },
            ],
          },
          {
            type: "timeseries",
            title: "CPU",
            description: "CPU time used per second by each exporter process (1 = one core).",
            unit: "short",
            w: 8,
            h: 8,
            targets: [
              {
                expr: `sum by (instance) (rate(process_cpu_seconds_total{${EXPORTER}}[$__rate_interval]))`,
                legend: "{{instance}}",
              },
            ],
          },
          {
            type: "timeseries",
            title: "Memory",
            description: "Resident memory of each exporter process.",
            unit: "bytes",
            w: 8,
            h: 8,
            targets: [
              {
                expr: `max by (instance) (process_resident_memory_bytes{${EXPORTER}})`,
                legend: "{{instance}}",
              },
            ],
          },
          {
            type: "timeseries",
            title: "Event loop lag (p99)",
            description:
              "99th percentile Node.js event-loop delay of each exporter process; high values delay watch handling and scrapes.",
            unit: "s",
            w: 8,
            h: 8,
            targets: [
              {
                expr: `max by (instance) (nodejs_eventloop_lag_p99_seconds{${EXPORTER}})`,
                legend: "{{instance}}",
              },
            ],
          },
        ],
      },
    ],
  });
}
