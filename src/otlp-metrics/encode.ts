// The http/protobuf requests of one OTLP export, written as
// ExportMetricsServiceRequest bytes straight from the stores: no SDK data
// point, attribute object or HrTime per point. Each object's labels are
// parsed once into the KeyValue bytes every one of its points repeats; a
// point is then those bytes, the line's own labels and its value, appended to
// its family's buffer. A request is assembled (lengths known by then) when
// the points read pass `batchBytes`, and the event loop gets a turn whenever
// the shared turn budget is spent (both decided in requests.ts, whose
// PointBatch keeps the families and points of a request for both formats;
// line-text.ts reads the lines for both). The buffers are kept by the
// encoder and reused from one request and one export to the next.
//
// The mapping is points.ts's (the aggregate and registry families are read
// there, a few hundred points, and only their bytes are written here): for
// the same batch, the request decodes as the SDK serializer's, exemplars
// aside (test/unit/otlp-metrics/encode.test.ts).
// Schema: opentelemetry-proto's collector/metrics/v1/metrics_service.proto,
// metrics/v1/metrics.proto, common/v1/common.proto, resource/v1/resource.proto.
import type { HrTime } from "@opentelemetry/api";
import type { DataPoint, Histogram } from "@opentelemetry/sdk-metrics";
import { type LabelSpan, labelAt, renamedAt, type TailFormat } from "./line-text.ts";
import type { Family, HistogramPoint, PointExemplar } from "./points.ts";
import {
  fieldBytes,
  nanosHalves,
  ProtoWriter,
  secondsNanosHalves,
  tagOf,
  varintBytes,
  wire,
} from "./proto-writer.ts";
import { type EncodedRequest, type EncodeOptions, PointBatch } from "./requests.ts";

// Field keys, by message (one byte each: every field number is below 16).
const key = {
  request: { resourceMetrics: tagOf(1, wire.bytes) },
  resourceMetrics: {
    resource: tagOf(1, wire.bytes),
    scopeMetrics: tagOf(2, wire.bytes),
    schemaUrl: tagOf(3, wire.bytes),
  },
  resource: { attributes: tagOf(1, wire.bytes), dropped: tagOf(2, wire.varint) },
  scopeMetrics: {
    scope: tagOf(1, wire.bytes),
    metrics: tagOf(2, wire.bytes),
    schemaUrl: tagOf(3, wire.bytes),
  },
  scope: { name: tagOf(1, wire.bytes), version: tagOf(2, wire.bytes) },
  metric: {
    name: tagOf(1, wire.bytes),
    description: tagOf(2, wire.bytes),
    unit: tagOf(3, wire.bytes),
    gauge: tagOf(5, wire.bytes),
    sum: tagOf(7, wire.bytes),
    histogram: tagOf(9, wire.bytes),
  },
  /** Gauge, Sum and Histogram alike. */
  data: {
    points: tagOf(1, wire.bytes),
    temporality: tagOf(2, wire.varint),
    monotonic: tagOf(3, wire.varint),
  },
  number: {
    start: tagOf(2, wire.fixed64),
    time: tagOf(3, wire.fixed64),
    asDouble: tagOf(4, wire.fixed64),
    attributes: tagOf(7, wire.bytes),
  },
  histogram: {
    start: tagOf(2, wire.fixed64),
    time: tagOf(3, wire.fixed64),
    count: tagOf(4, wire.fixed64),
    sum: tagOf(5, wire.fixed64),
    bucketCounts: tagOf(6, wire.bytes),
    bounds: tagOf(7, wire.bytes),
    exemplars: tagOf(8, wire.bytes),
    attributes: tagOf(9, wire.bytes),
  },
  exemplar: {
    time: tagOf(2, wire.fixed64),
    asDouble: tagOf(3, wire.fixed64),
    spanId: tagOf(4, wire.bytes),
    traceId: tagOf(5, wire.bytes),
    attributes: tagOf(7, wire.bytes),
  },
  keyValue: { key: tagOf(1, wire.bytes), value: tagOf(2, wire.bytes) },
  anyValue: {
    string: tagOf(1, wire.bytes),
    bool: tagOf(2, wire.varint),
    int: tagOf(3, wire.varint),
    double: tagOf(4, wire.fixed64),
    array: tagOf(5, wire.bytes),
  },
} as const;

