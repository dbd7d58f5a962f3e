// Reading the configured fields of an object beyond conditions and
// generations: state fields, the suspend switch and the extra labels (from
// labels, annotations or scalar fields). Malformed values read as absent.
import type { CelError, CelProgram, CelValueResult } from "../cel.ts";
import { isRecord } from "../json-record.ts";
import type { FieldValue, StateValue } from "../state.ts";
import { parseTimestamp } from "./timestamps.ts";

type Json = unknown;

/** A string field read as a state (see StateValue). */
export interface StateSource {
  name: string;
  path: readonly string[];
}

export interface LabelSource {
  /** Object label or annotation key to copy, or the dotted path of a scalar field. */
  key: string;
  /** Prometheus label name it becomes (already sanitized). */
  name: string;
  from: "label" | "annotation" | "path";
}

/** Where a kind says an object is suspended. */
export interface SuspendSource {
  suspendPath: readonly string[] | undefined;
  suspendAnnotation: string | undefined;
}

export function readPath(root: Json, path: readonly string[]): Json {
  let current = root;
  for (const key of path) {
    if (!isRecord(current)) return undefined;
    current = current[key];
  }
  return current;
}

/**
 * The state fields that hold a non-empty string. A `lastTransitionTime` next
 * to the field (Argo CD's status.health has one) is its time; without one the
 * exporter's first sight is (condition-times.ts).
 */
export function projectStates(raw: Json, sources: readonly StateSource[]): StateValue[] {
  const out: StateValue[] = [];
  for (const source of sources) {
    const value = readPath(raw, source.path);
    if (typeof value !== "string" || value === "") continue;
    const since = parseTimestamp(readPath(raw, [...source.path.slice(0, -1), "lastTransitionTime"]));
    out.push({
      name: source.name,
      value,
      since,
      sinceSource: since === undefined ? undefined : "lastTransitionTime",
    });
  }
  return out;
}

/** How a configured value is read: auto takes numbers and booleans as they are and strings as timestamps or quantities. */
export type ValueKind = "auto" | "number" | "quantity" | "timestamp" | "boolean";

/** A numeric field read as a value (see FieldValue), at a path or computed by a CEL expression. */
export type ValueSource =
  | { name: string; path: readonly string[]; kind: ValueKind; cel?: undefined }
  | { name: string; cel: CelProgram<CelValueResult>; path?: undefined };

const decimalSuffixes: Record<string, number> = {
  n: 1e-9,
  u: 1e-6,
  m: 1e-3,
  "": 1,
  k: 1e3,
  M: 1e6,
  G: 1e9,
  T: 1e12,
  P: 1e15,
  E: 1e18,
};
const binarySuffixes: Record<string, number> = {
  Ki: 2 ** 10,
  Mi: 2 ** 20,
  Gi: 2 ** 30,
  Ti: 2 ** 40,
  Pi: 2 ** 50,
  Ei: 2 ** 60,
};
const rfc3339 = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d:\d\d)$/i;
/** A number, then an exponent (e3, E-2) or a suffix; a lone E (no digits) is the exa suffix. */
const quantityPattern = /^([+-]?(?:\d+(?:\.\d*)?|\.\d+))(?:([eE][+-]?\d+)|(Ki|Mi|Gi|Ti|Pi|Ei|[numkMGTPE]))?$/;

/** A number, with an exponent but no suffix (`12`, `-0.5`, `1e3`); undefined when it is not one. */
function parseNumber(text: string): number | undefined {
  const match = quantityPattern.exec(text);
  return match && match[3] === undefined ? Number(text) : undefined;
}

/** A Kubernetes quantity (`500m`, `2Gi`, `1.5`, `1e3`) as a number; undefined when it is not one. */
export function parseQuantity(text: string): number | undefined {
  const match = quantityPattern.exec(text.trim());
  if (!match) return undefined;
  const base = Number(match[1]);
  if (match[2] !== undefined) return base * 10 ** Number(match[2].slice(1));
  const suffix = match[3] ?? "";
  return base * ((binarySuffixes[suffix] ?? decimalSuffixes[suffix]) as number);
}

/** Why a present value was not read, for the log (the value itself is cut: it may be anything). */
function unreadable(value: Json, kind: ValueKind): string {
  const shown =
    typeof value === "string"
      ? JSON.stringify(value.slice(0, 40))
      : Array.isArray(value)
        ? "a list"
        : typeof value === "object"
          ? "an object"
          : String(value);
  const wanted =
    kind === "auto"
      ? "a number, boolean, RFC 3339 time or quantity"
      : kind === "timestamp"
        ? "an RFC 3339 time"
        : `a ${kind}`;
  return `${shown} is not ${wanted}`;
}

