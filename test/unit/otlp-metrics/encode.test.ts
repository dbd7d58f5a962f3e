// Our http/protobuf encoder against the SDK path it replaced (readBatches +
// the otlp-transformer serializer): for the same store and registry, both
// yield the same ExportMetricsServiceRequest, decoded field by field with a
// decoder of the schema's own (proto-decode.ts); only our histograms add
// their exemplars. Then the wire primitives'
// edges (varints past 2^28 and 2^32, lengths of 128 and 16,384 bytes, times
// past 2^53 nanoseconds) and the batching by bytes.
import assert from "node:assert/strict";
import { test } from "node:test";
import { ProtobufMetricsSerializer } from "@opentelemetry/otlp-transformer";
import { resourceFromAttributes } from "@opentelemetry/resources";
import type { Registry } from "@prometheus-io/client";
import type { ObjectEntry } from "../../../src/core/entry.ts";
import { objectFamilies } from "../../../src/core/series/catalog.ts";
import { byteString } from "../../../src/core/series/exposition.ts";
import type { SeriesSource } from "../../../src/metrics/writer.ts";
import { RequestEncoder, writeLabelAttributes } from "../../../src/otlp-metrics/encode.ts";
import { valueAt } from "../../../src/otlp-metrics/line-text.ts";
import { unitOf } from "../../../src/otlp-metrics/mapping.ts";
import { hrTime, readLabels } from "../../../src/otlp-metrics/points.ts";
import {
  fieldBytes,
  nanosHalves,
  ProtoWriter,
  secondsNanosHalves,
  varintBytes,
} from "../../../src/otlp-metrics/proto-writer.ts";
import { eachInSlices } from "../../../src/status/slices.ts";
import { fakeTurns } from "../../support/turns.ts";
import { type Decoded, decodeRequest } from "./proto-decode.ts";
import { readBatches } from "./sdk-batches.ts";
import { busyCollector, counterSlot, entry, gaugeSlot, open } from "./support.ts";

const nowMs = Date.parse("2026-01-01T02:00:00Z");
const startMs = Date.parse("2026-01-01T00:30:00Z");
const resource = resourceFromAttributes({ "service.name": "cr-status-exporter", "service.version": "1.2.3" });
const scope = { name: "cr-status-exporter", version: "test" };

async function sdkRequests(
  sources: readonly SeriesSource[],
  registry: Registry,
  maxPoints = 1e9,
  of = resource,
): Promise<Uint8Array[]> {
  const out: Uint8Array[] = [];
  for await (const batch of readBatches({
    sources,
    registry,
    resource: of,
    scope,
    nowMs,
    startMs,
    maxPoints,
  })) {
    out.push(ProtobufMetricsSerializer.serializeRequest(batch) as Uint8Array);
  }
  return out;
}

async function ourRequests(
  sources: readonly SeriesSource[],
  registry: Registry,
  batchBytes = 1e9,
  encoder = new RequestEncoder(unitOf),
  of = resource,
): Promise<{ bytes: Buffer[]; points: number[] }> {
  const out = { bytes: [] as Buffer[], points: [] as number[] };
  for await (const r of encoder.requests({
    sources,
    registry,
    resource: of,
    scope,
    nowMs,
    startMs,
    batchBytes,
  })) {
    out.bytes.push(Buffer.from(r.payload));
    out.points.push(r.points);
  }
  return out;
}

/** Byte for byte (a diff of megabytes would take minutes to print). */
const sameRequests = (a: Buffer[], b: Buffer[]): boolean =>
  a.length === b.length && a.every((x, i) => x.equals(b[i] as Buffer));

/** A decoded request without its histograms' exemplars (the SDK path writes none). */
function withoutExemplars(request: Decoded): Decoded {
  return JSON.parse(
    JSON.stringify(request, (k, v) => (k === "exemplars" ? undefined : v)),
    // JSON has no NaN or infinities: carried as strings both ways.
  );
}

