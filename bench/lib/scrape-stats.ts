// Scrape latency and size, plain and gzip, of one program under test, with
// the shape of its output (series per family, per object, bytes per series)
// and, for ours, the event-loop delay and GCs while it was being scraped.

import type { DelayControl } from "./delay-control.ts";
import { eventLoopMaxDelayNames, gcDurationFamily } from "./ours-internals.ts";
import type { Subject } from "./proc.ts";
import { labelValue, percentile, sampleValue, scrape } from "./scrape.ts";

export interface ScrapeStats {
  /** Plain scrapes (Accept-Encoding: identity); as many gzip ones are interleaved with them. */
  scrapes: number;
  gzipScrapes: number;
  p50Ms: number;
  p99Ms: number;
  maxMs: number;
  gzipP50Ms: number;
  gzipP99Ms: number;
  gzipMaxMs: number;
  /** Uncompressed response size. */
  bytes: number;
  /** Compressed size on the wire. */
  gzipBytes: number;
  /** Every sample line in the response. */
  series: number;
  /** Sample lines that carry a `name` label: the per-object series. */
  objectSeries: number;
  seriesPerObject: number;
  bytesPerSeries: number;
  /** Series per metric name (histograms by _bucket/_sum/_count). */
  families: Record<string, number>;
  /** Ours only: which of eventLoopMaxDelayNames was found (null: none). */
  eventLoopMetric: string | null;
  /** Ours only: the largest event-loop delay seen across the scrapes (ms). */
  eventLoopMaxDelayMs: number | null;
  eventLoopMaxDelayPerScrapeMs: number[];
  /**
   * Ours only: the largest event-loop delay an idle process on the same
   * machine read over the same scrapes (delay-control.ts; null: not run).
   */
  controlEventLoopMaxDelayMs: number | null;
  controlEventLoopMaxDelayPerScrapeMs: number[];
  /**
   * Ours only: garbage collections during the scrapes, by kind, from the
   * GC duration histogram (difference between the first and the last
   * scrape): count, total seconds, and how many took longer than 100 ms.
   */
  gc: Record<string, { count: number; seconds: number; over100ms: number }> | null;
}

type GcTotals = Map<string, { count: number; seconds: number; upTo100ms: number }>;

/** Accumulates GC duration histogram lines into totals per kind. */
function gcLine(totals: GcTotals, line: string): void {
  if (!line.startsWith(gcDurationFamily)) return;
  const kind = labelValue(line, "kind") ?? "?";
  const t = totals.get(kind) ?? { count: 0, seconds: 0, upTo100ms: 0 };
  totals.set(kind, t);
  if (line.startsWith(`${gcDurationFamily}_count`)) t.count = sampleValue(line);
  else if (line.startsWith(`${gcDurationFamily}_sum`)) t.seconds = sampleValue(line);
  else if (labelValue(line, "le") === "0.1") t.upTo100ms = sampleValue(line);
}

/** The metric name of a sample line. */
function metricName(line: string): string {
  const end = line.search(/[{ ]/);
  return end < 0 ? line : line.slice(0, end);
}

/** Reads the event-loop delay gauge, under whichever candidate name the exporter uses. */
function eventLoopReader(): { read(line: string): number | undefined; found(): string | null } {
  let found: string | null = null;
  return {
    read(line) {
      if (!line.startsWith("nodejs_") && !line.startsWith("process_") && !line.startsWith("cr_exporter_"))
        return undefined;
      const name = metricName(line);
      if (found === null && (eventLoopMaxDelayNames as readonly string[]).includes(name)) found = name;
      return name === found ? sampleValue(line) * 1000 : undefined;
    },
    found: () => found,
  };
}

/**
 * `count` plain and `count` gzip scrapes, alternating so that a drift in the
 * program's state (heap growth, a slow GC) falls on both alike. The gzip
 * ones ask as Prometheus does (`Accept-Encoding: gzip`) and are timed to the
 * last compressed byte. The event-loop gauge is read from both.
 */
export async function measureScrapes(
  subject: Subject,
  objects: number,
  count: number,
  control?: DelayControl,
): Promise<ScrapeStats> {
  // One scrape for the shape (series per family) that also resets the
  // event-loop delay gauge (it restarts at every collection) and records
  // the GC totals to subtract.
  const families: Record<string, number> = {};
  let series = 0;
  let objectSeries = 0;
  const gcBefore: GcTotals = new Map();
  const gcAfter: GcTotals = new Map();
  await scrape(subject.metricsUrl, {
    onLine: (line) => {
      gcLine(gcBefore, line);
      if (!line || line.startsWith("#")) return undefined;
      const name = metricName(line);
      families[name] = (families[name] ?? 0) + 1;
      series++;
      if (line.includes('{name="') || line.includes(',name="')) objectSeries++;
      return undefined;
    },
  });
  await control?.read();
  const controlLags: number[] = [];
  const eventLoop = eventLoopReader();
  const plain: number[] = [];
  const gzip: number[] = [];
  const lags: number[] = [];
  let bytes = 0;
  let gzipBytes = 0;
  for (let i = 0; i < 2 * count; i++) {
    const compressed = i % 2 === 1;
    let lag: number | undefined;
    gcAfter.clear();
    const result = await scrape(subject.metricsUrl, {
      gzip: compressed,
      onLine: (line) => {
        lag = eventLoop.read(line) ?? lag;
        gcLine(gcAfter, line);
        return undefined;
      },
    });
    if (compressed) {
      gzip.push(result.ms);
      gzipBytes = result.wireBytes;
    } else {
      plain.push(result.ms);
      bytes = result.bytes;
    }
    if (lag !== undefined) lags.push(lag);
    if (control) controlLags.push(await control.read());
  }
  return {
    scrapes: count,
    gzipScrapes: count,
    p50Ms: percentile(plain, 50),
    p99Ms: percentile(plain, 99),
    maxMs: Math.max(...plain),
    gzipP50Ms: percentile(gzip, 50),
    gzipP99Ms: percentile(gzip, 99),
    gzipMaxMs: Math.max(...gzip),
    bytes,
    gzipBytes,
    series,
    objectSeries,
    seriesPerObject: objectSeries / objects,
    bytesPerSeries: bytes / series,
    families,
    eventLoopMetric: eventLoop.found(),
    eventLoopMaxDelayMs: lags.length > 0 ? Math.max(...lags) : null,
    eventLoopMaxDelayPerScrapeMs: lags,
    controlEventLoopMaxDelayMs: controlLags.length > 0 ? Math.max(...controlLags) : null,
    controlEventLoopMaxDelayPerScrapeMs: controlLags,
    gc:
      gcAfter.size > 0
        ? Object.fromEntries(
            [...gcAfter].map(([kind, a]) => {
              const b = gcBefore.get(kind) ?? { count: 0, seconds: 0, upTo100ms: 0 };
              const count = a.count - b.count;
              return [
                kind,
                { count, seconds: a.seconds - b.seconds, over100ms: count - (a.upTo100ms - b.upTo100ms) },
              ];
            }),
          )
        : null,
  };
}