/** AggregationTemporality.AGGREGATION_TEMPORALITY_CUMULATIVE. */
const cumulative = 2;

/** A NumberDataPoint's start, time and as_double fields: 3 × (key + 8 bytes), at most. */
const numberFixedBytes = 27;

// ---- Label text → KeyValue bytes --------------------------------------------------------------

/** Writes an ASCII or byte string (every char one byte) [from, to) of `text`; room ensured by the caller. */
function writeBytes(w: ProtoWriter, text: string, from: number, to: number): void {
  const buf = w.buf;
  let pos = w.pos;
  for (let i = from; i < to; i++) buf[pos++] = text.charCodeAt(i);
  w.pos = pos;
}

/** Writes a label value between quotes, [from, to), unescaped (`\\` `\"` `\n`); room ensured by the caller. */
function writeUnescaped(w: ProtoWriter, text: string, from: number, to: number): void {
  const buf = w.buf;
  let pos = w.pos;
  for (let i = from; i < to; i++) {
    let c = text.charCodeAt(i);
    if (c === 92 /* \ */) {
      c = text.charCodeAt(++i);
      if (c === 110 /* n */) c = 10;
    }
    buf[pos++] = c;
  }
  w.pos = pos;
}

/**
 * Writes the labels of `text` at `at` (`{a="x",b="y"` or `,a="x"`, a byte
 * string as rendered) to `w` as KeyValue fields keyed `tag`, as readLabels
 * reads them: names renamed to attributes, values unescaped, empty values
 * left out. Returns the index of the first character that starts no label.
 */
export function writeLabelAttributes(text: string, at: number, w: ProtoWriter, tag: number): number {
  let i = at;
  for (let next = writeLabel(text, i, w, tag); next !== i; next = writeLabel(text, i, w, tag)) i = next;
  return i;
}

const span: LabelSpan = { eq: 0, close: 0, valueBytes: 0 };

/** Writes the one label at `at` (`,a="x"` or `{a="x"`); returns where it ends, `at` when none starts there. */
export function writeLabel(text: string, at: number, w: ProtoWriter, tag: number): number {
  const next = labelAt(text, at, span);
  const { eq, close, valueBytes } = span;
  if (next === at || valueBytes === 0) return next;
  const renamed = renamedAt(text, at + 1, eq);
  const keyBytes = renamed === undefined ? eq - at - 1 : renamed.length;
  const anyBytes = fieldBytes(valueBytes);
  const pairBytes = fieldBytes(keyBytes) + fieldBytes(anyBytes);
  w.ensure(fieldBytes(pairBytes) + 8);
  w.byte(tag);
  w.varint(pairBytes);
  w.byte(key.keyValue.key);
  w.varint(keyBytes);
  if (renamed === undefined) writeBytes(w, text, at + 1, eq);
  else writeBytes(w, renamed, 0, renamed.length);
  w.byte(key.keyValue.value);
  w.varint(anyBytes);
  w.byte(key.anyValue.string);
  w.varint(valueBytes);
  writeUnescaped(w, text, eq + 2, close);
  return next;
}

// ---- Attribute objects → KeyValue bytes (resource, aggregate and registry points) -------------

type AttributeValue = string | number | boolean | readonly (string | number | boolean)[];

/** An AnyValue's body, as the SDK serializer types attribute values. */
function writeAnyValue(w: ProtoWriter, value: AttributeValue): void {
  if (typeof value === "string") {
    w.key(key.anyValue.string);
    w.string(value);
  } else if (typeof value === "boolean") {
    w.ensure(2);
    w.byte(key.anyValue.bool);
    w.byte(value ? 1 : 0);
  } else if (typeof value === "number") {
    if (isInt64(value)) {
      w.key(key.anyValue.int);
      if (value >= 0) w.varint(value);
      else w.negativeVarint(value);
    } else {
      w.key(key.anyValue.double);
      w.double(value);
    }
  } else {
    const items = new ProtoWriter(256);
    for (const item of value) {
      const one = new ProtoWriter(64);
      writeAnyValue(one, item);
      items.field(tagOf(1, wire.bytes), one);
    }
    w.field(key.anyValue.array, items);
  }
}

