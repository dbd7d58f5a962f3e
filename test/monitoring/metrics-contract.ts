// The metric families of docs/metrics.md (the exporter's contract), as a name → type map.
import { readFileSync } from "node:fs";
import { join } from "node:path";

export const REPO_ROOT = join(import.meta.dirname, "..", "..");

export type MetricType = "gauge" | "counter" | "histogram";

export function documentedFamilies(): Map<string, MetricType> {
  const text = readFileSync(join(REPO_ROOT, "docs", "metrics.md"), "utf8");
  const families = new Map<string, MetricType>();
  for (const match of text.matchAll(
    /^\|\s*`([a-zA-Z_:][a-zA-Z0-9_:]*)`\s*\|\s*(gauge|counter|histogram)\s*\|/gm,
  )) {
    const [, name, type] = match;
    if (name && type) families.set(name, type as MetricType);
  }
  return families;
}

/**
 * Series names a query may select: each documented family, plus the _bucket,
 * _sum and _count series of histograms.
 */
export function documentedSeriesNames(): Map<string, MetricType> {
  const names = new Map<string, MetricType>();
  for (const [name, type] of documentedFamilies()) {
    if (type === "histogram")
      for (const suffix of ["_bucket", "_sum", "_count"]) names.set(name + suffix, type);
    else names.set(name, type);
  }
  return names;
}

/** Series Prometheus itself writes for every target. */
export const PROMETHEUS_SERIES: ReadonlySet<string> = new Set([
  "up",
  "scrape_duration_seconds",
  "scrape_samples_scraped",
  "scrape_samples_post_metric_relabeling",
  "scrape_series_added",
]);

/** The Node.js process metrics of the client library, which docs/metrics.md mentions without listing. */
export const RUNTIME_SERIES: ReadonlySet<string> = new Set([
  "process_cpu_seconds_total",
  "process_resident_memory_bytes",
  "nodejs_eventloop_lag_p99_seconds",
]);
