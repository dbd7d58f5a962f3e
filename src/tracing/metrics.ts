// Tracing's own health, registered in the exporter's self-metrics registry
// when tracing is on: whether this replica is the one exporting, what happened
// to the spans it planned, and how many root spans are open.
import { Counter, Gauge, type Registry } from "@prometheus-io/client";

export interface TracingMetrics {
  spansEmitted: Counter;
  spansDeduplicated: Counter;
  spansExportFailed: Counter;
  /** Where the gauges read from, once the tracer and the elector exist. */
  follow(sources: { isLeader: () => boolean; openEpisodes: () => number }): void;
}

export function registerTracingMetrics(registry: Registry, prefix: string): TracingMetrics {
  let sources = { isLeader: () => false, openEpisodes: () => 0 };
  const registers = [registry];
  new Gauge({
    name: `${prefix}exporter_tracing_leader`,
    help: "1 when this replica exports spans (it holds the tracing Lease, or no Lease is configured), else 0.",
    registers,
    collect() {
      this.set(sources.isLeader() ? 1 : 0);
    },
  });
  new Gauge({
    name: `${prefix}exporter_tracing_open_episodes`,
    help: "Objects with an open root span: a generation not yet reconciled, or a degraded interval.",
    registers,
    collect() {
      this.set(sources.openEpisodes());
    },
  });
  return {
    spansEmitted: new Counter({
      name: `${prefix}exporter_tracing_spans_emitted_total`,
      help: "Spans handed to the OpenTelemetry SDK for export.",
      registers,
    }),
    spansDeduplicated: new Counter({
      name: `${prefix}exporter_tracing_spans_deduplicated_total`,
      help: "Spans not emitted because this process had emitted them already (relists, replays).",
      registers,
    }),
    spansExportFailed: new Counter({
      name: `${prefix}exporter_tracing_spans_export_failed_total`,
      help: "Spans the OTLP exporter could not deliver.",
      registers,
    }),
    follow(next) {
      sources = next;
    },
  };
}