/**
 * Whether an attribute number is an AnyValue's int_value: whole and within
 * int64, as the SDK types them (both encoders decide by this).
 */
export const isInt64 = (value: number): boolean => Number.isInteger(value) && Math.abs(value) < 2 ** 63;

/** Scratch of writeAttributes (never nested: an AnyValue holds no attributes). */
const pair = new ProtoWriter(256);
const any = new ProtoWriter(256);

/** KeyValue fields keyed `tag` for every attribute, in the object's order. */
function writeAttributes(w: ProtoWriter, tag: number, attributes: Readonly<Record<string, unknown>>): void {
  for (const name in attributes) {
    const value = attributes[name] as AttributeValue | undefined;
    if (value === undefined || value === null) continue;
    pair.reset();
    any.reset();
    writeAnyValue(any, value);
    pair.key(key.keyValue.key);
    pair.string(name);
    pair.field(key.keyValue.value, any);
    w.field(tag, pair);
  }
}

// ---- Families --------------------------------------------------------------------------------

/** One metric of the request being read: its fields before the points, and its points' bytes. */
class FamilyPoints {
  readonly family: Family;
  /** name, description, unit, then the key of gauge / sum / histogram. */
  readonly head: Buffer;
  /** After the points: temporality, monotonicity. */
  readonly tail: Buffer;
  readonly points = new ProtoWriter(4 * 1024);
  count = 0;

  constructor(family: Family, unit: string) {
    this.family = family;
    const w = new ProtoWriter(256);
    w.key(key.metric.name);
    w.string(family.name);
    if (family.help) {
      w.key(key.metric.description);
      w.string(family.help);
    }
    if (unit) {
      w.key(key.metric.unit);
      w.string(unit);
    }
    const t = family.type;
    w.key(t === "gauge" ? key.metric.gauge : t === "counter" ? key.metric.sum : key.metric.histogram);
    this.head = Buffer.from(w.view());
    const tail = t === "gauge" ? [] : [key.data.temporality, cumulative];
    if (t === "counter") tail.push(key.data.monotonic, 1);
    this.tail = Buffer.from(tail);
  }

  /** Bytes of the Gauge / Sum / Histogram message. */
  get dataBytes(): number {
    return this.points.pos + this.tail.length;
  }

  /** Bytes of the Metric message. */
  get metricBytes(): number {
    return this.head.length + varintBytes(this.dataBytes) + this.dataBytes;
  }
}

/** A NumberDataPoint's as_double value first, then its KeyValue fields. */
const protobufTail: TailFormat = {
  labelsFrom: 8,
  labels: (text, from, w) => writeLabelAttributes(text, from, w, key.number.attributes),
  closeLabels: () => {},
  value: (w, value) => {
    w.buf.writeDoubleLE(value, 0);
  },
};

// ---- The encoder -----------------------------------------------------------------------------

/**
 * Writes the requests of exports, keeping its buffers between them (a few
 * MiB at most: the request being assembled and the points of one batch).
 */
export class RequestEncoder extends PointBatch<FamilyPoints> {
  /** The request being assembled: grows to a request's size at the first export. */
  readonly #out = new ProtoWriter(64 * 1024);
  /**
   * What every point of the current object starts with, for its gauges and
   * its counters: its attributes, the start and end times, the value's key.
   */
  readonly #gaugeHead = new ProtoWriter(1024);
  readonly #counterHead = new ProtoWriter(1024);
  /** One point's own attributes (or a histogram's exemplars). */
  readonly #own = new ProtoWriter(1024);
  readonly #exemplar = new ProtoWriter(256);
  readonly #time = new Uint32Array(2);
  readonly #start = new Uint32Array(2);
  #prefix: Buffer = Buffer.alloc(0);
  #scope: Buffer = Buffer.alloc(0);
  #suffix: Buffer = Buffer.alloc(0);

  constructor(unitOf: (name: string) => string) {
    super(unitOf, protobufTail);
  }

