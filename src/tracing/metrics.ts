// Tracing's own health, registered in the exporter's self-metrics registry
// when tracing is on: whether this replica is the one exporting, what happened
// to the spans it planned, and how many root spans are open.
import type { Counter, Registry } from "@prometheus-io/client";
import { ExporterFamilies } from "../metrics/families.ts";

export interface TracingMetrics {
  spansEmitted: Counter;
  spansDeduplicated: Counter;
  spansExportFailed: Counter;
  /** Trace-context annotations that could not be parsed (each counted once, when its generation opened). */
  traceContextMalformed: Counter;
  /** Where the gauges read from, once the tracer and the elector exist. */
  follow(sources: { isLeader: () => boolean; openEpisodes: () => number }): void;
}

export function registerTracingMetrics(registry: Registry, prefix: string): TracingMetrics {
  let sources = { isLeader: () => false, openEpisodes: () => 0 };
  const f = new ExporterFamilies(registry, prefix);
  f.gauge("tracingLeader", function () {
    this.set(sources.isLeader() ? 1 : 0);
  });
  f.gauge("tracingOpenEpisodes", function () {
    this.set(sources.openEpisodes());
  });
  return {
    spansEmitted: f.counter("tracingSpansEmitted"),
    spansDeduplicated: f.counter("tracingSpansDeduplicated"),
    spansExportFailed: f.counter("tracingSpansExportFailed"),
    traceContextMalformed: f.counter("tracingTraceContextMalformed"),
    follow(next) {
      sources = next;
    },
  };
}
