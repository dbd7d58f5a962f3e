// Our http/json encoder against the SDK path it replaced (readBatches + the
// otlp-transformer JSON serializer): for the same store and registry, both
// requests parse (JSON.parse) to the same ExportMetricsServiceRequest once
// the SDK's departures from the OTLP/JSON encoding are put right on its side
// (64-bit integers as numbers, not decimal strings; NaN and infinities as
// null, not "NaN" and "Infinity"), and ours carry the exemplars the protobuf
// encoder writes. Then the JSON of what labels can hold, and the batching by
// bytes.
import assert from "node:assert/strict";
import { test } from "node:test";
import { JsonMetricsSerializer } from "@opentelemetry/otlp-transformer";
import { resourceFromAttributes } from "@opentelemetry/resources";
import type { Registry } from "@prometheus-io/client";
import type { ObjectEntry } from "../../../src/core/entry.ts";
import { objectFamilies } from "../../../src/core/series/catalog.ts";
import { byteString } from "../../../src/core/series/exposition.ts";
import type { SeriesSource } from "../../../src/metrics/writer.ts";
import { RequestEncoder } from "../../../src/otlp-metrics/encode.ts";
import { JsonRequestEncoder, jsonDouble, writeJsonLabels } from "../../../src/otlp-metrics/json-encode.ts";
import { unitOf } from "../../../src/otlp-metrics/mapping.ts";
import { readLabels } from "../../../src/otlp-metrics/points.ts";
import { ProtoWriter } from "../../../src/otlp-metrics/proto-writer.ts";
import { type Decoded, decodeRequest } from "./proto-decode.ts";
import { readBatches } from "./sdk-batches.ts";
import { busyCollector, counterSlot, entry, gaugeSlot, open } from "./support.ts";

const nowMs = Date.parse("2026-01-01T02:00:00Z");
const startMs = Date.parse("2026-01-01T00:30:00Z");
const resource = resourceFromAttributes({ "service.name": "cr-status-exporter", "service.version": "1.2.3" });
const scope = { name: "cr-status-exporter", version: "test" };
const options = { resource, scope, nowMs, startMs };

// biome-ignore lint/suspicious/noExplicitAny: parsed JSON, walked by field name
type Json = any;

async function sdkRequests(
  sources: readonly SeriesSource[],
  registry: Registry,
  maxPoints = 1e9,
): Promise<Json[]> {
  const out: Json[] = [];
  for await (const batch of readBatches({ ...options, sources, registry, maxPoints })) {
    out.push(JSON.parse(new TextDecoder().decode(JsonMetricsSerializer.serializeRequest(batch))));
  }
  return out;
}

async function ourRequests(
  sources: readonly SeriesSource[],
  registry: Registry,
  batchBytes = 1e9,
  encoder = new JsonRequestEncoder(unitOf),
  of = resource,
): Promise<{ text: string[]; points: number[] }> {
  const out = { text: [] as string[], points: [] as number[] };
  for await (const r of encoder.requests({ ...options, sources, registry, batchBytes, resource: of })) {
    out.text.push(new TextDecoder("utf-8", { fatal: true }).decode(r.payload));
    out.points.push(r.points);
  }
  return out;
}

/** The protobuf encoder's requests, decoded (its exemplars are the reference for ours). */
async function protobufRequests(sources: readonly SeriesSource[], registry: Registry): Promise<Decoded[]> {
  const out: Decoded[] = [];
  for await (const r of new RequestEncoder(unitOf).requests({
    ...options,
    sources,
    registry,
    batchBytes: 1e9,
  })) {
    out.push(decodeRequest(r.payload));
  }
  return out;
}

/** Fields that are 64-bit integers in the schema: decimal strings in OTLP/JSON, numbers in the SDK's. */
const int64Fields = new Set(["startTimeUnixNano", "timeUnixNano", "count", "bucketCounts", "intValue"]);
/** Doubles that may be NaN or infinite: strings in OTLP/JSON, null in the SDK's. */
const doubleFields = new Set(["asDouble", "sum", "explicitBounds"]);

/** The SDK's request as the OTLP/JSON encoding has it. */
function asSpecified(sdk: Json): Json {
  return JSON.parse(JSON.stringify(sdk), (k, v) => {
    // A gauge's start time: the SDK writes 0, OTLP/JSON (ProtoJSON) leaves a field at its default out.
    if (k === "startTimeUnixNano" && String(v) === "0") return undefined;
    if (int64Fields.has(k)) return Array.isArray(v) ? v.map(String) : String(v);
    if (doubleFields.has(k) && v === null) return "non-finite";
    return v;
  });
}