  /** The resource and scope of every request of this export, and its time. */
  begin({ resource, scope, nowMs }: EncodeOptions): void {
    this.clear();
    nanosHalves(nowMs, this.#time);
    const attributes = new ProtoWriter(1024);
    writeAttributes(attributes, key.resource.attributes, resource.attributes);
    attributes.ensure(2);
    attributes.byte(key.resource.dropped);
    attributes.byte(0);
    const prefix = new ProtoWriter(1024);
    prefix.field(key.resourceMetrics.resource, attributes);
    this.#prefix = Buffer.from(prefix.view());
    const s = new ProtoWriter(256);
    s.key(key.scope.name);
    s.string(scope.name);
    if (scope.version) {
      s.key(key.scope.version);
      s.string(scope.version);
    }
    const scoped = new ProtoWriter(256);
    scoped.field(key.scopeMetrics.scope, s);
    this.#scope = Buffer.from(scoped.view());
    const suffix = new ProtoWriter(256);
    if (resource.schemaUrl) {
      suffix.key(key.resourceMetrics.schemaUrl);
      suffix.string(resource.schemaUrl);
    }
    this.#suffix = Buffer.from(suffix.view());
  }

  protected newFamily(family: Family, unit: string): FamilyPoints {
    return new FamilyPoints(family, unit);
  }

  /**
   * The object's labels as attributes, once for all its points, then the
   * fields every point repeats. The attributes come first: the order of
   * fields is free, and this way a point is one copy of its head, its value
   * and its own labels.
   */
  protected objectHeads(open: string, counterStartMs: number): void {
    const gauge = this.#gaugeHead;
    const counter = this.#counterHead;
    gauge.reset();
    writeLabelAttributes(open, 0, gauge, key.number.attributes);
    counter.reset();
    counter.copy(gauge.buf, 0, gauge.pos);
    this.#stamp(gauge);
    nanosHalves(counterStartMs, this.#start);
    this.#stamp(counter, this.#start[0] as number, this.#start[1] as number);
    this.gaugeView = gauge.buf.subarray(0, gauge.pos);
    this.counterView = counter.buf.subarray(0, counter.pos);
  }

  /**
   * The start time (none for a gauge: proto3 reads an absent field as 0, the
   * "unset" the data model gives gauges, and 9 bytes of each point are
   * spared), the end time and the value's key.
   */
  #stamp(w: ProtoWriter, startLow?: number, startHigh = 0): void {
    w.ensure(numberFixedBytes);
    if (startLow !== undefined) {
      w.byte(key.number.start);
      w.fixed64(startLow, startHigh);
    }
    w.byte(key.number.time);
    w.fixed64(this.#time[0] as number, this.#time[1] as number);
    w.byte(key.number.asDouble);
  }

  /** A point's key and length. */
  protected frame(w: ProtoWriter, body: number): void {
    w.ensure(fieldBytes(body));
    w.byte(key.data.points);
    w.varint(body);
  }

  /** An aggregate or registry point (the PointSink points.ts writes to). */
  add(family: Family, point: DataPoint<number> | DataPoint<Histogram>): void {
    const f = this.family(family);
    if (typeof point.value === "number") this.#numberPoint(f, point as DataPoint<number>);
    else this.#histogramPoint(f, point as HistogramPoint);
  }

  #numberPoint(f: FamilyPoints, point: DataPoint<number>): void {
    const own = this.#own;
    own.reset();
    writeAttributes(own, key.number.attributes, point.attributes);
    const unstarted = point.startTime[0] === 0 && point.startTime[1] === 0;
    const w = this.startPoint(f, numberFixedBytes - (unstarted ? 9 : 0) + own.pos);
    if (!unstarted) this.#hrTime(w, key.number.start, point.startTime);
    this.#hrTime(w, key.number.time, point.endTime);
    w.byte(key.number.asDouble);
    w.double(point.value);
    w.copy(own.buf, 0, own.pos);
    this.endPoint(f, w);
  }

  #histogramPoint(f: FamilyPoints, point: HistogramPoint): void {
    const { count, sum, buckets } = point.value;
    const own = this.#own;
    own.reset();
    for (const e of point.exemplars ?? []) this.#exemplarField(own, e);
    const exemplarBytes = own.pos;
    writeAttributes(own, key.histogram.attributes, point.attributes);
    const counts = buckets.counts.length * 8;
    const bounds = buckets.boundaries.length * 8;
    const body =
      27 +
      (sum === undefined ? 0 : 9) +
      (counts > 0 ? fieldBytes(counts) : 0) +
      (bounds > 0 ? fieldBytes(bounds) : 0) +
      own.pos;
    const w = this.startPoint(f, body);
    this.#hrTime(w, key.histogram.start, point.startTime);
    this.#hrTime(w, key.histogram.time, point.endTime);
    w.byte(key.histogram.count);
    fixed64Whole(w, count);
    if (sum !== undefined) {
      w.byte(key.histogram.sum);
      w.double(sum);
    }
    if (counts > 0) {
      w.byte(key.histogram.bucketCounts);
      w.varint(counts);
      for (const c of buckets.counts) fixed64Whole(w, c);
    }
    if (bounds > 0) {
      w.byte(key.histogram.bounds);
      w.varint(bounds);
      for (const b of buckets.boundaries) w.double(b);
    }
    // The SDK writes the attributes before where the exemplars would go; the order of fields is free.
    w.copy(own.buf, exemplarBytes, own.pos);
    w.copy(own.buf, 0, exemplarBytes);
    this.endPoint(f, w);
  }

