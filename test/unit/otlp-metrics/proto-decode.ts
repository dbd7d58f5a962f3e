// A small protocol-buffers decoder for ExportMetricsServiceRequest, written
// from opentelemetry-proto's .proto files (not from either encoder), so the
// SDK serializer's bytes and our encoder's can be compared as messages:
// field names as the schema gives them, repeated fields as arrays (packed or
// not), fixed64 as decimal strings, doubles as numbers, bytes as hex, a zero
// start time as none (the SDK writes it, we leave it out). A field
// the schema does not know, a wire type that does not match, or bytes left
// over fail the decoding.

type Scalar = "string" | "bytes" | "fixed64" | "sfixed64" | "double" | "varint" | "bool";
interface Field {
  name: string;
  type: Scalar | { message: string };
  repeated?: boolean;
  /** Implicit presence (proto3): a zero written is the same as none, and decodes as none. */
  implicit?: boolean;
}
type Schema = Record<string, Record<number, Field>>;

const m = (message: string) => ({ message });

/** opentelemetry-proto v1: the messages a metrics request can hold. */
export const schema: Schema = {
  ExportMetricsServiceRequest: {
    1: { name: "resource_metrics", type: m("ResourceMetrics"), repeated: true },
  },
  ResourceMetrics: {
    1: { name: "resource", type: m("Resource") },
    2: { name: "scope_metrics", type: m("ScopeMetrics"), repeated: true },
    3: { name: "schema_url", type: "string" },
  },
  Resource: {
    1: { name: "attributes", type: m("KeyValue"), repeated: true },
    2: { name: "dropped_attributes_count", type: "varint" },
  },
  ScopeMetrics: {
    1: { name: "scope", type: m("InstrumentationScope") },
    2: { name: "metrics", type: m("Metric"), repeated: true },
    3: { name: "schema_url", type: "string" },
  },
  InstrumentationScope: {
    1: { name: "name", type: "string" },
    2: { name: "version", type: "string" },
    3: { name: "attributes", type: m("KeyValue"), repeated: true },
    4: { name: "dropped_attributes_count", type: "varint" },
  },
  Metric: {
    1: { name: "name", type: "string" },
    2: { name: "description", type: "string" },
    3: { name: "unit", type: "string" },
    5: { name: "gauge", type: m("Gauge") },
    7: { name: "sum", type: m("Sum") },
    9: { name: "histogram", type: m("Histogram") },
    12: { name: "metadata", type: m("KeyValue"), repeated: true },
  },
  Gauge: { 1: { name: "data_points", type: m("NumberDataPoint"), repeated: true } },
  Sum: {
    1: { name: "data_points", type: m("NumberDataPoint"), repeated: true },
    2: { name: "aggregation_temporality", type: "varint" },
    3: { name: "is_monotonic", type: "bool" },
  },
  Histogram: {
    1: { name: "data_points", type: m("HistogramDataPoint"), repeated: true },
    2: { name: "aggregation_temporality", type: "varint" },
  },
  NumberDataPoint: {
    7: { name: "attributes", type: m("KeyValue"), repeated: true },
    2: { name: "start_time_unix_nano", type: "fixed64", implicit: true },
    3: { name: "time_unix_nano", type: "fixed64" },
    4: { name: "as_double", type: "double" },
    6: { name: "as_int", type: "sfixed64" },
    5: { name: "exemplars", type: m("Exemplar"), repeated: true },
    8: { name: "flags", type: "varint" },
  },
  HistogramDataPoint: {
    9: { name: "attributes", type: m("KeyValue"), repeated: true },
    2: { name: "start_time_unix_nano", type: "fixed64", implicit: true },
    3: { name: "time_unix_nano", type: "fixed64" },
    4: { name: "count", type: "fixed64" },
    5: { name: "sum", type: "double" },
    6: { name: "bucket_counts", type: "fixed64", repeated: true },
    7: { name: "explicit_bounds", type: "double", repeated: true },
    8: { name: "exemplars", type: m("Exemplar"), repeated: true },
    10: { name: "flags", type: "varint" },
    11: { name: "min", type: "double" },
    12: { name: "max", type: "double" },
  },
  Exemplar: {
    7: { name: "filtered_attributes", type: m("KeyValue"), repeated: true },
    2: { name: "time_unix_nano", type: "fixed64" },
    3: { name: "as_double", type: "double" },
    6: { name: "as_int", type: "sfixed64" },
    4: { name: "span_id", type: "bytes" },
    5: { name: "trace_id", type: "bytes" },
  },
  KeyValue: { 1: { name: "key", type: "string" }, 2: { name: "value", type: m("AnyValue") } },
  AnyValue: {
    1: { name: "string_value", type: "string" },
    2: { name: "bool_value", type: "bool" },
    3: { name: "int_value", type: "varint" },
    4: { name: "double_value", type: "double" },
    5: { name: "array_value", type: m("ArrayValue") },
    7: { name: "bytes_value", type: "bytes" },
  },
  ArrayValue: { 1: { name: "values", type: m("AnyValue"), repeated: true } },
};