/** Decoded, with NaN and infinities as strings so that deepEqual and JSON agree. */
const decoded = (bytes: Uint8Array): Decoded =>
  JSON.parse(
    JSON.stringify(decodeRequest(bytes), (_, v) =>
      typeof v === "number" && !Number.isFinite(v) ? String(v) : v,
    ),
  );

type Points = Map<string, unknown[]>;

/** Every data point of the requests, by metric name, in order (batch boundaries forgotten). */
function pointsByMetric(requests: Decoded[]): { points: Points; metrics: Map<string, Decoded> } {
  const points: Points = new Map();
  const metrics = new Map<string, Decoded>();
  for (const request of requests) {
    const rm = (request.resource_metrics as Decoded[])[0] as Decoded;
    for (const metric of ((rm.scope_metrics as Decoded[])[0] as Decoded).metrics as Decoded[]) {
      const name = metric.name as string;
      const body = (metric.gauge ?? metric.sum ?? metric.histogram) as Decoded;
      points.set(name, [...(points.get(name) ?? []), ...(body.data_points as unknown[])]);
      const { data_points: _, ...rest } = body;
      metrics.set(name, { ...metric, gauge: undefined, sum: undefined, histogram: undefined, body: rest });
    }
  }
  return { points, metrics };
}

// ---- A hand-made store: every value and label shape a line can take ---------------------------

const otherGauge = objectFamilies.find((f) => f.type === "gauge" && f.slot !== gaugeSlot)?.slot as number;

function handMadeSource(): SeriesSource {
  const long = "x".repeat(200);
  const huge = "y".repeat(20_000);
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
          `,type="digits15"} 999999999999999`,
          `,type="empty",reason=""} 3`,
          `} 1767225600`,
        ].join("\n"),
        [otherGauge]: `,type="${byteString("é ü 日本")}"} 2`,
        [counterSlot]: `} 5`,
      },
      Date.parse("2026-01-01T00:00:00Z") / 1000,
    ),
    // Created after the process started; a cluster-scoped object (empty namespace); long values.
    entry(
      open({ group: "example.com", kind: "Widget", namespace: "", name: long, cluster: "" }),
      { [gaugeSlot]: `,type="${huge}"} 7`, [counterSlot]: `,reason="r"} 9\n,reason="s"} 10` },
      Date.parse("2026-01-01T01:00:00.123Z") / 1000,
    ),
    // Lines in a slot the resource does not select: skipped, the next slot's lines still found.
    entry(open({ group: "g", kind: "K", namespace: "n", name: "unselected" }), {
      0: `,type="x"} 1`,
      [gaugeSlot]: `} 4`,
    }),
    // Line by line like the objects before, or nearly: values that come back (the encoder keeps the last
    // line it read per slot and line), labels one longer or shorter, a line that is no point.
    ...[
      [`,type="Ready"} 1`, `} 0`],
      [`,type="Ready",status="x"} 1`, `} 1`],
      [`,type="Read"} 1`, `} 1`],
      [`,type="Ready"} 1`, `} 0`],
      [`,type="Ready"} 1`, `} 0`],
      [`,type="Ready"} 2`, `} 0`],
      [`,type="Ready" 2`, `} -0`],
      [`,type="Ready"} 2`, `} NaN`],
      [`,type="Ready"} 1`, `} NaN`],
      [`,type="Ready"} 1`, `} 0`],
    ].map(([gauge, counter], i) =>
      entry(open({ group: "g", kind: "K", namespace: "n", name: `again${i}` }), {
        [gaugeSlot]: gauge as string,
        [counterSlot]: counter as string,
      }),
    ),
    // No series (aggregate mode, or left out by the cap).
    { state: {}, series: undefined } as unknown as ObjectEntry,
  ];
  const names = objectFamilies.map((f) => `t_${f.suffix}`);
  const selected = (1 << gaugeSlot) | (1 << counterSlot) | (1 << otherGauge);
  return { write: () => [], objects: () => ({ names, selected, entries }) };
}

