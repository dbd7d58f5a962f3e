// Micro-benchmarks of the exporter's own hot paths, in this process:
//  - watch-event processing: a recorded stream of watch lines through
//    JSON.parse + ingest (projection and pre-rendering, the path the watch
//    takes; the entry points are in ours-internals.ts), against bare
//    JSON.parse of the same lines;
//  - exposition writing: the per-object /metrics text of 100k / 500k / 1M series.
// Rates are per CPU second of this process (events/s/core), measured with
// process.cpuUsage(), so a busy neighbour on the machine does not count.
import { monitorEventLoopDelay } from "node:perf_hooks";
import { type OfflineExporter, offlineExporter } from "./ours-internals.ts";

const phases = ["Pending", "Provisioning", "Running", "Failed", "Terminating"];

interface RawObject {
  metadata: { name: string; namespace: string; uid: string; resourceVersion: string };
  status?: { conditions?: { type: string; status: string }[] };
}

function cpuSeconds(since: NodeJS.CpuUsage): number {
  const used = process.cpuUsage(since);
  return (used.user + used.system) / 1e6;
}

/**
 * A watch stream from recorded objects: `events` MODIFIED lines cycling over
 * them, each with a new resourceVersion and, every other round, Ready flipped.
 */
export function recordStream(objects: readonly unknown[], events: number): string[] {
  const lines: string[] = [];
  for (let i = 0; i < events; i++) {
    const object = structuredClone(objects[i % objects.length]) as RawObject;
    object.metadata.resourceVersion = String(1_000_000 + i);
    const round = Math.floor(i / objects.length);
    if (round % 2 === 1) {
      for (const c of object.status?.conditions ?? [])
        if (c.type === "Ready") c.status = c.status === "True" ? "False" : "True";
    }
    lines.push(JSON.stringify({ type: "MODIFIED", object }));
  }
  return lines;
}

export interface EventBench {
  events: number;
  distinctObjects: number;
  meanEventBytes: number;
  parseOnlyEventsPerCoreSecond: number;
  ingestEventsPerCoreSecond: number;
  /** ingest / parse-only: the share of the JSON.parse limit reached. */
  ratioToParseOnly: number;
}

export function benchEvents(objects: readonly unknown[], events = 20_000, rounds = 3): EventBench {
  const lines = recordStream(objects, events);
  const meanEventBytes = lines.reduce((n, l) => n + l.length, 0) / lines.length;
  const best = { parse: 0, ingest: 0 };
  for (let round = 0; round < rounds; round++) {
    // Bare parse, touching the result so it is not optimized away.
    let sink = 0;
    let since = process.cpuUsage();
    for (const line of lines) sink += (JSON.parse(line) as { type: string }).type.length;
    best.parse = Math.max(best.parse, lines.length / cpuSeconds(since));
    if (sink === 0) throw new Error("unreachable");

    const exporter = offlineExporter(phases);
    for (const object of objects) exporter.ingest("ADDED", object);
    since = process.cpuUsage();
    for (const line of lines) {
      const event = JSON.parse(line) as { type: "MODIFIED"; object: unknown };
      exporter.ingest(event.type, event.object);
    }
    best.ingest = Math.max(best.ingest, lines.length / cpuSeconds(since));
  }
  return {
    events,
    distinctObjects: objects.length,
    meanEventBytes,
    parseOnlyEventsPerCoreSecond: best.parse,
    ingestEventsPerCoreSecond: best.ingest,
    ratioToParseOnly: best.ingest / best.parse,
  };
}

export interface WriteBench {
  targetSeries: number;
  objects: number;
  series: number;
  bytes: number;
  ms: number;
  cpuSeconds: number;
  seriesPerSecond: number;
  /** Longest event-loop delay while writing (1 ms resolution). */
  maxEventLoopDelayMs: number;
}

/** Objects shaped like the fleet's, varied by index. */
function syntheticObject(template: RawObject, i: number): unknown {
  const object = structuredClone(template);
  object.metadata.name = `w-${i}`;
  object.metadata.namespace = `ns-${i % 50}`;
  object.metadata.uid = `uid-${i}`;
  return object;
}

export async function benchWrite(
  template: unknown,
  targets = [100_000, 500_000, 1_000_000],
): Promise<WriteBench[]> {
  const results: WriteBench[] = [];
  // Series per object, from one object.
  const one = offlineExporter(phases);
  one.ingest("ADDED", syntheticObject(template as RawObject, 0));
  const perObject = await countSeries(one);
  for (const target of targets) {
    const objects = Math.ceil(target / perObject);
    const exporter = offlineExporter(phases);
    for (let i = 0; i < objects; i++) exporter.ingest("ADDED", syntheticObject(template as RawObject, i));
    const histogram = monitorEventLoopDelay({ resolution: 1 });
    let best: WriteBench | undefined;
    for (let round = 0; round < 3; round++) {
      // Let the heap settle so a GC of the set-up is not charged to the write.
      await new Promise((r) => setTimeout(r, 50));
      histogram.reset();
      histogram.enable();
      const since = process.cpuUsage();
      const started = performance.now();
      let bytes = 0;
      let series = 0;
      for await (const chunk of exporter.write()) {
        bytes += chunk.length;
        for (let at = chunk.indexOf("\n"); at >= 0; at = chunk.indexOf("\n", at + 1)) series++;
      }
      const ms = performance.now() - started;
      histogram.disable();
      const result: WriteBench = {
        targetSeries: target,
        objects,
        series,
        bytes,
        ms,
        cpuSeconds: cpuSeconds(since),
        seriesPerSecond: series / (ms / 1000),
        maxEventLoopDelayMs: histogram.max / 1e6,
      };
      if (!best || result.ms < best.ms) best = result;
    }
    results.push(best as WriteBench);
  }
  return results;
}

async function countSeries(exporter: OfflineExporter): Promise<number> {
  let series = 0;
  for await (const chunk of exporter.write()) {
    for (const line of chunk.split("\n")) if (line && !line.startsWith("#")) series++;
  }
  return series;
}