/** Ours with NaN and infinities as the SDK can tell them (it writes null for all three), exemplars apart. */
function comparable(ours: Json): Json {
  return JSON.parse(JSON.stringify(ours), (k, v) => {
    if (k === "exemplars") return undefined;
    if (doubleFields.has(k) && (v === "NaN" || v === "Infinity" || v === "-Infinity")) return "non-finite";
    return v;
  });
}

type Points = Map<string, Json[]>;

/** Every data point of the requests, by metric name, in order (batch boundaries forgotten); the metrics without them. */
function pointsByMetric(requests: Json[]): { points: Points; metrics: Map<string, Json> } {
  const points: Points = new Map();
  const metrics = new Map<string, Json>();
  for (const request of requests) {
    for (const metric of request.resourceMetrics[0].scopeMetrics[0].metrics) {
      const body = metric.gauge ?? metric.sum ?? metric.histogram;
      points.set(metric.name, [...(points.get(metric.name) ?? []), ...body.dataPoints]);
      const { dataPoints: _, ...rest } = body;
      metrics.set(metric.name, {
        ...metric,
        gauge: undefined,
        sum: undefined,
        histogram: undefined,
        body: rest,
      });
    }
  }
  return { points, metrics };
}

async function assertSameAsSdk(sources: readonly SeriesSource[], registry: Registry): Promise<Json> {
  const sdk = await sdkRequests(sources, registry);
  const ours = await ourRequests(sources, registry);
  assert.equal(ours.text.length, sdk.length, "requests");
  assert.equal(sdk.length, 1, "one batch each");
  const mine = JSON.parse(ours.text[0] as string);
  assert.deepEqual(comparable(mine), asSpecified(sdk[0]));
  return mine;
}

// ---- Stores ------------------------------------------------------------------------------------

/** Every value and label shape a line can take, JSON's special characters included. */
function handMadeSource(): SeriesSource {
  const entries = [
    entry(
      open({ group: "example.com", kind: "Widget", namespace: "shop", name: "w0", cluster: "eu-1" }),
      {
        [gaugeSlot]: [
          `,type="Ready",status="True"} 1`,
          `,type="Quote\\"d",reason="back\\\\slash\\nnew"} NaN`,
          `,type="inf"} +Inf`,
          `,type="-inf"} -Inf`,
          `,type="frac"} 0.25`,
          `,type="exp"} 1.5e+21`,
          `,type="neg"} -42`,
          `,type="negzero"} -0`,
          `,type="big"} 9007199254740993`,
          `,type="control\tand\u0001/</script>"} 2`,
          `,type="${byteString("é ü 日本 😀")}"} 3`,
          `,type="empty",reason=""} 3`,
          `,type="not a point" 3`,
          `} 1767225600`,
        ].join("\n"),
        [counterSlot]: `} 5`,
      },
      Date.parse("2026-01-01T00:00:00Z") / 1000,
    ),
    // Created after the process started; labels whose values are all empty: no attribute of the object's.
    entry(
      `{group="",kind=""`,
      { [gaugeSlot]: `,type="first"} 7\n} 8`, [counterSlot]: `,reason="r"} 9\n,reason="s"} 10` },
      Date.parse("2026-01-01T01:00:00.123Z") / 1000,
    ),
    // The same lines again, values changed and back (each tail is kept per slot and line).
    ...[`} 1`, `} 2`, `} 2`, `} 1`].map((line, i) =>
      entry(open({ name: `again${i}` }), { [gaugeSlot]: line }),
    ),
    { state: {}, series: undefined } as unknown as ObjectEntry,
  ];
  const names = objectFamilies.map((f) => `t_${f.suffix}`);
  const selected = (1 << gaugeSlot) | (1 << counterSlot);
  return { write: () => [], objects: () => ({ names, selected, entries }) };
}

// ---- Tests -------------------------------------------------------------------------------------

