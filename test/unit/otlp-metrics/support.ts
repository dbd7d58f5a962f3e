// An offline collector's export, read back from the OTLP/JSON the exporter
// would send: the same requests (JsonRequestEncoder), decoded into metrics
// and points for assertions.
import { resourceFromAttributes } from "@opentelemetry/resources";
import type { Registry } from "@prometheus-io/client";
import type { ObjectEntry } from "../../../src/core/entry.ts";
import { objectFamilies } from "../../../src/core/series/catalog.ts";
import { encodeLabelValue } from "../../../src/core/series/exposition.ts";
import type { SeriesSource } from "../../../src/metrics/writer.ts";
import { JsonRequestEncoder } from "../../../src/otlp-metrics/json-encode.ts";
import { unitOf } from "../../../src/otlp-metrics/mapping.ts";
import type { EncodeOptions } from "../../../src/otlp-metrics/requests.ts";
import { offlineCollector } from "../../support/collector.ts";

export interface SentPoint {
  attributes: Record<string, string>;
  value: number | undefined;
  /** None for a gauge (left out, not written as 0). */
  startTimeUnixNano?: string;
  timeUnixNano: string;
  bucketCounts?: number[];
  explicitBounds?: number[];
  sum?: number;
  count?: number;
}

export interface SentMetric {
  name: string;
  unit: string;
  kind: "gauge" | "sum" | "histogram";
  temporality: number | undefined;
  monotonic: boolean | undefined;
  points: SentPoint[];
}

export interface SentExport {
  requests: number;
  /** Points per request. */
  sizes: number[];
  /** Bytes per request. */
  bytes: number[];
  resource: Record<string, string>;
  metrics: Map<string, SentMetric>;
}

interface JsonKeyValue {
  key: string;
  value: { stringValue?: string };
}

const attributes = (list: JsonKeyValue[] | undefined): Record<string, string> =>
  Object.fromEntries((list ?? []).map((kv) => [kv.key, kv.value.stringValue ?? ""]));

export async function sentExport(
  sources: readonly SeriesSource[],
  registry: Registry,
  over: Partial<EncodeOptions> = {},
): Promise<SentExport> {
  const out: SentExport = { requests: 0, sizes: [], bytes: [], resource: {}, metrics: new Map() };
  for await (const request of new JsonRequestEncoder(unitOf).requests({
    sources,
    registry,
    resource: resourceFromAttributes({ "service.name": "cr-status-exporter" }),
    scope: { name: "cr-status-exporter", version: "test" },
    nowMs: Date.parse("2026-01-01T02:00:00Z"),
    startMs: Date.parse("2026-01-01T00:30:00Z"),
    batchBytes: 2 ** 20,
    ...over,
  })) {
    out.requests++;
    out.bytes.push(request.payload.length);
    const json = JSON.parse(new TextDecoder().decode(request.payload));
    const rm = json.resourceMetrics[0];
    out.resource = attributes(rm.resource.attributes);
    let size = 0;
    for (const m of rm.scopeMetrics[0].metrics) {
      const kind = m.gauge ? "gauge" : m.sum ? "sum" : "histogram";
      const body = m.gauge ?? m.sum ?? m.histogram;
      let metric = out.metrics.get(m.name);
      if (!metric) {
        metric = {
          name: m.name,
          unit: m.unit ?? "",
          kind,
          temporality: body.aggregationTemporality,
          monotonic: body.isMonotonic,
          points: [],
        };
        out.metrics.set(m.name, metric);
      }
      for (const p of body.dataPoints) {
        size++;
        metric.points.push({
          attributes: attributes(p.attributes),
          value: p.asDouble ?? p.asInt,
          ...(p.startTimeUnixNano !== undefined && { startTimeUnixNano: String(p.startTimeUnixNano) }),
          timeUnixNano: String(p.timeUnixNano),
          ...(kind === "histogram" && {
            bucketCounts: p.bucketCounts.map(Number),
            explicitBounds: p.explicitBounds,
            sum: p.sum,
            count: Number(p.count),
          }),
        });
      }
    }
    out.sizes.push(size);
  }
  return out;
}

/** A widget both encoders' tests ingest: a quote and an escaped newline in a reason, a label for `cluster`. */
export function widget(name: string, namespace = "shop") {
  return {
    apiVersion: "example.com/v1",
    kind: "Widget",
    metadata: {
      name,
      namespace,
      uid: `uid-${name}`,
      generation: 2,
      resourceVersion: "1",
      creationTimestamp: "2026-01-01T00:00:00Z",
      labels: { cluster: "eu-1" },
    },
    status: {
      observedGeneration: 1,
      phase: "Running",
      conditions: [
        {
          type: "Ready",
          status: "False",
          reason: 'Bad"Quote\\n',
          lastTransitionTime: "2026-01-01T00:10:00Z",
        },
        { type: "Synced", status: "True", reason: "Fine", lastTransitionTime: "2026-01-01T00:11:00Z" },
      ],
    },
  };
}

/** The registry as read once: both paths read the same values (process metrics move between two reads). */
export async function frozen(registry: Registry): Promise<Registry> {
  const snapshot = structuredClone(await registry.getMetricsAsJSON());
  return { getMetricsAsJSON: async () => structuredClone(snapshot) } as unknown as Registry;
}

// ---- Stores both encoders' tests read ----------------------------------------------------------

export const gaugeSlot = objectFamilies.find((f) => f.type === "gauge")?.slot as number;
export const counterSlot = objectFamilies.find((f) => f.type === "counter")?.slot as number;

/** A store entry with the given lines per slot (as the store renders them) and creation time. */
export function entry(open: string, bySlot: Record<number, string>, createdS?: number): ObjectEntry {
  const slots = Object.keys(bySlot)
    .map(Number)
    .sort((a, b) => a - b);
  return {
    state: { creationTimestamp: createdS },
    series: {
      open,
      slots: slots.reduce((bits, s) => bits | (1 << s), 0),
      tails: slots.map((s) => bySlot[s] as string),
      count: 0,
    },
  } as unknown as ObjectEntry;
}

/** An object's labels as the store renders them before a line's own: `{a="x",b="y"`. */
export const open = (values: Record<string, string>): string =>
  `{${Object.entries(values)
    .map(([k, v]) => `${k}="${encodeLabelValue(v)}"`)
    .join(",")}`;

/** A real collector: every family opted in, the per-kind histograms observed, one with a trace exemplar. */
export async function busyCollector(
  objects: number,
  mode: "objects" | "aggregate" = "objects",
  exemplarLabels: Record<string, string> = { trace_id: "0af7651916cd43dd8448eb211c80319c" },
) {
  const c = offlineCollector({
    mode,
    phases: ["Running"],
    projection: { extraLabels: [{ key: "cluster", name: "cluster", from: "label" }] },
    extraLabelNames: ["cluster"],
    metrics: { optIn: ["*"] },
  });
  for (let i = 0; i < objects; i++) c.collector.ingest("ADDED", widget(`w${i}`, i % 2 ? "shop" : "other"));
  for (const v of [3, 3, 100, 100000])
    c.metrics.kinds.timeToReady.observe({ group: "example.com", kind: "Widget" }, v);
  c.metrics.kinds.reconcileDuration.observe({
    labels: { group: "example.com", kind: "Widget" },
    value: 2.5,
    exemplarLabels,
  } as never);
  c.metrics.scrapeDuration.observe(0.02);
  return { sources: c.collector.sources, registry: await frozen(c.metrics.registry) };
}
