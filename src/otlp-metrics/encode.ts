// The http/protobuf requests of one OTLP export, written as
// ExportMetricsServiceRequest bytes straight from the stores: no SDK data
// point, attribute object or HrTime per point. Each object's labels are
// parsed once into the KeyValue bytes every one of its points repeats; a
// point is then those bytes, the line's own labels and its value, appended to
// its family's buffer. A request is assembled (lengths known by then) when
// the points read pass `batchBytes`, and the event loop gets a turn whenever
// the shared turn budget is spent (both decided in requests.ts, which
// json-encode.ts shares, as it shares the label reading and LineTail here).
// The buffers are kept by the encoder and reused from one request and one
// export to the next.
//
// The mapping is points.ts's (the aggregate and registry families are read
// there, a few hundred points, and only their bytes are written here): for
// the same batch, the request decodes as the SDK serializer's, exemplars
// aside (test/unit/otlp-metrics/encode.test.ts).
// Schema: opentelemetry-proto's collector/metrics/v1/metrics_service.proto,
// metrics/v1/metrics.proto, common/v1/common.proto, resource/v1/resource.proto.
import type { HrTime } from "@opentelemetry/api";
import type { DataPoint, Histogram } from "@opentelemetry/sdk-metrics";
import { objectFamilies } from "../core/series/catalog.ts";
import { parseValue } from "../core/series/exposition.ts";
import type { ObjectSeries } from "../core/series/render.ts";
import { attributeRenames } from "./mapping.ts";
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
import { type EncodedRequest, type EncodeOptions, encodeRequests, type FormatWriter } from "./requests.ts";

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

const renames = Object.entries(attributeRenames);

/** The attribute a label in `text` [from, to) is renamed to, or undefined when it keeps its name. */
export function renamedAt(text: string, from: number, to: number): string | undefined {
  for (const [label, attribute] of renames) {
    if (to - from === label.length && text.startsWith(label, from)) return attribute;
  }
  return undefined;
}

/** Where one label of a line's text is: its name [at + 1, eq), its value [eq + 2, close). */
export interface LabelSpan {
  eq: number;
  close: number;
  /** The value's length once unescaped (0: an empty value, which is no attribute). */
  valueBytes: number;
}

/**
 * The label at `at` (`,a="x"` or `{a="x"`) into `span`; returns where it
 * ends, `at` when none starts there. Both encoders read labels here.
 */
export function labelAt(text: string, at: number, span: LabelSpan): number {
  const c = text.charCodeAt(at);
  if (c !== 44 /* , */ && c !== 123 /* { */) return at;
  const eq = text.indexOf('="', at + 1);
  if (eq === -1) return at;
  const end = text.length;
  let valueBytes = 0;
  let close = eq + 2;
  for (; close < end; close++) {
    const v = text.charCodeAt(close);
    if (v === 34 /* " */) break;
    if (v === 92 /* \ */) close++;
    valueBytes++;
  }
  if (close >= end) return at;
  span.eq = eq;
  span.close = close;
  span.valueBytes = valueBytes;
  return close + 1;
}

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

