// Raw object (whatever JSON the API returned) → ObjectState. This is the only
// place that reads a custom resource's fields; everything downstream works on
// the projection. It never throws for malformed status: wrong shapes become
// "absent". It throws ProjectionError only when the object has no identity.
import { digest } from "./digest.ts";
import type { ConditionState, ConditionStatus, ObjectState } from "./state.ts";

export interface LabelSource {
  /** Object label or annotation key to copy. */
  key: string;
  /** Prometheus label name it becomes (already sanitized). */
  name: string;
  from: "label" | "annotation";
}

export interface ProjectionSettings {
  conditionsPath: readonly string[];
  observedGenerationPath: readonly string[];
  /** undefined: the kind has no phase. */
  phasePath: readonly string[] | undefined;
  /** undefined: no heartbeat configured. */
  heartbeatPath: readonly string[] | undefined;
  extraLabels: readonly LabelSource[];
  /** Longest condition message kept (traces show it; metrics never do). */
  messageMaxLength: number;
}

export const defaultProjectionSettings: ProjectionSettings = {
  conditionsPath: ["status", "conditions"],
  observedGenerationPath: ["status", "observedGeneration"],
  phasePath: ["status", "phase"],
  heartbeatPath: undefined,
  extraLabels: [],
  messageMaxLength: 256,
};

export class ProjectionError extends Error {}

type Json = unknown;

function isRecord(value: Json): value is Record<string, Json> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

export function readPath(root: Json, path: readonly string[]): Json {
  let current = root;
  for (const key of path) {
    if (!isRecord(current)) return undefined;
    current = current[key];
  }
  return current;
}

function asString(value: Json): string | undefined {
  return typeof value === "string" ? value : undefined;
}

/** A non-negative safe integer, or undefined. */
export function asGeneration(value: Json): number | undefined {
  return typeof value === "number" && Number.isSafeInteger(value) && value >= 0 ? value : undefined;
}

/** RFC 3339 → Unix seconds (the API's precision), or undefined. */
export function parseTimestamp(value: Json): number | undefined {
  if (typeof value !== "string" || value.length === 0) return undefined;
  const ms = Date.parse(value);
  return Number.isFinite(ms) ? Math.floor(ms / 1000) : undefined;
}

const statuses: Record<string, ConditionStatus> = { true: "True", false: "False", unknown: "Unknown" };

function normalizeStatus(value: Json): ConditionStatus {
  if (typeof value === "string") return statuses[value.toLowerCase()] ?? "Unknown";
  if (typeof value === "boolean") return value ? "True" : "False";
  return "Unknown";
}

function truncate(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, Math.max(0, max - 1))}…`;
}

/** Conditions in list order; entries without a string `type` are skipped; the first of duplicate types wins. */
export function projectConditions(raw: Json, messageMaxLength: number): ConditionState[] {
  if (!Array.isArray(raw)) return [];
  const seen = new Set<string>();
  const result: ConditionState[] = [];
  for (const entry of raw) {
    if (!isRecord(entry)) continue;
    const type = asString(entry.type);
    if (!type || seen.has(type)) continue;
    seen.add(type);
    result.push({
      type,
      status: normalizeStatus(entry.status),
      reason: asString(entry.reason) ?? "",
      message: truncate(asString(entry.message) ?? "", messageMaxLength),
      lastTransitionTime: parseTimestamp(entry.lastTransitionTime),
      observedGeneration: asGeneration(entry.observedGeneration),
    });
  }
  return result;
}

/** Newest managedFields time of a write to the main resource that touched spec. */
export function specChangeTime(managedFields: Json): number | undefined {
  if (!Array.isArray(managedFields)) return undefined;
  let newest: number | undefined;
  for (const entry of managedFields) {
    if (!isRecord(entry) || entry.subresource) continue;
    const fields = entry.fieldsV1;
    if (!isRecord(fields) || !("f:spec" in fields)) continue;
    const time = parseTimestamp(entry.time);
    if (time !== undefined && (newest === undefined || time > newest)) newest = time;
  }
  return newest;
}

function extraLabels(
  metadata: Record<string, Json>,
  sources: readonly LabelSource[],
): Record<string, string> {
  const result: Record<string, string> = {};
  const labels = isRecord(metadata.labels) ? metadata.labels : {};
  const annotations = isRecord(metadata.annotations) ? metadata.annotations : {};
  for (const source of sources) {
    const value = (source.from === "label" ? labels : annotations)[source.key];
    result[source.name] = typeof value === "string" ? value : "";
  }
  return result;
}

export function projectObject(raw: Json, settings: ProjectionSettings): ObjectState {
  if (!isRecord(raw) || !isRecord(raw.metadata)) throw new ProjectionError("object has no metadata");
  const metadata = raw.metadata;
  const uid = asString(metadata.uid);
  const name = asString(metadata.name);
  if (!uid || !name) throw new ProjectionError("object has no metadata.uid or metadata.name");

  const conditions = projectConditions(readPath(raw, settings.conditionsPath), settings.messageMaxLength);
  const observedGeneration = asGeneration(readPath(raw, settings.observedGenerationPath));
  const phaseValue = settings.phasePath ? readPath(raw, settings.phasePath) : undefined;
  const phase = typeof phaseValue === "string" && phaseValue.length > 0 ? phaseValue : undefined;
  const heartbeat = settings.heartbeatPath
    ? parseTimestamp(readPath(raw, settings.heartbeatPath))
    : undefined;
  const generation = asGeneration(metadata.generation);
  const deletionTimestamp = parseTimestamp(metadata.deletionTimestamp);
  const labels = extraLabels(metadata, settings.extraLabels);

  // What counts as a meaningful status change: condition status, reason,
  // observedGeneration and transition time; phase; observedGeneration;
  // heartbeat. Messages and untracked status fields are not: a write that only
  // rewrites them is a no-op write.
  let statusKey = `${observedGeneration}|${phase}|${heartbeat}`;
  for (const c of conditions) {
    statusKey += `|${c.type}=${c.status}/${c.reason}/${c.observedGeneration}/${c.lastTransitionTime}`;
  }
  // Metadata writes (labels, annotations, finalizers, owners, deletion, spec →
  // generation) are told apart from no-op status writes by this key. Long
  // annotation values (last-applied-configuration) count by length only: they
  // are kilobytes, and hashing them on every event is the costliest part here.
  let metaKey = `${generation}|${deletionTimestamp}|${JSON.stringify(metadata.labels ?? null)}|${JSON.stringify(
    metadata.finalizers ?? null,
  )}|${JSON.stringify(metadata.ownerReferences ?? null)}`;
  if (isRecord(metadata.annotations)) {
    for (const [key, value] of Object.entries(metadata.annotations)) {
      const text = typeof value === "string" ? value : "";
      metaKey += `|${key}=${text.length > 64 ? `#${text.length}` : text}`;
    }
  }
  for (const value of Object.values(labels)) metaKey += `|${value}`;

  return {
    uid,
    namespace: asString(metadata.namespace) ?? "",
    name,
    resourceVersion: asString(metadata.resourceVersion) ?? "",
    creationTimestamp: parseTimestamp(metadata.creationTimestamp),
    deletionTimestamp,
    generation,
    observedGeneration,
    phase,
    conditions,
    heartbeat,
    specChangedAt: specChangeTime(metadata.managedFields),
    extraLabels: labels,
    statusDigest: digest(statusKey),
    metaDigest: digest(metaKey),
  };
}