async function assertSameAsSdk(sources: readonly SeriesSource[], registry: Registry): Promise<Decoded> {
  const sdk = await sdkRequests(sources, registry);
  const ours = await ourRequests(sources, registry);
  assert.equal(ours.bytes.length, sdk.length, "requests");
  assert.equal(sdk.length, 1, "one batch each");
  const mine = decoded(ours.bytes[0] as Buffer);
  assert.deepEqual(withoutExemplars(mine), decoded(sdk[0] as Uint8Array));
  return mine;
}

test("the hand-made store: escaped, UTF-8, empty, long and huge labels; NaN, ±Inf, decimals, exponents, -0, 2^53+1", async () => {
  const registry = { getMetricsAsJSON: async () => [] } as unknown as Registry;
  const sources = [handMadeSource()];
  const mine = await assertSameAsSdk(sources, registry);
  // No exemplars anywhere: the same fields (a point's attributes come first in ours), but for the
  // gauges' start times: the SDK writes 0 (9 bytes), ours leave the field out.
  const sdk = await sdkRequests(sources, registry);
  const ours = await ourRequests(sources, registry);
  const zeroStarts = (bytes: Uint8Array) =>
    JSON.stringify(decodeRequest(bytes, { zeros: true })).split('"start_time_unix_nano":"0"').length - 1;
  const unstarted = zeroStarts(sdk[0] as Uint8Array);
  assert.ok(unstarted >= 20, `${unstarted} gauge points`);
  assert.equal(zeroStarts(ours.bytes[0] as Buffer), 0);
  // The lengths of the messages around them can be a byte shorter too (a varint below 2^7k).
  const spared = (sdk[0]?.length as number) - (ours.bytes[0]?.length as number) - 9 * unstarted;
  assert.ok(spared >= 0 && spared <= 8, `${spared} bytes of lengths spared`);
  // Spot checks on what was decoded, against the text.
  const { points } = pointsByMetric([mine]);
  const gauge = points.get(`t_${objectFamilies[gaugeSlot]?.suffix}`) as Decoded[];
  const byType = (t: string) =>
    gauge.find((p) =>
      (p.attributes as Decoded[]).some((a) => a.key === "type" && (a.value as Decoded).string_value === t),
    );
  assert.equal(byType("Ready")?.as_double, 1);
  assert.equal(byType('Quote"d')?.as_double, "NaN");
  assert.deepEqual(
    ((byType('Quote"d')?.attributes ?? []) as Decoded[]).find((a) => a.key === "reason")?.value,
    {
      string_value: "back\\slash\nnew",
    },
  );
  assert.equal(byType("inf")?.as_double, "Infinity");
  assert.equal(byType("-inf")?.as_double, "-Infinity");
  assert.equal(byType("big")?.as_double, 9007199254740992);
  assert.ok(byType("é ü 日本") === undefined && points.size === 3);
  // The lines read again: each value as its own line says.
  const again = (name: string) =>
    gauge.find((p) => (p.attributes as Decoded[]).some((a) => (a.value as Decoded).string_value === name));
  assert.deepEqual(
    Array.from({ length: 10 }, (_, i) => again(`again${i}`)?.as_double),
    [1, 1, 1, 1, 1, 2, undefined, 2, 1, 1],
  );
  const empty = byType("empty")?.attributes as Decoded[];
  assert.deepEqual(
    empty.map((a) => a.key),
    ["group", "kind", "k8s.namespace.name", "name", "k8s.cluster.name", "type"],
  );
  assert.equal(byType("y".repeat(20_000))?.as_double, 7);
  const counter = points.get(`t_${objectFamilies[counterSlot]?.suffix}`) as Decoded[];
  assert.deepEqual(
    counter.slice(0, 3).map((p) => p.start_time_unix_nano),
    [startMs, Date.parse("2026-01-01T01:00:00.123Z"), Date.parse("2026-01-01T01:00:00.123Z")].map((ms) =>
      String(BigInt(ms) * 1_000_000n),
    ),
  );
});

