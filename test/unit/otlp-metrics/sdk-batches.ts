// The SDK path the encoders replaced, kept as the tests' reference: the
// points of an export as SDK data points (each object's labels read into
// attributes, each line's own labels and value), in batches of at most
// `maxPoints`, each a ResourceMetrics the otlp-transformer serializers take.
// encode.test.ts and json-encode.test.ts compare our requests with the SDK
// serializers' output for these batches.
import type { Attributes, HrTime } from "@opentelemetry/api";
import { ValueType } from "@opentelemetry/api";
import {
  AggregationTemporality,
  type DataPoint,
  DataPointType,
  type Histogram,
  type MetricData,
  type ResourceMetrics,
} from "@opentelemetry/sdk-metrics";
import { objectFamilies } from "../../../src/core/series/catalog.ts";
import { parseValue } from "../../../src/core/series/exposition.ts";
import { unitOf } from "../../../src/otlp-metrics/mapping.ts";
import {
  aggregatePoints,
  type Family,
  hrTime,
  noStart,
  type PointSink,
  type ReadOptions,
  readLabels,
  registryPoints,
} from "../../../src/otlp-metrics/points.ts";

export interface BatchOptions extends ReadOptions {
  /** Points per batch (one request each). */
  maxPoints: number;
}

/** The points of one request, by family. */
class Batch implements PointSink {
  readonly #metrics = new Map<string, MetricData>();
  points = 0;

  add(family: Family, point: DataPoint<number> | DataPoint<Histogram>): void {
    let metric = this.#metrics.get(family.name);
    if (!metric) {
      metric = newMetric(family);
      this.#metrics.set(family.name, metric);
    }
    (metric.dataPoints as unknown[]).push(point);
    this.points++;
  }

  take(options: BatchOptions): ResourceMetrics {
    const metrics = [...this.#metrics.values()];
    this.#metrics.clear();
    this.points = 0;
    return { resource: options.resource, scopeMetrics: [{ scope: options.scope, metrics }] };
  }
}

function newMetric(family: Family): MetricData {
  const descriptor = {
    name: family.name,
    description: family.help,
    unit: unitOf(family.name),
    valueType: ValueType.DOUBLE,
  };
  const aggregationTemporality = AggregationTemporality.CUMULATIVE;
  switch (family.type) {
    case "gauge":
      return { descriptor, aggregationTemporality, dataPointType: DataPointType.GAUGE, dataPoints: [] };
    case "counter":
      return {
        descriptor,
        aggregationTemporality,
        dataPointType: DataPointType.SUM,
        isMonotonic: true,
        dataPoints: [],
      };
    case "histogram":
      return { descriptor, aggregationTemporality, dataPointType: DataPointType.HISTOGRAM, dataPoints: [] };
  }
}

/** One line's tail (`,type="Ready",status="True"} 1`) as a point over the object's attributes. */
function tailPoint(
  tail: string,
  base: Attributes,
  startTime: HrTime,
  endTime: HrTime,
): DataPoint<number> | undefined {
  const own: Record<string, string> = {};
  const close = readLabels(tail, 0, own);
  if (tail.charCodeAt(close) !== 125 /* } */) return undefined;
  return { startTime, endTime, attributes: { ...base, ...own }, value: parseValue(tail.slice(close + 2)) };
}

/** Where a family's lines are in an entry's packed tails (see render.ts). */
function* slotsOf(slots: number): Generator<[slot: number, index: number]> {
  let index = 0;
  for (let slot = 0; slot < objectFamilies.length; slot++) {
    if (slots & (1 << slot)) yield [slot, index++];
  }
}

/** Every selected per-object family of every object of every per-object source. */
async function* objectBatches(options: BatchOptions, batch: Batch): AsyncGenerator<ResourceMetrics> {
  const endTime = hrTime(options.nowMs);
  const processStart = options.startMs;
  for (const source of options.sources) {
    const objects = source.objects?.();
    if (!objects) continue;
    const families: Family[] = objectFamilies.map((f) => ({
      name: objects.names[f.slot] as string,
      type: f.type,
      help: f.help,
    }));
    for (const entry of objects.entries) {
      const series = entry.series;
      if (!series || !(series.slots & objects.selected)) continue;
      const base: Record<string, string> = {};
      readLabels(series.open, 0, base);
      // A counter counts from when its series first appeared: this process's start, or the object's creation after it.
      const created = (entry.state.creationTimestamp ?? 0) * 1000;
      const counterStart = hrTime(Math.max(processStart, created));
      for (const [slot, index] of slotsOf(series.slots)) {
        if (!(objects.selected & (1 << slot))) continue;
        const family = families[slot] as Family;
        const start = family.type === "counter" ? counterStart : noStart;
        const tails = series.tails[index] as string;
        let from = 0;
        for (;;) {
          const end = tails.indexOf("\n", from);
          const point = tailPoint(
            end === -1 ? tails.slice(from) : tails.slice(from, end),
            base,
            start,
            endTime,
          );
          if (point) batch.add(family, point);
          if (end === -1) break;
          from = end + 1;
        }
      }
      if (batch.points >= options.maxPoints) yield batch.take(options);
    }
  }
}

/**
 * The export's batches, read lazily: the caller sends each before the next
 * is read, so at most one batch is held. The per-object families come first,
 * then the aggregate and registry families in the last batch.
 */
export async function* readBatches(options: BatchOptions): AsyncGenerator<ResourceMetrics> {
  const batch = new Batch();
  yield* objectBatches(options, batch);
  aggregatePoints(options, batch);
  await registryPoints(options, batch);
  if (batch.points > 0) yield batch.take(options);
}
