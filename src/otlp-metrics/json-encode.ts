// The http/json requests of one OTLP export, written as OTLP/JSON text
// straight from the stores, as encode.ts writes http/protobuf: each object's
// labels rendered once as the JSON of the attributes all its points share,
// each line's own labels and value kept as the text that ends a point (and
// compared, not parsed, when the next object has the same line), a point
// then being those two copied after the family's previous point. requests.ts
// decides when a request ends and when the event loop gets a turn.
//
// The encoding is OTLP/JSON's (opentelemetry.io/docs/specs/otlp, "JSON
// Protobuf Encoding"): lowerCamelCase field names, 64-bit integers (times,
// counts, intValue) as decimal strings, enums as integers, trace and span
// ids as hex, NaN and infinities as the strings proto3 JSON gives them. The
// content is the SDK serializer's (test/unit/otlp-metrics/json-encode.test.ts),
// with three differences that follow the specification where the SDK does
// not: those 64-bit integers are strings where the SDK writes numbers, NaN
// and infinities are strings where it writes null, and histograms carry
// their exemplars.
import type { HrTime } from "@opentelemetry/api";
import type { Resource } from "@opentelemetry/resources";
import type { DataPoint, Histogram } from "@opentelemetry/sdk-metrics";
import { isInt64 } from "./encode.ts";
import { type LabelSpan, type LineTail, labelAt, renamedAt, type TailFormat } from "./line-text.ts";
import { type Family, type HistogramPoint, hrTime, type PointExemplar } from "./points.ts";
import { ProtoWriter } from "./proto-writer.ts";
import { type EncodedRequest, type EncodeOptions, PointBatch } from "./requests.ts";

const utf8 = (text: string): Buffer => Buffer.from(text, "utf8");

// ---- Values --------------------------------------------------------------------------------------

/** A double as proto3 JSON writes it: a number, or "NaN", "Infinity", "-Infinity" (JSON has no such numbers). */
export function jsonDouble(value: number): string {
  if (Number.isFinite(value)) return String(value);
  if (Number.isNaN(value)) return '"NaN"';
  return value > 0 ? '"Infinity"' : '"-Infinity"';
}

/** An HrTime as OTLP/JSON's fixed64 nanoseconds: a decimal string (past 2^53, so by BigInt). */
export const jsonNanos = (time: HrTime): string => `"${BigInt(time[0]) * 1_000_000_000n + BigInt(time[1])}"`;

/** A whole count (fixed64) as a decimal string. */
const jsonCount = (n: number): string => `"${n}"`;

type AttributeValue = string | number | boolean | readonly (string | number | boolean)[];

/** An AnyValue, typed as the SDK serializer types attribute values (whole numbers within int64 as intValue). */
function jsonAnyValue(value: AttributeValue): string {
  if (typeof value === "string") return `{"stringValue":${JSON.stringify(value)}}`;
  if (typeof value === "boolean") return `{"boolValue":${value}}`;
  if (typeof value === "number") {
    return isInt64(value) ? `{"intValue":"${BigInt(value)}"}` : `{"doubleValue":${jsonDouble(value)}}`;
  }
  return `{"arrayValue":{"values":[${value.map(jsonAnyValue).join(",")}]}}`;
}

/** A KeyValue array of every attribute set, in the object's order. */
function jsonAttributes(attributes: Readonly<Record<string, unknown>>): string {
  const pairs: string[] = [];
  for (const name in attributes) {
    const value = attributes[name] as AttributeValue | undefined;
    if (value === undefined || value === null) continue;
    pairs.push(`{"key":${JSON.stringify(name)},"value":${jsonAnyValue(value)}}`);
  }
  return `[${pairs.join(",")}]`;
}

// ---- Label text → KeyValue JSON --------------------------------------------------------------

const keyOpen = utf8(',{"key":"');
const valueOpen = utf8('","value":{"stringValue":"');
const valueClose = utf8('"}}');
const hex = "0123456789abcdef";

