// The OTLP metrics export's own health, registered in the exporter's
// self-metrics registry when the export is on: exports by result, and when
// the last one succeeded.
import type { Counter, Gauge, Registry } from "@prometheus-io/client";
import { ExporterFamilies } from "../metrics/families.ts";

export interface OtlpMetricsMetrics {
  exports: Counter<"result">;
  lastSuccess: Gauge;
}

export function registerOtlpMetricsMetrics(registry: Registry, prefix: string): OtlpMetricsMetrics {
  const f = new ExporterFamilies(registry, prefix);
  return { exports: f.counter("otlpMetricsExports"), lastSuccess: f.gauge("otlpMetricsLastSuccess") };
}
