// Raw object (whatever JSON the API returned) → ObjectState. This is the only
// place that reads a custom resource's fields; everything downstream works on
// the projection. It never throws for malformed status: wrong shapes become
// "absent". It throws ProjectionError only when the object has no identity.
import { Hasher } from "./digest.ts";
import { capLabelValue, cutText } from "./label-values.ts";
import type { ConditionState, ConditionStatus, ObjectCuts, ObjectState } from "./state.ts";
import { parseTimestamp } from "./timestamps.ts";

export { parseTimestamp } from "./timestamps.ts";

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

/**
 * Conditions kept per object, in list order. Each is up to three series
 * (status, transition time, reason): past this an object is malformed or
 * hostile (300 conditions would be 900 series of one object), and the rest
 * are dropped and counted.
 */
export const maxConditionsPerObject = 32;

const noCuts: ObjectCuts = Object.freeze({ labelValues: 0, conditions: 0 });

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

const statuses: Record<string, ConditionStatus> = { true: "True", false: "False", unknown: "Unknown" };

function normalizeStatus(value: Json): ConditionStatus {
  if (typeof value === "string") return statuses[value.toLowerCase()] ?? "Unknown";
  if (typeof value === "boolean") return value ? "True" : "False";
  return "Unknown";
}

/** A label value within the length cap, counted in `cuts` when it was cut. */
function labelValue(text: string, cuts: { labelValues: number }): string {
  const capped = capLabelValue(text);
  if (capped !== text) cuts.labelValues++;
  return capped;
}

/**
 * Conditions in list order, at most maxConditionsPerObject; entries without a
 * string `type` are skipped; the first of duplicate types (after the cap on
 * their length) wins.
 */
export function projectConditions(
  raw: Json,
  messageMaxLength: number,
  cuts: { labelValues: number; conditions: number } = { labelValues: 0, conditions: 0 },
): ConditionState[] {
  if (!Array.isArray(raw)) return [];
  const seen = new Set<string>();
  const result: ConditionState[] = [];
  for (const entry of raw) {
    if (!isRecord(entry)) continue;
    const rawType = asString(entry.type);
    if (!rawType) continue;
    const type = labelValue(rawType, cuts);
    if (seen.has(type)) continue;
    if (result.length >= maxConditionsPerObject) {
      cuts.conditions++;
      continue;
    }
    seen.add(type);
    result.push({
      type,
      status: normalizeStatus(entry.status),
      reason: labelValue(asString(entry.reason) ?? "", cuts),
      message: cutText(asString(entry.message) ?? "", messageMaxLength),
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
  cuts: { labelValues: number },
): Record<string, string> {
  const result: Record<string, string> = {};
  const labels = isRecord(metadata.labels) ? metadata.labels : {};
  const annotations = isRecord(metadata.annotations) ? metadata.annotations : {};
  for (const source of sources) {
    const value = (source.from === "label" ? labels : annotations)[source.key];
    // Annotations have no length limit of their own.
    result[source.name] = typeof value === "string" ? labelValue(value, cuts) : "";
  }
  return result;
}

/** A string-valued map (labels, annotations) into the hash, key by key. */
function hashMap(hasher: Hasher, map: Json): void {
  if (!isRecord(map)) return;
  for (const key in map) {
    const value = map[key];
    const text = typeof value === "string" ? value : "";
    hasher.text(key);
    // Long annotation values (last-applied-configuration) count by length
    // only: they are kilobytes, and hashing them on every event would be the
    // costliest part of a projection.
    if (text.length > 64) hasher.number(text.length);
    else hasher.text(text);
  }
}

/**
 * What non-status writes change: generation (spec), deletion, labels,
 * annotations, finalizers and owners. The extra labels are read from labels
 * and annotations, so they are covered too.
 */
function metadataDigest(
  metadata: Record<string, Json>,
  generation: number | undefined,
  deletion: number | undefined,
  extra: Record<string, string>,
): number {
  const hasher = new Hasher().number(generation).number(deletion);
  for (const name in extra) hasher.text(extra[name] as string);
  hashMap(hasher.text("l"), metadata.labels);
  hashMap(hasher.text("a"), metadata.annotations);
  hasher.text("f");
  if (Array.isArray(metadata.finalizers)) for (const f of metadata.finalizers) hasher.text(String(f));
  hasher.text("o");
  if (Array.isArray(metadata.ownerReferences)) {
    for (const owner of metadata.ownerReferences) {
      if (!isRecord(owner)) continue;
      hasher.text(String(owner.uid)).text(String(owner.controller)).text(String(owner.blockOwnerDeletion));
    }
  }
  return hasher.value();
}

export function projectObject(raw: Json, settings: ProjectionSettings): ObjectState {
  if (!isRecord(raw) || !isRecord(raw.metadata)) throw new ProjectionError("object has no metadata");
  const metadata = raw.metadata;
  const uid = asString(metadata.uid);
  const name = asString(metadata.name);
  if (!uid || !name) throw new ProjectionError("object has no metadata.uid or metadata.name");

  const cuts = { labelValues: 0, conditions: 0 };
  const conditions = projectConditions(
    readPath(raw, settings.conditionsPath),
    settings.messageMaxLength,
    cuts,
  );
  const observedGeneration = asGeneration(readPath(raw, settings.observedGenerationPath));
  const phaseValue = settings.phasePath ? readPath(raw, settings.phasePath) : undefined;
  const phase =
    typeof phaseValue === "string" && phaseValue.length > 0 ? labelValue(phaseValue, cuts) : undefined;
  const heartbeat = settings.heartbeatPath
    ? parseTimestamp(readPath(raw, settings.heartbeatPath))
    : undefined;
  const generation = asGeneration(metadata.generation);
  const deletionTimestamp = parseTimestamp(metadata.deletionTimestamp);
  const labels = extraLabels(metadata, settings.extraLabels, cuts);

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
    metaDigest: metadataDigest(metadata, generation, deletionTimestamp, labels),
    cuts: cuts.labelValues === 0 && cuts.conditions === 0 ? noCuts : cuts,
  };
}