/** Writes a label value between quotes, [from, to), as the body of a JSON string; room ensured by the caller. */
function writeJsonValue(w: ProtoWriter, text: string, from: number, to: number): void {
  const buf = w.buf;
  let pos = w.pos;
  for (let i = from; i < to; i++) {
    let c = text.charCodeAt(i);
    if (c === 92 /* \ */) {
      c = text.charCodeAt(++i);
      // The exposition's escapes (\\ \" \n) are JSON's too: copied as they are.
      if (c === 92 || c === 34 /* " */ || c === 110 /* n */) {
        buf[pos++] = 92;
        buf[pos++] = c;
        continue;
      }
    }
    if (c < 0x20) {
      buf[pos++] = 92;
      buf[pos++] = 117; /* u */
      buf[pos++] = 48;
      buf[pos++] = 48;
      buf[pos++] = hex.charCodeAt(c >> 4);
      buf[pos++] = hex.charCodeAt(c & 15);
    } else buf[pos++] = c; // a byte string's bytes: UTF-8 as they are
  }
  w.pos = pos;
}

/** Writes an ASCII string (a label name or a number) [from, to) of `text`; room ensured by the caller. */
function writeAscii(w: ProtoWriter, text: string, from: number, to: number): void {
  const buf = w.buf;
  let pos = w.pos;
  for (let i = from; i < to; i++) buf[pos++] = text.charCodeAt(i);
  w.pos = pos;
}

const span: LabelSpan = { eq: 0, close: 0, valueBytes: 0 };

/**
 * Writes the labels of `text` at `at` (`{a="x",b="y"` or `,a="x"`, a byte
 * string as rendered) as KeyValue objects, each after a comma, as
 * writeLabelAttributes does in protobuf (and readLabels reads): names
 * renamed to attributes, empty values left out. Returns the index of the
 * first character that starts no label.
 */
export function writeJsonLabels(text: string, at: number, w: ProtoWriter): number {
  let i = at;
  for (let next = labelAt(text, i, span); next !== i; next = labelAt(text, i, span)) {
    if (span.valueBytes > 0) writeJsonLabel(text, i, w);
    i = next;
  }
  return i;
}

/** The label at `at`, as labelAt left it in `span`. */
function writeJsonLabel(text: string, at: number, w: ProtoWriter): void {
  const { eq, close } = span;
  const renamed = renamedAt(text, at + 1, eq);
  // Label names are [a-zA-Z_][a-zA-Z0-9_]*, attributes too: nothing to escape.
  w.ensure(keyOpen.length + (renamed?.length ?? eq - at) + valueOpen.length + 6 * (close - eq) + 3);
  w.copy(keyOpen, 0, keyOpen.length);
  if (renamed === undefined) writeAscii(w, text, at + 1, eq);
  else writeAscii(w, renamed, 0, renamed.length);
  w.copy(valueOpen, 0, valueOpen.length);
  writeJsonValue(w, text, eq + 2, close);
  w.copy(valueClose, 0, valueClose.length);
}

const closeAttributes = utf8('],"asDouble":');

/** A point's last text: `,{…},{…}],"asDouble":1}` (the comma before the first label dropped when the object has none). */
const jsonTail: TailFormat = {
  labelsFrom: 0,
  labels: writeJsonLabels,
  closeLabels: (w) => w.copy(closeAttributes, 0, closeAttributes.length),
  value: (w, value, labelsEnd) => {
    const text = `${jsonDouble(value)}}`;
    w.pos = labelsEnd;
    w.ensure(text.length);
    writeAscii(w, text, 0, text.length);
  },
};

// ---- Families --------------------------------------------------------------------------------

/** One metric of the request being read: its text before and after the points, and its points' text. */
class JsonFamily {
  readonly family: Family;
  /** `{"name":…,"description":…,"unit":…,"gauge":{"dataPoints":[` (or sum, histogram). */
  readonly head: Buffer;
  /** `]` then temporality and monotonicity, `}}`. */
  readonly tail: Buffer;
  /** The points, comma-separated. */
  readonly points = new ProtoWriter(16 * 1024);
  count = 0;