/** A sample value at `from` to `to` in `text`, as parseValue reads it (whole numbers of up to 15 digits without a slice). */
export function valueAt(text: string, from: number, to: number): number {
  let i = from;
  const negative = text.charCodeAt(i) === 45; /* - */
  if (negative) i++;
  if (to - i > 0 && to - i <= 15) {
    let n = 0;
    for (; i < to; i++) {
      const d = text.charCodeAt(i) - 48;
      if (d < 0 || d > 9) break;
      n = n * 10 + d;
    }
    if (i === to) return negative ? -n : n;
  }
  return parseValue(text.slice(from, to));
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

/** How a format writes a line's tail: its own labels, then (or before them) its value. */
export interface TailFormat {
  /** Where the labels start (the protobuf value's 8 bytes come first). */
  readonly labelsFrom: number;
  /** Writes the labels of `text` at `from`; returns the index of the first character that starts no label. */
  labels(text: string, from: number, w: ProtoWriter): number;
  /** After the labels (the JSON attributes' closing bracket). */
  closeLabels(w: ProtoWriter): void;
  /** Writes the value; `labelsEnd` is where closeLabels left off. */
  value(w: ProtoWriter, value: number, labelsEnd: number): void;
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

/**
 * A line's own labels and value (`,type="Ready",status="True"} 1`) as a
 * point's last bytes, in the format's encoding, kept per slot and line:
 * objects in the same state have the same labels on the same line, most
 * often the same value too, so most lines are compared, not parsed.
 */
export class LineTail {
  readonly #format: TailFormat;
  /** The labels, up to their closing brace. */
  labels = "";
  /** The whole line `bytes` hold, "" while the value last read differed from the one before. */
  line = "";
  value = 0;
  readonly bytes = new ProtoWriter(256);
  #labelsEnd = 0;
  /** `bytes` as written. */
  view: Uint8Array;

  constructor(format: TailFormat) {
    this.#format = format;
    this.#noLabels();
    this.view = this.#value(0);
  }

  /** Whether the line last read is a point (`view` its tail). */
  point = false;

  /** Reads the line at [from, to) of `text`. */
  read(text: string, from: number, to: number): void {
    this.point = this.#read(text, from, to);
  }

  #read(text: string, from: number, to: number): boolean {
    const line = this.line;
    if (line.length === to - from && line.length > 0 && text.startsWith(line, from)) return true;
    const known = this.labels.length;
    // Equal text up to a closing brace: the same labels (the brace cannot be inside a value the text shares).
    if (text.charCodeAt(from + known) === 125 /* } */ && text.startsWith(this.labels, from)) {
      const value = valueAt(text, from + known + 2, to);
      // The same value twice running: kept whole, compared whole from now on. A value that changes
      // from line to line (a timestamp) is parsed each time instead, rather than each time a new string.
      if (Object.is(value, this.value)) this.line = text.slice(from, to);
      else this.view = this.#value(value);
      return true;
    }
    const bytes = this.bytes;
    bytes.pos = this.#format.labelsFrom;
    const close = this.#format.labels(text, from, bytes);
    if (close >= to || text.charCodeAt(close) !== 125 /* } */) {
      this.labels = "";
      this.#noLabels();
      this.view = this.#value(0);
      return false;
    }
    this.#format.closeLabels(bytes);
    this.#labelsEnd = bytes.pos;
    this.labels = text.slice(from, close);
    this.view = this.#value(valueAt(text, close + 2, to));
    this.line = text.slice(from, to);
    return true;
  }

  #noLabels(): void {
    this.bytes.pos = this.#format.labelsFrom;
    this.#format.closeLabels(this.bytes);
    this.#labelsEnd = this.bytes.pos;
  }

  #value(value: number): Uint8Array {
    this.value = value;
    this.line = "";
    this.#format.value(this.bytes, value, this.#labelsEnd);
    return this.bytes.buf.subarray(0, this.bytes.pos);
  }
}

/**
 * A slot's lines as last read, one LineTail each: the next object's are
 * often the very same text (a label-only family's lines are one shared
 * string for every object in the same state, see shared-texts.ts), and then
 * not even read.
 */
export class SlotTails {
  readonly #format: TailFormat;
  text: string | undefined;
  readonly lines: LineTail[] = [];
  /** Lines in `text`. */
  count = 0;

  constructor(format: TailFormat) {
    this.#format = format;
  }

  read(tails: string): void {
    if (tails === this.text) return;
    let line = 0;
    for (let from = 0; ; line++) {
      const newline = tails.indexOf("\n", from);
      const to = newline === -1 ? tails.length : newline;
      let tail = this.lines[line];
      if (!tail) {
        tail = new LineTail(this.#format);
        this.lines.push(tail);
      }
      tail.read(tails, from, to);
      if (newline === -1) break;
      from = newline + 1;
    }
    this.count = line + 1;
    this.text = tails;
  }
}

// ---- The encoder -----------------------------------------------------------------------------

/**
 * Writes the requests of exports, keeping its buffers between them (a few
 * MiB at most: the request being assembled and the points of one batch).
 */
export class RequestEncoder implements FormatWriter<FamilyPoints> {
  readonly #unitOf: (name: string) => string;
  readonly #families = new Map<string, FamilyPoints>();
  /** Families of the batch being read, in the order of their first point (the SDK batch's order). */
  readonly #order: FamilyPoints[] = [];
  /** The request being assembled: grows to a request's size at the first export. */
  readonly #out = new ProtoWriter(64 * 1024);
  /**
   * What every point of the current object starts with, for its gauges and
   * its counters: its attributes, the start and end times, the value's key.
   */
  readonly #gaugeHead = new ProtoWriter(1024);
  readonly #counterHead = new ProtoWriter(1024);
  #gaugeView: Uint8Array = Buffer.alloc(0);
  #counterView: Uint8Array = Buffer.alloc(0);
  /** One point's own attributes (or a histogram's exemplars). */
  readonly #own = new ProtoWriter(1024);
  /** The lines last seen per slot: the next object's are most often the same. */
  readonly #seen: SlotTails[] = objectFamilies.map(() => new SlotTails(protobufTail));
  readonly #exemplar = new ProtoWriter(256);
  readonly #time = new Uint32Array(2);
  readonly #start = new Uint32Array(2);
  #prefix: Buffer = Buffer.alloc(0);
  #scope: Buffer = Buffer.alloc(0);
  #suffix: Buffer = Buffer.alloc(0);
  #points = 0;
  #bytes = 0;
  /** The longest synchronous stretch of the last export (ms). */
  longestSliceMs = 0;