test("a busy collector (every family, per-kind and self histograms, self metrics) decodes as the SDK path's", async () => {
  const { sources, registry } = await busyCollector(5);
  const mine = await assertSameAsSdk(sources, registry);
  const { points, metrics } = pointsByMetric([mine]);
  assert.ok(points.size > 30, `${points.size} metrics`);
  assert.deepEqual(metrics.get("cr_time_to_ready_seconds")?.body, { aggregation_temporality: "2" });
  // Our histograms carry their exemplar: the trace id as bytes, the value, when it was observed.
  const reconcile = points.get("cr_reconcile_duration_seconds") as Decoded[];
  const exemplars = reconcile[0]?.exemplars as Decoded[];
  assert.equal(exemplars.length, 1);
  assert.equal(exemplars[0]?.trace_id, "0af7651916cd43dd8448eb211c80319c");
  assert.equal(exemplars[0]?.as_double, 2.5);
  assert.equal(exemplars[0]?.span_id, undefined);
  assert.ok(
    Math.abs(Number(BigInt(exemplars[0]?.time_unix_nano as string) / 1_000_000n) - Date.now()) < 60_000,
  );
});

test("aggregate mode (per-namespace counts) decodes as the SDK path's", async () => {
  const { sources, registry } = await busyCollector(4, "aggregate");
  const mine = await assertSameAsSdk(sources, registry);
  assert.ok(pointsByMetric([mine]).points.has("cr_aggregate_objects"));
});

test("attribute numbers: whole ones within int64 (negative too) as int_value, others as double_value, as the SDK writes them", async () => {
  const { sources, registry } = await busyCollector(1);
  const numbers = resourceFromAttributes({
    "service.name": "x",
    negative: -5,
    whole: 7,
    fraction: 1.5,
    big: 2 ** 53,
  });
  const sdk = await sdkRequests(sources, registry, 1e9, numbers);
  const ours = await ourRequests(sources, registry, 1e9, new RequestEncoder(unitOf), numbers);
  const attributes = (bytes: Uint8Array) =>
    (((decodeRequest(bytes).resource_metrics as Decoded[])[0] as Decoded).resource as Decoded).attributes;
  assert.deepEqual(attributes(ours.bytes[0] as Buffer), attributes(sdk[0] as Uint8Array));
  assert.deepEqual(attributes(ours.bytes[0] as Buffer), [
    { key: "service.name", value: { string_value: "x" } },
    // int64 -5 as a varint: its two's complement read unsigned.
    { key: "negative", value: { int_value: String(2n ** 64n - 5n) } },
    { key: "whole", value: { int_value: "7" } },
    { key: "fraction", value: { double_value: 1.5 } },
    { key: "big", value: { int_value: String(2 ** 53) } },
  ]);
  // Past int64 a double, in both encoders.
  const huge = resourceFromAttributes({ huge: -(2 ** 63), bigger: 2 ** 70 });
  const hugeOnes = await ourRequests(sources, registry, 1e9, new RequestEncoder(unitOf), huge);
  assert.deepEqual(attributes(hugeOnes.bytes[0] as Buffer), [
    { key: "huge", value: { double_value: -(2 ** 63) } },
    { key: "bigger", value: { double_value: 2 ** 70 } },
  ]);
});

test("an empty store: the registry's families alone; nothing at all: no request", async () => {
  const { sources, registry } = await busyCollector(0);
  await assertSameAsSdk(sources, registry);
  const none = { getMetricsAsJSON: async () => [] } as unknown as Registry;
  assert.deepEqual(await sdkRequests([], none), []);
  assert.deepEqual((await ourRequests([], none)).bytes, []);
});

test("in many requests by bytes: the same points in the same order, an object never split, buffers reused", async () => {
  const { sources, registry } = await busyCollector(300);
  const encoder = new RequestEncoder(unitOf);
  const ours = await ourRequests(sources, registry, 16 * 1024, encoder);
  const sdk = await sdkRequests(sources, registry, 500);
  assert.ok(ours.bytes.length >= 10, `${ours.bytes.length} requests`);
  const a = pointsByMetric(ours.bytes.map(decoded).map(withoutExemplars));
  const b = pointsByMetric(sdk.map(decoded));
  assert.deepEqual(a.points, b.points);
  assert.deepEqual(a.metrics, b.metrics);
  // Each request but the last passed 16 KiB of points with its last object, not by more than an object's.
  for (const bytes of ours.bytes.slice(0, -1)) {
    assert.ok(bytes.length >= 16 * 1024 && bytes.length < 16 * 1024 + 8 * 1024, `${bytes.length} bytes`);
  }
  const total = ours.points.reduce((x, y) => x + y, 0);
  assert.equal(
    total,
    [...b.points.values()].reduce((n, p) => n + p.length, 0),
  );
  // A second export with the same encoder: the same requests.
  const again = await ourRequests(sources, registry, 16 * 1024, encoder);
  assert.ok(sameRequests(again.bytes, ours.bytes), "the same requests again");
});