function readValue(value: Json, kind: ValueKind): number | undefined {
  if (typeof value === "boolean") return kind === "auto" || kind === "boolean" ? Number(value) : undefined;
  if (typeof value === "number")
    return Number.isFinite(value) && kind !== "timestamp" && kind !== "boolean" ? value : undefined;
  if (typeof value !== "string") return undefined;
  if (kind === "timestamp" || kind === "auto") {
    // RFC 3339 only: Date.parse, behind parseTimestamp, takes "12" for a date.
    const seconds = rfc3339.test(value) ? parseTimestamp(value) : undefined;
    if (seconds !== undefined || kind === "timestamp") return seconds;
  }
  if (kind === "boolean") return value === "true" ? 1 : value === "false" ? 0 : undefined;
  return kind === "number" ? parseNumber(value) : parseQuantity(value);
}

/** A configured value that is there but could not be read: no series, counted and logged by the collector. */
export interface UnreadableValue {
  name: string;
  reason: string;
}

/**
 * The configured values that are set and read as numbers: numbers as they
 * are, booleans as 1 and 0, RFC 3339 timestamps as Unix seconds, quantities
 * scaled. A missing value (absent or null) has no series; an unreadable one
 * has none either, never a wrong 0, and is handed to `unread`.
 */
export function projectValues(
  raw: Json,
  sources: readonly ValueSource[],
  unread?: (value: UnreadableValue) => void,
  failed?: (error: CelError) => void,
): FieldValue[] {
  const out: FieldValue[] = [];
  for (const source of sources) {
    if (source.cel) {
      // An expression's null is "no value", like an absent field; a failure has no series either.
      const outcome = isRecord(raw) ? source.cel.evaluate(raw) : undefined;
      if (outcome?.ok && outcome.value !== null) out.push({ name: source.name, value: outcome.value });
      else if (outcome && !outcome.ok)
        failed?.({ field: source.name, reason: outcome.reason, message: outcome.message });
      continue;
    }
    const found = readPath(raw, source.path);
    if (found === undefined || found === null) continue;
    const value = readValue(found, source.kind);
    if (value !== undefined && Number.isFinite(value)) out.push({ name: source.name, value });
    else unread?.({ name: source.name, reason: unreadable(found, source.kind) });
  }
  return out;
}

function switchedOn(value: Json): boolean {
  if (value === true) return true;
  return typeof value === "string" && ["true", "on"].includes(value.toLowerCase());
}

/**
 * The suspend field is on, or the suspend annotation is there with any value
 * but "false"/"off": Crossplane writes "true", CloudNativePG "on" (and "off"
 * to wake up), Cluster API's paused annotation counts by its presence alone.
 */
export function isSuspended(
  raw: Record<string, Json>,
  metadata: Record<string, Json>,
  settings: SuspendSource,
): boolean {
  if (settings.suspendPath && switchedOn(readPath(raw, settings.suspendPath))) return true;
  if (settings.suspendAnnotation === undefined || !isRecord(metadata.annotations)) return false;
  const value = metadata.annotations[settings.suspendAnnotation];
  return typeof value === "string" && !["false", "off"].includes(value.toLowerCase());
}

/** A scalar as a label value: strings as they are, numbers and booleans spelled out; anything else "". */
function scalarText(value: Json): string {
  if (typeof value === "string") return value;
  // Number.isFinite is false for anything but a finite number (no coercion, unlike isFinite).
  if (typeof value === "boolean" || Number.isFinite(value)) return String(value);
  return "";
}

// Shared by every object without extra labels (most): an empty object of its own is 56 bytes.
const noExtraLabels: Record<string, string> = Object.freeze({});

export function extraLabels(
  raw: Record<string, Json>,
  metadata: Record<string, Json>,
  sources: readonly LabelSource[],
): Record<string, string> {
  if (sources.length === 0) return noExtraLabels;
  const result: Record<string, string> = {};
  const labels = isRecord(metadata.labels) ? metadata.labels : {};
  const annotations = isRecord(metadata.annotations) ? metadata.annotations : {};
  for (const source of sources) {
    if (source.from === "path") {
      result[source.name] = scalarText(readPath(raw, source.key.split(".")));
      continue;
    }
    const value = (source.from === "label" ? labels : annotations)[source.key];
    result[source.name] = typeof value === "string" ? value : "";
  }
  return result;
}