  constructor(family: Family, unit: string) {
    this.family = family;
    const t = family.type;
    const data = t === "gauge" ? "gauge" : t === "counter" ? "sum" : "histogram";
    this.head = utf8(
      `{"name":${JSON.stringify(family.name)},"description":${JSON.stringify(family.help)},` +
        `"unit":${JSON.stringify(unit)},"${data}":{"dataPoints":[`,
    );
    // AGGREGATION_TEMPORALITY_CUMULATIVE: 2.
    const cumulative = t === "gauge" ? "" : ',"aggregationTemporality":2';
    this.tail = utf8(`]${cumulative}${t === "counter" ? ',"isMonotonic":true' : ""}}}`);
  }

  /** Bytes of the Metric object. */
  get metricBytes(): number {
    return this.head.length + this.points.pos + this.tail.length;
  }
}

// ---- The encoder -----------------------------------------------------------------------------

/**
 * Writes the http/json requests of exports, keeping its buffers between
 * them (a few MiB at most: the request being assembled and the points of
 * one batch).
 */
export class JsonRequestEncoder extends PointBatch<JsonFamily> {
  readonly #out = new ProtoWriter(64 * 1024);
  /** The object's attributes, each after a comma. */
  readonly #objectAttributes = new ProtoWriter(1024);
  /**
   * What every point of the current object starts with, for its gauges and
   * its counters: the start and end times, then its attributes.
   */
  readonly #gaugeHead = new ProtoWriter(1024);
  readonly #counterHead = new ProtoWriter(1024);
  /** Whether the current object has attributes: a line's own then follow a comma. */
  #objectHasAttributes = false;
  /** `"timeUnixNano":"…"` of every point of this export. */
  #timeText = "";
  #gaugeStamp: Buffer = Buffer.alloc(0);
  /** The last counter start seen and its stamp: most objects' is the process's start. */
  #counterStartMs = Number.NaN;
  #counterStamp: Buffer = Buffer.alloc(0);
  #prefix: Buffer = Buffer.alloc(0);
  #suffix: Buffer = Buffer.alloc(0);

  constructor(unitOf: (name: string) => string) {
    super(unitOf, jsonTail);
  }