test("a request given up half way: the next export starts clean", async () => {
  const { sources, registry } = await busyCollector(100);
  const encoder = new RequestEncoder(unitOf);
  const whole = await ourRequests(sources, registry, 8 * 1024, encoder);
  const requests = encoder.requests({
    sources,
    registry,
    resource,
    scope,
    nowMs,
    startMs,
    batchBytes: 8 * 1024,
  });
  await requests.next();
  await requests.return(undefined);
  const next = await ourRequests(sources, registry, 8 * 1024, encoder);
  assert.ok(sameRequests(next.bytes, whole.bytes), "the same requests as a whole export's");
  assert.deepEqual(next.points, whole.points);
});

test("an export reads only while a turn's budget lasts, three turns of four while a status walk waits", async () => {
  const { sources, registry } = await busyCollector(40);
  const { clock, turns } = fakeTurns(5);
  // Every object read takes 1 ms of the budget.
  const readInTurn: number[] = [];
  const ticking = sources.map((source) => ({
    write: source.write.bind(source),
    objects: () => {
      const objects = source.objects?.();
      if (!objects) return undefined;
      const entries = function* () {
        for (const entry of objects.entries) {
          readInTurn.push(clock.turns);
          clock.now += 1;
          yield entry;
        }
      };
      return { ...objects, entries: entries() };
    },
  }));
  const exported = (async () => {
    const requests = new RequestEncoder(unitOf).requests({
      sources: ticking,
      registry,
      resource,
      scope,
      nowMs,
      startMs,
      batchBytes: 1e9,
      turns,
    });
    for await (const _ of requests);
  })();
  const walkTurns: number[] = [];
  const walk = eachInSlices(
    Array.from({ length: 40 * 256 }, (_, i) => i),
    () => {
      walkTurns.push(clock.turns);
      clock.now += 1 / 256;
    },
    turns,
  );
  await Promise.all([exported, walk]);
  const perTurn = new Map<number, number>();
  for (const turn of readInTurn) perTurn.set(turn, (perTurn.get(turn) ?? 0) + 1);
  assert.ok(Math.max(...perTurn.values()) <= 5, `objects read per turn: ${[...perTurn.values()]}`);
  // The export's turns come first (three of four), the walk's in between, never both in one turn.
  assert.deepEqual([...perTurn.keys()].slice(0, 6), [1, 2, 3, 5, 6, 7]);
  for (const turn of new Set(walkTurns))
    assert.ok(!perTurn.has(turn), `turn ${turn} ran both the export and the walk`);
});

// ---- Wire primitives ---------------------------------------------------------------------------

/** A varint decoded with BigInt, independently of the writer. */
function readVarint(buf: Buffer, at = 0): { value: bigint; bytes: number } {
  let value = 0n;
  let i = at;
  for (let shift = 0n; ; shift += 7n) {
    const b = buf[i++] as number;
    value |= BigInt(b & 0x7f) << shift;
    if (b < 0x80) return { value, bytes: i - at };
  }
}

