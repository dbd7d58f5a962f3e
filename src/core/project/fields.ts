// Reading the configured fields of an object beyond conditions and
// generations: state fields, the suspend switch and the extra labels (from
// labels, annotations or scalar fields). Malformed values read as absent.
import { isRecord } from "../json-record.ts";
import type { StateValue } from "../state.ts";
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

/** A switch that is on: true, or the strings "true"/"on" (annotations are strings). */
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

export function extraLabels(
  raw: Record<string, Json>,
  metadata: Record<string, Json>,
  sources: readonly LabelSource[],
): Record<string, string> {
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