  constructor(unitOf: (name: string) => string) {
    this.#unitOf = unitOf;
  }

  /**
   * The export's requests, read lazily (requests.ts): each is a view of the
   * encoder's buffer, to be sent before the next one is asked for.
   */
  requests(options: EncodeOptions): AsyncGenerator<EncodedRequest> {
    return encodeRequests(this, options);
  }

  get pendingBytes(): number {
    return this.#bytes;
  }

  get pendingPoints(): number {
    return this.#points;
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

  family(family: Family): FamilyPoints {
    let f = this.#families.get(family.name);
    if (!f || f.family.type !== family.type || f.family.help !== family.help) {
      f = new FamilyPoints(family, this.#unitOf(family.name));
      this.#families.set(family.name, f);
    }
    return f;
  }

  /**
   * The object's labels as attributes, once for all its points, then the
   * fields every point repeats. The attributes come first: the order of
   * fields is free, and this way a point is one copy of its head, its value
   * and its own labels.
   */
  #objectHeads(open: string, counterStartMs: number): void {
    const gauge = this.#gaugeHead;
    const counter = this.#counterHead;
    gauge.reset();
    writeLabelAttributes(open, 0, gauge, key.number.attributes);
    counter.reset();
    counter.copy(gauge.buf, 0, gauge.pos);
    this.#stamp(gauge);
    nanosHalves(counterStartMs, this.#start);
    this.#stamp(counter, this.#start[0] as number, this.#start[1] as number);
    this.#gaugeView = gauge.buf.subarray(0, gauge.pos);
    this.#counterView = counter.buf.subarray(0, counter.pos);
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

  object(
    series: ObjectSeries,
    selected: number,
    families: readonly FamilyPoints[],
    counterStartMs: number,
  ): void {
    this.#objectHeads(series.open, counterStartMs);
    this.#objectPoints(series, selected, families);
  }

  /** Every line of the object's selected slots, each one point: the object's head, then the line's value and labels. */
  #objectPoints(series: ObjectSeries, selected: number, families: readonly FamilyPoints[]): void {
    let index = 0;
    for (let slot = 0; slot < families.length; slot++) {
      const bit = 1 << slot;
      if (!(series.slots & bit)) continue;
      const tails = series.tails[index++] as string;
      if (!(selected & bit)) continue;
      const f = families[slot] as FamilyPoints;
      const head = f.family.type === "counter" ? this.#counterView : this.#gaugeView;
      const seen = this.#seen[slot] as SlotTails;
      seen.read(tails);
      for (let line = 0; line < seen.count; line++) {
        const tail = seen.lines[line] as LineTail;
        if (!tail.point) continue;
        const view = tail.view;
        const w = this.#startPoint(f, head.length + view.length);
        // Room for the whole point was ensured: written without a check per field.
        w.buf.set(head, w.pos);
        w.buf.set(view, w.pos + head.length);
        w.pos += head.length + view.length;
        this.#endPoint(f, w);
      }
    }
  }

  /** The key and length of a point of `body` bytes in its family's buffer. */
  #startPoint(f: FamilyPoints, body: number): ProtoWriter {
    if (f.count === 0) this.#order.push(f);
    const w = f.points;
    this.#bytes -= w.pos;
    w.ensure(fieldBytes(body));
    w.byte(key.data.points);
    w.varint(body);
    return w;
  }

  #endPoint(f: FamilyPoints, w: ProtoWriter): void {
    f.count++;
    this.#points++;
    this.#bytes += w.pos;
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
    const w = this.#startPoint(f, numberFixedBytes - (unstarted ? 9 : 0) + own.pos);
    if (!unstarted) this.#hrTime(w, key.number.start, point.startTime);
    this.#hrTime(w, key.number.time, point.endTime);
    w.byte(key.number.asDouble);
    w.double(point.value);
    w.copy(own.buf, 0, own.pos);
    this.#endPoint(f, w);
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
    const w = this.#startPoint(f, body);
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
    this.#endPoint(f, w);
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
    for (const f of this.#order) scopeBytes += fieldBytes(f.metricBytes);
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
    for (const f of this.#order) {
      out.byte(key.scopeMetrics.metrics);
      out.varint(f.metricBytes);
      out.copy(f.head, 0, f.head.length);
      out.varint(f.dataBytes);
      out.copy(f.points.buf, 0, f.points.pos);
      out.copy(f.tail, 0, f.tail.length);
    }
    out.copy(this.#suffix, 0, this.#suffix.length);
    const request = { payload: out.view(), points: this.#points };
    this.clear();
    return request;
  }

  clear(): void {
    for (const f of this.#order) {
      f.points.reset();
      f.count = 0;
    }
    this.#order.length = 0;
    this.#points = 0;
    this.#bytes = 0;
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