test("the hand-made store: escapes, control characters, UTF-8, empty labels, NaN, ±Inf, exponents, -0, 2^53+1", async () => {
  const registry = { getMetricsAsJSON: async () => [] } as unknown as Registry;
  const mine = await assertSameAsSdk([handMadeSource()], registry);
  const { points } = pointsByMetric([mine]);
  const gauge = points.get(`t_${objectFamilies[gaugeSlot]?.suffix}`) as Json[];
  const byType = (t: string) =>
    gauge.find((p) => p.attributes.some((a: Json) => a.key === "type" && a.value.stringValue === t));
  // OTLP/JSON's own spellings, which the SDK's null cannot tell apart.
  assert.deepEqual(
    ['Quote"d', "inf", "-inf"].map((t) => byType(t)?.asDouble),
    ["NaN", "Infinity", "-Infinity"],
  );
  assert.equal(byType("big")?.asDouble, 9007199254740992);
  assert.equal(byType("exp")?.asDouble, 1.5e21);
  assert.ok(byType("control\tand\u0001/</script>"), "control characters escaped");
  assert.ok(byType("é ü 日本 😀"), "UTF-8 as it is");
  assert.equal(byType("not a point"), undefined);
  assert.deepEqual(byType('Quote"d')?.attributes.find((a: Json) => a.key === "reason")?.value, {
    stringValue: "back\\slash\nnew",
  });
  // Times as decimal strings: gauges unstarted, counters from the process start or the object's creation.
  assert.deepEqual(
    [byType("Ready")?.startTimeUnixNano, byType("Ready")?.timeUnixNano],
    [undefined, `${nowMs}000000`],
  );
  const counter = points.get(`t_${objectFamilies[counterSlot]?.suffix}`) as Json[];
  assert.deepEqual(
    counter.map((p) => p.startTimeUnixNano),
    [`${startMs}000000`, "1767229200123000000", "1767229200123000000"],
  );
  // The object without attributes: its lines' own come first (no stray comma), or none.
  assert.deepEqual(
    gauge.filter((p) => p.asDouble === 7 || p.asDouble === 8).map((p) => p.attributes),
    [[{ key: "type", value: { stringValue: "first" } }], []],
  );
  assert.deepEqual(
    gauge.slice(-4).map((p) => p.asDouble),
    [1, 2, 2, 1],
  );
});

test("a busy collector (every family, per-kind and self histograms, self metrics) is the SDK path's, exemplars as protobuf's", async () => {
  const { sources, registry } = await busyCollector(5, "objects", {
    trace_id: "0af7651916cd43dd8448eb211c80319c",
    span_id: "b7ad6b7169203331",
    pod: "p",
  });
  const mine = await assertSameAsSdk(sources, registry);
  const { points, metrics } = pointsByMetric([mine]);
  assert.ok(points.size > 30, `${points.size} metrics`);
  assert.deepEqual(metrics.get("cr_time_to_ready_seconds")?.body, { aggregationTemporality: 2 });
  assert.deepEqual(metrics.get("cr_status_updates_total")?.body, {
    aggregationTemporality: 2,
    isMonotonic: true,
  });
  const histogram = points.get("cr_time_to_ready_seconds")?.[0];
  assert.deepEqual([histogram.count, histogram.bucketCounts.slice(0, 3)], ["4", ["0", "2", "0"]]);
  // Exemplars: ids as hex (not base64), the rest as the protobuf encoder writes them.
  const exemplar = points.get("cr_reconcile_duration_seconds")?.[0].exemplars[0];
  assert.deepEqual(
    [exemplar.traceId, exemplar.spanId, exemplar.asDouble, exemplar.filteredAttributes],
    [
      "0af7651916cd43dd8448eb211c80319c",
      "b7ad6b7169203331",
      2.5,
      [{ key: "pod", value: { stringValue: "p" } }],
    ],
  );
  const [proto] = (await protobufRequests(sources, registry)) as [Decoded];
  const [rm] = proto.resource_metrics as [Decoded];
  const [sm] = rm.scope_metrics as [Decoded];
  const protoMetrics = sm.metrics as Decoded[];
  const protoExemplars = protoMetrics
    .filter((m) => m.histogram)
    .flatMap((m) =>
      ((m.histogram as Decoded).data_points as Decoded[]).flatMap((p) => (p.exemplars ?? []) as Decoded[]),
    );
  const ourExemplars = [...points.values()].flat().flatMap((p) => p.exemplars ?? []);
  assert.deepEqual(
    ourExemplars.map((e: Json) => [
      e.traceId,
      e.spanId,
      e.timeUnixNano,
      e.asDouble,
      e.filteredAttributes.length,
    ]),
    protoExemplars.map((e) => [
      e.trace_id,
      e.span_id,
      e.time_unix_nano,
      e.as_double,
      (e.filtered_attributes as []).length,
    ]),
  );
  assert.ok(ourExemplars.length >= 1);
});

