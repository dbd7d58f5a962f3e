// One configuration option, declared once: its YAML key, what it means, its
// default, how a value is read (every problem named by its path, see
// Checker) and the JSON Schema of what a file may hold there. The validator,
// the defaults, the types of Config, the JSON Schema (docs/config.schema.json)
// and the reference (docs/configuration.md) all come from these declarations
// (src/config/options.ts, src/config/resource-options.ts).
import type { TSchema, Type } from "typebox";
import { Checker, type Raw } from "./checker.ts";

/** What some options need from others of the file (read first, see validate.ts). */
export interface ReadContext {
  /** The metric prefix, which family patterns are matched against. */
  prefix: string;
  /** Whether CRDs are read: explicit entries must then say less. */
  crdDiscovery: boolean;
}

/**
 * A JSON Schema, built with TypeBox when asked for: the builder is passed in
 * by whoever wants the schema (src/config/reference.ts), so the exporter
 * itself never loads TypeBox (~14 MiB of RSS).
 */
export type Schema = (builder: typeof Type) => TSchema;

export interface Option<V> {
  /** The key in the file. */
  key: string;
  /** What it means, for the reference. */
  doc: string;
  default: V;
  /** The default as the reference shows it ("" when unset means detected or off: the doc says which). */
  shown: string;
  /** What a file may hold at the key. */
  schema: Schema;
  /** The value at `path`, or undefined (not given, or a problem recorded in `c`). */
  read(c: Checker, path: string, value: unknown, context: ReadContext): V | undefined;
  /** A mapping's own options, for the reference. */
  table?: OptionTable;
}

// biome-ignore lint/suspicious/noExplicitAny: a table holds options of every value type
export type OptionTable = Readonly<Record<string, Option<any>>>;

/** The values a table reads: one field per option, typed by its default. */
export type OptionValues<T extends OptionTable> = { -readonly [K in keyof T]: T[K]["default"] };

/** `path.key` (a top-level key has no dot before it). */
export const at = (path: string, key: string): string => (path ? `${path}.${key}` : key);

/** A string, non-empty, matching `pattern` when given (`what`: how a problem describes a valid one). */
export function text(
  key: string,
  doc: string,
  check?: { pattern: RegExp; what: string },
): Option<string | undefined> {
  return {
    key,
    doc,
    default: undefined,
    shown: "",
    schema: (Type) => Type.String({ minLength: 1, ...(check && { pattern: check.pattern.source }) }),
    read: (c, path, value) => c.string(path, value, check?.pattern, check?.what),
  };
}

/** A string with a default. */
export function textWithDefault(
  key: string,
  doc: string,
  fallback: string,
  check?: { pattern: RegExp; what: string },
): Option<string> {
  return { ...text(key, doc, check), default: fallback, shown: fallback };
}

/** `host:port` or `[ipv6]:port` with a port from 0 to 65535 (0: any free port). */
export const hostPort = {
  pattern: /^(\[[0-9a-fA-F:]+\]|[^:]*):(6553[0-5]|655[0-2]\d|65[0-4]\d\d|6[0-4]\d{3}|[1-5]\d{4}|\d{1,4})$/,
  what: "host:port with a port from 0 to 65535",
};

/** A list of non-empty strings, empty by default. */
export function texts(key: string, doc: string): Option<string[]> {
  return {
    key,
    doc,
    default: [],
    shown: "[]",
    schema: (Type) => Type.Array(Type.String({ minLength: 1 })),
    read: (c, path, value) => c.stringList(path, value),
  };
}

/** true or false; `fallback` undefined: unset means decided elsewhere (the doc says how). */
export function toggle<D extends boolean | undefined>(
  key: string,
  doc: string,
  fallback: D,
): Option<boolean | D> {
  return {
    key,
    doc,
    default: fallback,
    shown: fallback === undefined ? "" : String(fallback),
    schema: (Type) => Type.Boolean(),
    read: (c, path, value) => c.boolean(path, value),
  };
}