export type Decoded = { [field: string]: unknown };

class Reader {
  readonly bytes: Uint8Array;
  pos: number;
  readonly end: number;

  constructor(bytes: Uint8Array, pos = 0, end = bytes.length) {
    this.bytes = bytes;
    this.pos = pos;
    this.end = end;
  }

  varint(): bigint {
    let value = 0n;
    for (let shift = 0n; ; shift += 7n) {
      if (this.pos >= this.end) throw new Error("a varint runs past the end");
      const b = this.bytes[this.pos++] as number;
      value |= BigInt(b & 0x7f) << shift;
      if (b < 0x80) return value;
      if (shift > 63n) throw new Error("a varint longer than 10 bytes");
    }
  }

  take(n: number): Reader {
    if (this.pos + n > this.end) throw new Error(`${n} bytes run past the end`);
    const r = new Reader(this.bytes, this.pos, this.pos + n);
    this.pos += n;
    return r;
  }

  fixed64(): bigint {
    const r = this.take(8);
    return Buffer.from(r.bytes.buffer, r.bytes.byteOffset + r.pos, 8).readBigUInt64LE(0);
  }

  double(): number {
    const r = this.take(8);
    return Buffer.from(r.bytes.buffer, r.bytes.byteOffset + r.pos, 8).readDoubleLE(0);
  }
}

const wireOf = (type: Field["type"]): number => {
  if (typeof type === "object" || type === "string" || type === "bytes") return 2;
  if (type === "fixed64" || type === "sfixed64" || type === "double") return 1;
  return 0;
};

function scalar(r: Reader, type: Scalar): unknown {
  switch (type) {
    case "string": {
      const s = r.take(Number(r.varint()));
      return new TextDecoder("utf-8", { fatal: true }).decode(s.bytes.subarray(s.pos, s.end));
    }
    case "bytes": {
      const s = r.take(Number(r.varint()));
      return Buffer.from(s.bytes.subarray(s.pos, s.end)).toString("hex");
    }
    case "fixed64":
      return r.fixed64().toString();
    case "sfixed64":
      return BigInt.asIntN(64, r.fixed64()).toString();
    case "double":
      return r.double();
    case "varint":
      return r.varint().toString();
    case "bool":
      return r.varint() !== 0n;
  }
}

function decodeMessage(r: Reader, name: string, zeros: boolean): Decoded {
  const fields = schema[name];
  if (!fields) throw new Error(`no message ${name} in the schema`);
  const out: Decoded = {};
  while (r.pos < r.end) {
    const tag = Number(r.varint());
    const number = tag >>> 3;
    const wire = tag & 7;
    const field = fields[number];
    if (!field) throw new Error(`${name}: unknown field ${number}`);
    let values: unknown[];
    if (field.repeated && wire === 2 && typeof field.type === "string" && wireOf(field.type) !== 2) {
      // Packed: a run of scalars.
      const packed = r.take(Number(r.varint()));
      values = [];
      while (packed.pos < packed.end) values.push(scalar(packed, field.type));
    } else {
      if (wire !== wireOf(field.type)) throw new Error(`${name}.${field.name}: wire type ${wire}`);
      if (typeof field.type === "object") {
        const body = r.take(Number(r.varint()));
        values = [decodeMessage(body, field.type.message, zeros)];
      } else values = [scalar(r, field.type)];
    }
    if (field.repeated) out[field.name] = [...((out[field.name] as unknown[]) ?? []), ...values];
    else if (field.implicit && values[0] === "0" && !zeros) delete out[field.name];
    else out[field.name] = values[0];
  }
  if (r.pos !== r.end) throw new Error(`${name}: ${r.end - r.pos} bytes left over`);
  return out;
}

/** `zeros`: keep a zero written where the field could have been left out (to tell the two apart). */
export function decodeRequest(bytes: Uint8Array, { zeros = false } = {}): Decoded {
  return decodeMessage(new Reader(bytes), "ExportMetricsServiceRequest", zeros);
}