test("aggregate mode (per-namespace counts) is the SDK path's", async () => {
  const { sources, registry } = await busyCollector(4, "aggregate");
  const mine = await assertSameAsSdk(sources, registry);
  assert.ok(pointsByMetric([mine]).points.has("cr_aggregate_objects"));
});

test("attribute numbers: whole ones within int64 (negative too) as intValue strings, others as doubleValue", async () => {
  const { sources, registry } = await busyCollector(1);
  const numbers = resourceFromAttributes({
    negative: -5,
    whole: 7,
    fraction: 1.5,
    big: 2 ** 53,
    huge: 2 ** 70,
  });
  const ours = await ourRequests(sources, registry, 1e9, new JsonRequestEncoder(unitOf), numbers);
  assert.deepEqual(JSON.parse(ours.text[0] as string).resourceMetrics[0].resource.attributes, [
    { key: "negative", value: { intValue: "-5" } },
    { key: "whole", value: { intValue: "7" } },
    { key: "fraction", value: { doubleValue: 1.5 } },
    { key: "big", value: { intValue: "9007199254740992" } },
    { key: "huge", value: { doubleValue: 2 ** 70 } },
  ]);
});

test("an empty store: the registry's families alone; nothing at all: no request", async () => {
  const { sources, registry } = await busyCollector(0);
  await assertSameAsSdk(sources, registry);
  const none = { getMetricsAsJSON: async () => [] } as unknown as Registry;
  assert.deepEqual((await ourRequests([], none)).text, []);
});

test("in many requests by bytes: the same points in the same order, an object never split, buffers reused", async () => {
  const { sources, registry } = await busyCollector(300);
  const encoder = new JsonRequestEncoder(unitOf);
  const ours = await ourRequests(sources, registry, 32 * 1024, encoder);
  const sdk = await sdkRequests(sources, registry, 500);
  assert.ok(ours.text.length >= 10, `${ours.text.length} requests`);
  const a = pointsByMetric(ours.text.map((t) => comparable(JSON.parse(t))));
  const b = pointsByMetric(sdk.map(asSpecified));
  assert.deepEqual(a.points, b.points);
  assert.deepEqual(a.metrics, b.metrics);
  // Each request but the last passed 32 KiB of points with its last object, not by more than an object's.
  for (const text of ours.text.slice(0, -1)) {
    const bytes = Buffer.byteLength(text);
    assert.ok(bytes >= 32 * 1024 && bytes < 32 * 1024 + 24 * 1024, `${bytes} bytes`);
  }
  assert.equal(
    ours.points.reduce((x, y) => x + y, 0),
    [...b.points.values()].reduce((n, p) => n + p.length, 0),
  );
  // A second export with the same encoder, after one given up half way: the same requests.
  const requests = encoder.requests({ ...options, sources, registry, batchBytes: 32 * 1024 });
  await requests.next();
  await requests.return(undefined);
  assert.deepEqual(await ourRequests(sources, registry, 32 * 1024, encoder), ours);
});

test("label text to KeyValue JSON reads as readLabels does; doubles as proto3 JSON has them", () => {
  const text = `{namespace="a\\"b\\\\c\\nd",e="",cluster="${byteString("é")}",k="\t${"v".repeat(130)}"} 2.5`;
  const w = new ProtoWriter(8);
  const end = writeJsonLabels(text, 0, w);
  const into: Record<string, string> = {};
  assert.equal(end, readLabels(text, 0, into));
  const pairs = JSON.parse(`[${w.view().toString("utf8").slice(1)}]`) as Json[];
  assert.deepEqual(Object.fromEntries(pairs.map((p) => [p.key, p.value.stringValue])), into);
  assert.deepEqual(
    [1, -7, 0.1, -0, 1e21, 5e-324, Number.NaN, Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY].map(
      jsonDouble,
    ),
    ["1", "-7", "0.1", "0", "1e+21", "5e-324", '"NaN"', '"Infinity"', '"-Infinity"'],
  );
});
