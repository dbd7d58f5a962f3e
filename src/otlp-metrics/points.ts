// The points of one OTLP export, read at export time from what /metrics
// serves (no second copy of any series): the per-object stores' pre-rendered
// lines (each object's labels parsed once, then each line's own labels and
// value), the aggregate sources' lines, and the registry (self metrics,
// per-kind histograms, process metrics) as the client library reports it.
// The per-object families are read by the encoders themselves (encode.ts,
// json-encode.ts, through requests.ts); the aggregate and registry families,
// a few hundred points, are read here as SDK data points and handed to
// them (PointSink).
import type { Attributes, HrTime } from "@opentelemetry/api";
import type { Resource } from "@opentelemetry/resources";
import type { DataPoint, Histogram } from "@opentelemetry/sdk-metrics";
import type { Registry } from "@prometheus-io/client";
import { aggregateFamilies, type FamilyType } from "../core/series/catalog.ts";
import { fromByteString, parseValue } from "../core/series/exposition.ts";
import { ChunkWriter } from "../metrics/chunks.ts";
import type { SeriesSource } from "../metrics/writer.ts";
import type { TurnShare } from "../net/turns.ts";
import { attributeName } from "./mapping.ts";

export interface ReadOptions {
  sources: readonly SeriesSource[];
  registry: Registry;
  resource: Resource;
  scope: { name: string; version: string };
  /** Epoch milliseconds: the points' time (one per export). */
  nowMs: number;
  /** Epoch milliseconds: the start of cumulative points (this process's start). */
  startMs: number;
  /** Whose turns of the event loop the reading shares (the process's one share unless a test gives its own). */
  turns?: TurnShare;
}

export const hrTime = (ms: number): HrTime => {
  const seconds = Math.floor(ms / 1000);
  return [seconds, Math.round((ms - seconds * 1000) * 1e6)];
};

/** A gauge's start: unset (0), as OTLP allows for gauges. */
export const noStart: HrTime = [0, 0];

export interface Family {
  name: string;
  type: FamilyType;
  help: string;
}

/** Where the points read go: the encoders (encode.ts, json-encode.ts). */
export interface PointSink {
  add(family: Family, point: DataPoint<number> | DataPoint<Histogram>): void;
}

/**
 * Reads `{a="x",b="y"` or `,a="x",b="y"` from `text` at `at` into `into`
 * (names renamed to attributes, values unescaped and decoded from byte
 * strings, empty values left out as Prometheus leaves them out), up to the
 * first character that starts no label; returns its index.
 */
export function readLabels(text: string, at: number, into: Record<string, string>): number {
  let i = at;
  for (;;) {
    const c = text.charCodeAt(i);
    if (c !== 44 /* , */ && c !== 123 /* { */) return i;
    const eq = text.indexOf('="', i + 1);
    if (eq === -1) return i;
    const name = text.slice(i + 1, eq);
    let from = eq + 2;
    let value = "";
    for (;;) {
      const quote = text.indexOf('"', from);
      const slash = text.indexOf("\\", from);
      if (slash === -1 || slash > quote) {
        value += text.slice(from, quote);
        i = quote + 1;
        break;
      }
      value += text.slice(from, slash);
      const escaped = text[slash + 1];
      value += escaped === "n" ? "\n" : (escaped ?? "");
      from = slash + 2;
    }
    if (value !== "") into[attributeName(name)] = fromByteString(value);
  }
}

/** A whole exposition line (`name{labels} value`) of an aggregate source. */
function linePoint(line: string, endTime: HrTime): { name: string; point: DataPoint<number> } | undefined {
  const brace = line.indexOf("{");
  const space = line.lastIndexOf(" ");
  if (space === -1) return undefined;
  const attributes: Record<string, string> = {};
  let name = line.slice(0, space);
  if (brace !== -1 && brace < space) {
    name = line.slice(0, brace);
    readLabels(line, brace, attributes);
  }
  return {
    name,
    point: { startTime: noStart, endTime, attributes, value: parseValue(line.slice(space + 1)) },
  };
}

/** The aggregate families' lines, as the /metrics writer would write them. */
export function aggregatePoints(options: Pick<ReadOptions, "sources" | "nowMs">, batch: PointSink): void {
  const endTime = hrTime(options.nowMs);
  for (const definition of aggregateFamilies) {
    const out = new ChunkWriter(Number.MAX_SAFE_INTEGER);
    for (const source of options.sources) {
      for (const _ of source.write({ kind: "aggregate", index: definition.index }, out)) {
        // A chunk is never ready with an unbounded chunk size.
      }
    }
    const text = out.end().join("");
    for (const line of text.split("\n")) {
      if (line === "") continue;
      const parsed = linePoint(fromByteString(line), endTime);
      if (parsed)
        batch.add({ name: parsed.name, type: definition.type, help: definition.help }, parsed.point);
    }
  }
}

interface RegistryExemplar {
  labelSet: Record<string, string | number>;
  value: number | null;
  /** Epoch seconds. */
  timestamp?: number;
}

interface RegistryValue {
  value: number;
  labels: Record<string, string | number>;
  metricName?: string;
  exemplar?: RegistryExemplar | null;
}

export interface RegistryMetric {
  name: string;
  help: string;
  type: string;
  values: RegistryValue[];
}

/** A bucket's exemplar as OTLP carries it: the trace it came from, its value and time, its other labels. */
export interface PointExemplar {
  /** 32 hex digits. */
  traceId?: string;
  /** 16 hex digits. */
  spanId?: string;
  value: number;
  timeMs: number;
  attributes: Record<string, string>;
}