  /** An Exemplar field of a histogram point. */
  #exemplarField(w: ProtoWriter, e: PointExemplar): void {
    const x = this.#exemplar;
    x.reset();
    writeAttributes(x, key.exemplar.attributes, e.attributes);
    nanosHalves(e.timeMs, this.#start);
    x.ensure(18);
    x.byte(key.exemplar.time);
    x.fixed64(this.#start[0] as number, this.#start[1] as number);
    x.byte(key.exemplar.asDouble);
    x.double(e.value);
    if (e.spanId) hexField(x, key.exemplar.spanId, e.spanId);
    if (e.traceId) hexField(x, key.exemplar.traceId, e.traceId);
    w.field(key.histogram.exemplars, x);
  }

  #hrTime(w: ProtoWriter, tag: number, time: HrTime): void {
    secondsNanosHalves(time[0], time[1], this.#start);
    w.ensure(9);
    w.byte(tag);
    w.fixed64(this.#start[0] as number, this.#start[1] as number);
  }

  /** The batch read so far as one ExportMetricsServiceRequest; the families emptied for the next. */
  take(): EncodedRequest {
    let scopeBytes = this.#scope.length;
    for (const f of this.order) scopeBytes += fieldBytes(f.metricBytes);
    const resourceBytes = this.#prefix.length + fieldBytes(scopeBytes) + this.#suffix.length;
    const out = this.#out;
    out.reset();
    out.ensure(fieldBytes(resourceBytes));
    out.byte(key.request.resourceMetrics);
    out.varint(resourceBytes);
    out.copy(this.#prefix, 0, this.#prefix.length);
    out.byte(key.resourceMetrics.scopeMetrics);
    out.varint(scopeBytes);
    out.copy(this.#scope, 0, this.#scope.length);
    for (const f of this.order) {
      out.byte(key.scopeMetrics.metrics);
      out.varint(f.metricBytes);
      out.copy(f.head, 0, f.head.length);
      out.varint(f.dataBytes);
      out.copy(f.points.buf, 0, f.points.pos);
      out.copy(f.tail, 0, f.tail.length);
    }
    out.copy(this.#suffix, 0, this.#suffix.length);
    const request = { payload: out.view(), points: this.pendingPoints };
    this.clear();
    return request;
  }
}

/** A whole number in [0, 2^53) as fixed64. */
function fixed64Whole(w: ProtoWriter, n: number): void {
  const high = Math.floor(n / 2 ** 32);
  w.fixed64(n - high * 2 ** 32, high);
}

/** A bytes field from hex digits (a trace or span id). */
function hexField(w: ProtoWriter, tag: number, hex: string): void {
  const bytes = hex.length / 2;
  w.ensure(2 + bytes);
  w.byte(tag);
  w.byte(bytes);
  w.pos += w.buf.write(hex, w.pos, bytes, "hex");
}