/** One of a few strings. */
export function choice<const T extends string>(
  key: string,
  doc: string,
  choices: readonly T[],
  fallback: T,
): Option<T> {
  return {
    key,
    doc,
    default: fallback,
    shown: fallback,
    schema: (Type) => Type.Union(choices.map((value) => Type.Literal(value))),
    read: (c, path, value) => c.oneOf(path, value, choices),
  };
}

/** An integer ≥ min. */
export function whole(key: string, doc: string, min: number, fallback: number): Option<number> {
  return {
    key,
    doc,
    default: fallback,
    shown: String(fallback),
    schema: (Type) => Type.Integer({ minimum: min, maximum: Checker.maxInteger }),
    read: (c, path, value) => c.integer(path, value, min),
  };
}

/** Seconds, written as "90s", "5m", "1h", "250ms" or a number of seconds. */
export function duration(key: string, doc: string, fallbackSeconds: number, shown: string): Option<number> {
  return {
    key,
    doc,
    default: fallbackSeconds,
    shown,
    schema: (Type) =>
      Type.Union([
        Type.Number({ minimum: 0, maximum: Checker.maxDurationSeconds }),
        Type.String({ pattern: Checker.durationPattern.source }),
      ]),
    read: (c, path, value) => c.duration(path, value),
  };
}

/** Any other value: its reader and schema given. */
export function custom<V>(option: Option<V>): Option<V> {
  return option;
}

/** The values of `raw` that `table` declares, each read at `path.key`, defaults for the rest. */
export function readTable<T extends OptionTable>(
  c: Checker,
  path: string,
  raw: Raw,
  table: T,
  context: ReadContext,
): OptionValues<T> {
  // The fields in the table's order (fingerprints of options compare them as text), each read
  // in the file's order, so problems are listed as the file reads (no value depends on it).
  const out: Record<string, unknown> = Object.fromEntries(
    Object.keys(table).map((field) => [field, undefined]),
  );
  const given = Object.keys(raw);
  const place = (key: string) => (given.includes(key) ? given.indexOf(key) : given.length);
  const fields = Object.entries(table).sort(([, a], [, b]) => place(a.key) - place(b.key));
  for (const [field, option] of fields) {
    out[field] = option.read(c, at(path, option.key), raw[option.key], context) ?? option.default;
  }
  return out as OptionValues<T>;
}

/** Every option's default. */
export function tableDefaults<T extends OptionTable>(table: T): OptionValues<T> {
  return Object.fromEntries(Object.entries(table).map(([field, o]) => [field, o.default])) as OptionValues<T>;
}

/** The keys a file may give in a table's mapping. */
export function tableKeys(table: OptionTable): string[] {
  return Object.values(table).map((o) => o.key);
}

/** The JSON Schema of a table's mapping: its keys, each optional, no others. */
export function tableSchema(table: OptionTable, extra: Record<string, Schema> = {}): Schema {
  return (Type) => {
    const properties: Record<string, TSchema> = {};
    for (const option of Object.values(table)) {
      properties[option.key] = Type.Optional(
        Type.Unsafe({ ...option.schema(Type), description: option.doc }),
      );
    }
    for (const [key, schema] of Object.entries(extra)) properties[key] = Type.Optional(schema(Type));
    return Type.Object(properties, { additionalProperties: false });
  };
}

/**
 * A mapping of its own options (`tracing:`, `statusPage:`): read by its
 * table, then `finish` checks what the options say together (and may refuse
 * the section, or leave it off when absent).
 */
export function section<T extends OptionTable, V>(spec: {
  key: string;
  doc: string;
  table: T;
  default: V;
  finish: (c: Checker, path: string, values: OptionValues<T>, raw: Raw) => V | undefined;
}): Option<V> {
  return {
    key: spec.key,
    doc: spec.doc,
    default: spec.default,
    shown: "",
    schema: tableSchema(spec.table),
    table: spec.table,
    read: (c, path, value, context) => {
      if (value === undefined) return undefined;
      const raw = c.object(path, value, tableKeys(spec.table));
      if (!raw) return undefined;
      return spec.finish(c, path, readTable(c, path, raw, spec.table, context), raw);
    },
  };
}