/** A histogram point with its buckets' exemplars, lowest bucket first (the SDK serializers ignore them). */
export type HistogramPoint = DataPoint<Histogram> & { exemplars: PointExemplar[] };

function renamed(labels: Record<string, string | number>, without?: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(labels)) {
    if (name === without || value === "") continue;
    out[attributeName(name)] = String(value);
  }
  return out;
}

const hexId = (value: unknown, digits: number): string | undefined =>
  typeof value === "string" && value.length === digits && /^[0-9a-f]+$/i.test(value)
    ? value.toLowerCase()
    : undefined;

/** An exemplar's labels: trace_id and span_id become the ids when they are ones, the rest attributes. */
function pointExemplar(e: RegistryExemplar): PointExemplar | undefined {
  if (e.value === null || e.value === undefined) return undefined;
  const { trace_id: trace, span_id: span, ...rest } = e.labelSet;
  const traceId = hexId(trace, 32);
  const spanId = hexId(span, 16);
  const attributes = renamed({
    ...rest,
    ...(trace !== undefined && !traceId && { trace_id: trace }),
    ...(span !== undefined && !spanId && { span_id: span }),
  });
  return {
    ...(traceId && { traceId }),
    ...(spanId && { spanId }),
    value: e.value,
    timeMs: (e.timestamp ?? 0) * 1000,
    attributes,
  };
}

/** A registry histogram's series (cumulative `le` buckets, `_sum`, `_count`) as OTLP histogram points. */
function histogramPoints(metric: RegistryMetric, startTime: HrTime, endTime: HrTime): HistogramPoint[] {
  const series = new Map<
    string,
    {
      attributes: Attributes;
      le: [bound: number, cumulative: number, exemplar: PointExemplar | undefined][];
      sum: number;
      count: number;
      overflow: PointExemplar | undefined;
    }
  >();
  for (const v of metric.values) {
    const attributes = renamed(v.labels, "le");
    const key = JSON.stringify(attributes);
    let s = series.get(key);
    if (!s) {
      s = { attributes, le: [], sum: 0, count: 0, overflow: undefined };
      series.set(key, s);
    }
    if (v.metricName?.endsWith("_bucket")) {
      const le = v.labels.le;
      const exemplar = v.exemplar ? pointExemplar(v.exemplar) : undefined;
      if (le !== "+Inf") s.le.push([Number(le), v.value, exemplar]);
      else s.overflow = exemplar;
    } else if (v.metricName?.endsWith("_sum")) s.sum = v.value;
    else if (v.metricName?.endsWith("_count")) s.count = v.value;
  }
  return [...series.values()].map((s) => {
    const bounds = s.le.sort((a, b) => a[0] - b[0]);
    const counts: number[] = [];
    let below = 0;
    for (const [, cumulative] of bounds) {
      counts.push(cumulative - below);
      below = cumulative;
    }
    counts.push(s.count - below);
    const exemplars = [...bounds.map(([, , e]) => e), s.overflow].filter((e) => e !== undefined);
    return {
      startTime,
      endTime,
      attributes: s.attributes,
      value: { buckets: { boundaries: bounds.map(([b]) => b), counts }, sum: s.sum, count: s.count },
      exemplars,
    };
  });
}

/** The registry's families (self metrics, per-kind histograms, process metrics), skipping those without series. */
export async function registryPoints(
  options: Pick<ReadOptions, "registry" | "nowMs" | "startMs">,
  batch: PointSink,
): Promise<void> {
  registryPointsOf(await readRegistry(options.registry), options, batch);
}

/** The registry's metrics as the client library reports them (the asynchronous part of registryPoints). */
export async function readRegistry(registry: Registry): Promise<readonly RegistryMetric[]> {
  return (await registry.getMetricsAsJSON()) as unknown as RegistryMetric[];
}

export function registryPointsOf(
  metrics: readonly RegistryMetric[],
  options: Pick<ReadOptions, "nowMs" | "startMs">,
  batch: PointSink,
): void {
  const endTime = hrTime(options.nowMs);
  const startTime = hrTime(options.startMs);
  for (const metric of metrics) {
    const type = metric.type as FamilyType;
    if (type !== "gauge" && type !== "counter" && type !== "histogram") continue;
    // OpenMetrics rendering may have taken `_total` off a counter's name (see writer.ts).
    const name = type === "counter" && !metric.name.endsWith("_total") ? `${metric.name}_total` : metric.name;
    const family: Family = { name, type, help: metric.help };
    if (type === "histogram") {
      for (const point of histogramPoints(metric, startTime, endTime)) batch.add(family, point);
      continue;
    }
    const start = type === "counter" ? startTime : noStart;
    for (const v of metric.values) {
      batch.add(family, { startTime: start, endTime, attributes: renamed(v.labels), value: v.value });
    }
  }
}

/**
 * The longest stretch of synchronous work between two awaits, for the
 * export's report (when to await is the shared turns' decision).
 */
export class Stretches {
  #since = performance.now();
  /** The longest stretch that ended so far (ms). */
  longestMs = 0;

  /** The stretch ends here: the caller is about to await. */
  stop(): void {
    this.longestMs = Math.max(this.longestMs, performance.now() - this.#since);
  }

  /** The caller awaited: a new stretch begins. */
  restart(): void {
    this.#since = performance.now();
  }
}
