// What the harness knows about our exporter beyond its command line and
// config: the in-process entry points the micro-benchmarks call, and the
// names of process metrics it reads from /metrics. When the core is
// reorganised or renamed, this file is the one to change.
import { Registry } from "@prometheus-io/client";
import type { ObjectSeries } from "../../src/core/series/render.ts";
import { writeExposition } from "../../src/metrics/writer.ts";
import { offlineCollector } from "../../test/support/collector.ts";

export type WatchEventType = "ADDED" | "MODIFIED" | "DELETED";

/** One resource type's pipeline, fed by hand instead of by a watch. */
export interface OfflineExporter {
  /** A watch event's object through projection and pre-rendering: what every watch event costs. */
  ingest(type: WatchEventType, object: unknown): void;
  /** The per-object part of /metrics, as a scrape writes it (the bytes sent). */
  /** The exposition's chunks, byte strings (one character per byte). */
  write(): AsyncIterable<string>;
  /** Each stored object's rendered series (undefined: none), for measuring what they hold. */
  series(): (ObjectSeries | undefined)[];
}

/**
 * A widget pipeline; `phases` are the kind's known phases, `allow` the
 * families exported (default: the default set).
 */
export function offlineExporter(phases: string[], allow?: readonly string[]): OfflineExporter {
  const c = offlineCollector({ phases, metrics: allow ? { allow: [...allow] } : undefined });
  return {
    ingest: (type, object) => c.collector.ingest(type, object),
    write: () =>
      writeExposition({
        sources: c.collector.sources,
        registry: new Registry(),
        prefix: "cr_",
        openMetrics: false,
      }),
    series: () => [...c.collector.store.values()].map((entry) => entry.series),
  };
}

/**
 * Where the largest event-loop delay since the previous scrape (a gauge in
 * seconds) may be exported; the first name found on /metrics is used.
 */
export const eventLoopMaxDelayNames = [
  "nodejs_eventloop_lag_max_seconds",
  "nodejs_eventloop_delay_max_seconds",
  "process_eventloop_lag_max_seconds",
  "cr_exporter_eventloop_lag_max_seconds",
  "cr_exporter_event_loop_delay_max_seconds",
] as const;

/** The garbage-collection duration histogram (by `kind`), when exported. */
export const gcDurationFamily = "nodejs_gc_duration_seconds";