test("varints: each boundary of 7 bits up to 2^53 - 1, sizes as written", () => {
  const values = [
    0,
    1,
    127,
    128,
    16_383,
    16_384,
    2 ** 21 - 1,
    2 ** 21,
    2 ** 28 - 1,
    2 ** 28,
    2 ** 31 - 1,
    2 ** 31,
  ];
  values.push(2 ** 32 - 1, 2 ** 32, 2 ** 35, 2 ** 42 - 1, 2 ** 49, 2 ** 53 - 1, 1767225600123);
  for (const v of values) {
    const w = new ProtoWriter(1);
    w.varint(v);
    const read = readVarint(w.view());
    assert.equal(read.value, BigInt(v), `${v}`);
    assert.equal(read.bytes, w.pos, `${v}: all bytes read`);
    assert.equal(varintBytes(v), w.pos, `${v}: predicted size`);
  }
  assert.equal(fieldBytes(127), 1 + 1 + 127);
  assert.equal(fieldBytes(128), 1 + 2 + 128);
});

test("times: fixed64 nanoseconds equal BigInt's, past 2^53 ns, fractions of a millisecond rounded as HrTime", () => {
  const halves = new Uint32Array(2);
  const nanos = () => (BigInt(halves[1] as number) << 32n) | BigInt(halves[0] as number);
  for (const ms of [
    0,
    1,
    999,
    1000,
    104 * 86_400_000,
    nowMs,
    startMs + 0.5,
    4_102_444_800_000,
    2 ** 42 + 0.123456,
  ]) {
    nanosHalves(ms, halves);
    const [s, n] = hrTime(ms);
    assert.equal(nanos(), BigInt(s) * 1_000_000_000n + BigInt(n), `${ms}`);
    secondsNanosHalves(s, n, halves);
    assert.equal(nanos(), BigInt(s) * 1_000_000_000n + BigInt(n), `${ms} as HrTime`);
  }
});

test("a growing writer: lengths of 128 and 16,384 bytes and buffers doubled past their size keep every byte", () => {
  for (const n of [127, 128, 16_383, 16_384, 70_000]) {
    const inner = new ProtoWriter(16);
    for (let i = 0; i < n; i++) inner.key(i & 0x7f);
    const outer = new ProtoWriter(4);
    outer.field(0x0a, inner);
    const v = outer.view();
    assert.equal(v[0], 0x0a);
    const len = readVarint(v, 1);
    assert.equal(Number(len.value), n);
    assert.equal(v.length, 1 + len.bytes + n);
    assert.ok(v.subarray(1 + len.bytes).equals(inner.view()));
  }
});

test("label text to KeyValue bytes reads as readLabels does; values of the text", () => {
  const text = `{namespace="a\\"b",e="",cluster="${byteString("é")}",k="${"v".repeat(130)}"} 2.5`;
  const w = new ProtoWriter(8);
  const end = writeLabelAttributes(text, 0, w, 0x3a);
  const into: Record<string, string> = {};
  assert.equal(end, readLabels(text, 0, into));
  // As the one NumberDataPoint (attributes only) of a request.
  const request = wrap(0x0a, wrap(0x12, wrap(0x12, wrap(0x2a, wrap(0x0a, Buffer.from(w.view()))))));
  const rm = (decodeRequest(request).resource_metrics as Decoded[])[0] as Decoded;
  const metric = (((rm.scope_metrics as Decoded[])[0] as Decoded).metrics as Decoded[])[0] as Decoded;
  const point = ((metric.gauge as Decoded).data_points as Decoded[])[0] as Decoded;
  const attributes = point.attributes as Decoded[];
  assert.deepEqual(
    Object.fromEntries(attributes.map((a) => [a.key, (a.value as Decoded).string_value])),
    into,
  );
  for (const [t, v] of [
    ["1", 1],
    ["-7", -7],
    ["NaN", Number.NaN],
    ["+Inf", Number.POSITIVE_INFINITY],
    ["1e3", 1000],
    ["0.1", 0.1],
    ["1234567890123456", 1234567890123456],
    ["", 0],
  ] as const)
    assert.ok(Object.is(valueAt(`x ${t}`, 2, 2 + t.length), v), t);
});

/** `body` as a length-delimited field keyed `tag`. */
function wrap(tag: number, body: Buffer): Buffer {
  const w = new ProtoWriter(16);
  w.field(tag, { buf: body, pos: body.length } as ProtoWriter);
  return Buffer.from(w.view());
}