  /** The resource and scope of every request of this export, and its time. */
  begin({ resource, scope, nowMs }: EncodeOptions): void {
    this.clear();
    this.#timeText = `"timeUnixNano":${jsonNanos(hrTime(nowMs))}`;
    // A gauge has no start time: left out, as ProtoJSON leaves out a field at its default (0).
    this.#gaugeStamp = utf8(`{${this.#timeText},"attributes":[`);
    this.#counterStartMs = Number.NaN;
    this.#prefix = utf8(
      `{"resourceMetrics":[{"resource":${resourceJson(resource)},"scopeMetrics":[{"scope":` +
        `{"name":${JSON.stringify(scope.name)},"version":${JSON.stringify(scope.version)}},"metrics":[`,
    );
    const schemaUrl = resource.schemaUrl ? `,"schemaUrl":${JSON.stringify(resource.schemaUrl)}` : "";
    this.#suffix = utf8(`]}]${schemaUrl}}]}`);
  }

  protected newFamily(family: Family, unit: string): JsonFamily {
    return new JsonFamily(family, unit);
  }

  /** The object's labels as attributes, once for all its points, after the times every point repeats. */
  protected objectHeads(open: string, counterStartMs: number): void {
    const attributes = this.#objectAttributes;
    attributes.reset();
    writeJsonLabels(open, 0, attributes);
    this.#objectHasAttributes = attributes.pos > 0;
    this.gaugeView = headOf(this.#gaugeHead, this.#gaugeStamp, attributes);
    this.counterView = headOf(this.#counterHead, this.#counterStampOf(counterStartMs), attributes);
  }

  #counterStampOf(startMs: number): Buffer {
    if (startMs !== this.#counterStartMs) {
      this.#counterStartMs = startMs;
      this.#counterStamp = utf8(
        `{"startTimeUnixNano":${jsonNanos(hrTime(startMs))},${this.#timeText},"attributes":[`,
      );
    }
    return this.#counterStamp;
  }

  /** Without attributes of the object's, the line's first one follows no other: no comma. */
  protected override lineView(tail: LineTail): Uint8Array {
    return !this.#objectHasAttributes && tail.view[0] === 44 /* , */ ? tail.view.subarray(1) : tail.view;
  }

  /** The comma before a point but the first. */
  protected frame(w: ProtoWriter, body: number, first: boolean): void {
    w.ensure(1 + body);
    if (!first) w.byte(44 /* , */);
  }

  /** An aggregate or registry point (the PointSink points.ts writes to): a few hundred, so as text. */
  add(family: Family, point: DataPoint<number> | DataPoint<Histogram>): void {
    const f = this.family(family);
    const text = utf8(
      typeof point.value === "number"
        ? numberPointJson(point as DataPoint<number>)
        : histogramPointJson(point as HistogramPoint),
    );
    const w = this.startPoint(f, text.length);
    w.copy(text, 0, text.length);
    this.endPoint(f, w);
  }

  /** The batch read so far as one ExportMetricsServiceRequest; the families emptied for the next. */
  take(): EncodedRequest {
    let bytes = this.#prefix.length + this.#suffix.length + Math.max(0, this.order.length - 1);
    for (const f of this.order) bytes += f.metricBytes;
    const out = this.#out;
    out.reset();
    out.ensure(bytes);
    out.copy(this.#prefix, 0, this.#prefix.length);
    for (const [i, f] of this.order.entries()) {
      if (i > 0) out.byte(44 /* , */);
      out.copy(f.head, 0, f.head.length);
      out.copy(f.points.buf, 0, f.points.pos);
      out.copy(f.tail, 0, f.tail.length);
    }
    out.copy(this.#suffix, 0, this.#suffix.length);
    const request = { payload: out.view(), points: this.pendingPoints };
    this.clear();
    return request;
  }
}

/** `stamp` then the object's attributes without the comma before the first. */
function headOf(w: ProtoWriter, stamp: Buffer, attributes: ProtoWriter): Uint8Array {
  w.reset();
  w.copy(stamp, 0, stamp.length);
  if (attributes.pos > 0) w.copy(attributes.buf, 1, attributes.pos);
  return w.buf.subarray(0, w.pos);
}

function resourceJson(resource: Resource): string {
  return `{"attributes":${jsonAttributes(resource.attributes)},"droppedAttributesCount":0}`;
}

function numberPointJson(point: DataPoint<number>): string {
  const unstarted = point.startTime[0] === 0 && point.startTime[1] === 0;
  return (
    `{"attributes":${jsonAttributes(point.attributes)},` +
    (unstarted ? "" : `"startTimeUnixNano":${jsonNanos(point.startTime)},`) +
    `"timeUnixNano":${jsonNanos(point.endTime)},"asDouble":${jsonDouble(point.value)}}`
  );
}

function histogramPointJson(point: HistogramPoint): string {
  const { count, sum, buckets } = point.value;
  const exemplars = point.exemplars ?? [];
  return (
    `{"attributes":${jsonAttributes(point.attributes)},"startTimeUnixNano":${jsonNanos(point.startTime)},` +
    `"timeUnixNano":${jsonNanos(point.endTime)},"count":${jsonCount(count)}` +
    (sum === undefined ? "" : `,"sum":${jsonDouble(sum)}`) +
    `,"bucketCounts":[${buckets.counts.map(jsonCount).join(",")}]` +
    `,"explicitBounds":[${buckets.boundaries.map(jsonDouble).join(",")}]` +
    (exemplars.length > 0 ? `,"exemplars":[${exemplars.map(exemplarJson).join(",")}]` : "") +
    "}"
  );
}

/** An Exemplar: its trace and span ids as hex, as OTLP/JSON has bytes ids (not base64). */
function exemplarJson(e: PointExemplar): string {
  return (
    `{"filteredAttributes":${jsonAttributes(e.attributes)},"timeUnixNano":${jsonNanos(hrTime(e.timeMs))},` +
    `"asDouble":${jsonDouble(e.value)}` +
    (e.spanId ? `,"spanId":"${e.spanId}"` : "") +
    (e.traceId ? `,"traceId":"${e.traceId}"` : "") +
    "}"
  );
}
