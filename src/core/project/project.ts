// Raw object (whatever JSON the API returned) → ObjectState. This is the only
// place that reads a custom resource's fields; everything downstream works on
// the projection. It never throws for malformed status: wrong shapes become
// "absent". It throws ProjectionError only when the object has no identity.

import { type CelError, type CelProgram, type CelReadinessResult, readinessCelField } from "../cel.ts";
import { isRecord, type JsonRecord } from "../json-record.ts";
import { capLabelValue, cutText } from "../label-values.ts";
import type { ConditionState, ConditionStatus, ObjectCuts, ObjectState } from "../state.ts";
import { Hasher } from "./digest.ts";
import {
  extraLabels,
  isSuspended,
  type LabelSource,
  projectStates,
  projectValues,
  readPath,
  type StateSource,
  type ValueSource,
} from "./fields.ts";
import { projectRefs, type RefSources } from "./refs.ts";
import { parseTimestamp } from "./timestamps.ts";

export type { LabelSource, StateSource, ValueKind, ValueSource } from "./fields.ts";
export { parseQuantity, projectStates, projectValues, readPath } from "./fields.ts";
export type { RefField, RefSources, SourceRefSource } from "./refs.ts";
export { parseTimestamp } from "./timestamps.ts";

export interface ProjectionSettings {
  /** undefined: the kind has no conditions (its schema declares none). */
  conditionsPath: readonly string[] | undefined;
  observedGenerationPath: readonly string[];
  /** undefined: the kind has no phase. */
  phasePath: readonly string[] | undefined;
  /** State fields (configured `states`, or a well-known shape detected). */
  states: readonly StateSource[];
  /** Numeric fields (configured `values`). */
  values: readonly ValueSource[];
  /** The readiness expression (`readiness.cel`): it decides cr_status; undefined: none. */
  readiness?: CelProgram<CelReadinessResult> | undefined;
  /** Where the kind says it is suspended (spec.suspend, spec.paused); undefined: nowhere. */
  suspendPath: readonly string[] | undefined;
  /** An annotation that suspends it (crossplane.io/paused, cnpg.io/hibernation); undefined: none. */
  suspendAnnotation: string | undefined;
  /** undefined: no heartbeat configured. */
  heartbeatPath: readonly string[] | undefined;
  extraLabels: readonly LabelSource[];
  /** Longest condition message kept (traces show it; metrics never do). The one place messages are cut. */
  messageMaxLength: number;
  /**
   * Keep a digest of spec: for kinds without a status subresource, where a
   * status write bumps generation too, so a spec change is told by its content.
   */
  specDigest: boolean;
  /** Tracing's parent references to read (owner, source, trace context); undefined: none (tracing off). */
  refs?: RefSources | undefined;
}

export const defaultProjectionSettings: ProjectionSettings = {
  conditionsPath: ["status", "conditions"],
  observedGenerationPath: ["status", "observedGeneration"],
  phasePath: ["status", "phase"],
  states: [],
  values: [],
  suspendPath: undefined,
  suspendAnnotation: undefined,
  heartbeatPath: undefined,
  extraLabels: [],
  messageMaxLength: 256,
  specDigest: false,
};

/**
 * Status fields a controller rewrites on every write whatever happened —
 * heartbeats, probe, update and reconcile stamps — at any depth (Deployment-
 * style conditions carry lastUpdateTime, node-style ones lastHeartbeatTime and
 * lastProbeTime). A write that changes only these (and the configured
 * heartbeatField) leaves the status unchanged: a no-op status write.
 */
export const volatileStatusFields: ReadonlySet<string> = new Set([
  "lastHeartbeatTime",
  "lastHeartbeat",
  "heartbeatTime",
  "lastProbeTime",
  "lastUpdateTime",
  "lastUpdated",
  "reconciledAt",
  "lastReconcileTime",
  "lastReconciled",
]);

export class ProjectionError extends Error {}

/**
 * Conditions kept per object, in list order. Each is up to three series
 * (status, transition time, reason): past this an object is malformed or
 * hostile (300 conditions would be 900 series of one object), and the rest
 * are dropped and counted.
 */
export const maxConditionsPerObject = 32;

const noCuts: ObjectCuts = Object.freeze({ labelValues: 0, conditions: 0, unreadableValues: 0 });
/** Shared by every object of a kind without configured values: no array per object. */
// Objects with none share one frozen empty array: an array of their own is 32 bytes per object.
const none = Object.freeze([]) as never[];
const orNone = <T>(items: T[]): T[] => (items.length === 0 ? none : items);

type Json = unknown;

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
  if (!Array.isArray(raw)) return none;
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
    const lastTransitionTime = parseTimestamp(entry.lastTransitionTime);
    result.push({
      type,
      status: normalizeStatus(entry.status),
      reason: labelValue(asString(entry.reason) ?? "", cuts),
      message: cutText(asString(entry.message) ?? "", messageMaxLength),
      lastTransitionTime,
      since: lastTransitionTime,
      sinceSource: lastTransitionTime === undefined ? undefined : "lastTransitionTime",
      observedGeneration: asGeneration(entry.observedGeneration),
    });
  }
  // A copy of exactly their number: the pushed-to array keeps room for 16 (128 bytes for 4 conditions).
  return orNone(result.slice());
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
    if (time !== undefined) newest = Math.max(newest ?? time, time);
  }
  return newest;
}

/**
 * Where a structure starts and ends, in the digests: numbers, where every
 * piece of content is text (or a length over 64), so no key, value or
 * finalizer can pose as a boundary and content never moves across one unseen
 * (with text markers, labels {a: "x"} hashed like annotations {x: "a"}).
 */
const mark = {
  string: 1,
  null: 2,
  tooDeep: 3,
  list: 4,
  listEnd: 5,
  map: 6,
  mapEnd: 7,
  labels: 8,
  annotations: 9,
  finalizers: 10,
  owners: 11,
} as const;

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

/** Deeper than this, JSON is not looked at (a collision there could at worst hide one change from a counter). */
const maxDigestDepth = 32;

/**
 * Feeds a JSON value into the hash, type by type, leaving out object keys
 * that `skip` names: at any depth (`names`), or at one path (`path`, followed
 * from `at`).
 */
function hashJson(
  hasher: Hasher,
  value: Json,
  depth: number,
  names: ReadonlySet<string> | undefined,
  path: readonly string[] | undefined,
  at: number,
): void {
  if (typeof value === "string") hasher.number(mark.string).text(value);
  else if (typeof value === "number" || typeof value === "boolean") hasher.text(String(value));
  else if (value === null || value === undefined) hasher.number(mark.null);
  else if (depth >= maxDigestDepth) hasher.number(mark.tooDeep);
  else if (Array.isArray(value)) {
    hasher.number(mark.list);
    for (const item of value) hashJson(hasher, item, depth + 1, names, undefined, 0);
    hasher.number(mark.listEnd);
  } else if (isRecord(value)) {
    hasher.number(mark.map);
    for (const key in value) {
      if (names?.has(key)) continue;
      const onPath = path !== undefined && path[at] === key;
      if (onPath && at === path.length - 1) continue;
      hasher.text(key);
      hashJson(hasher, value[key], depth + 1, names, onPath ? path : undefined, at + 1);
    }
    hasher.number(mark.mapEnd);
  }
}

/** The status without its volatile timestamps and the configured heartbeat field. */
export function statusDigest(status: Json, heartbeatPath: readonly string[] | undefined): number {
  const hasher = new Hasher();
  // The heartbeat path starts at the object ("status.lastHeartbeatTime").
  const path = heartbeatPath?.[0] === "status" ? heartbeatPath : undefined;
  hashJson(hasher, status, 0, volatileStatusFields, path, 1);
  return hasher.value();
}

function specDigest(spec: Json): number {
  const hasher = new Hasher();
  hashJson(hasher, spec, 0, undefined, undefined, 0);
  return hasher.value();
}

/**
 * What non-status writes change besides spec: deletion, labels, annotations,
 * finalizers and owners. The extra labels are read from labels and
 * annotations, so they are covered too.
 */
function metadataDigest(
  metadata: Record<string, Json>,
  deletion: number | undefined,
  extra: Record<string, string>,
): number {
  const hasher = new Hasher().number(deletion);
  for (const name in extra) hasher.text(extra[name] as string);
  hashMap(hasher.number(mark.labels), metadata.labels);
  hashMap(hasher.number(mark.annotations), metadata.annotations);
  hasher.number(mark.finalizers);
  if (Array.isArray(metadata.finalizers)) for (const f of metadata.finalizers) hasher.text(String(f));
  hasher.number(mark.owners);
  if (Array.isArray(metadata.ownerReferences)) {
    for (const owner of metadata.ownerReferences) {
      if (!isRecord(owner)) continue;
      hasher.text(String(owner.uid)).text(String(owner.controller)).text(String(owner.blockOwnerDeletion));
    }
  }
  return hasher.value();
}

/** The configured values that are set, what could not be read counted in `cuts`, failed expressions in `errors`. */
function valuesOf(raw: JsonRecord, settings: ProjectionSettings, cuts: ObjectCuts) {
  const unread = (value: { name: string; reason: string }) => {
    cuts.unreadableValues++;
    cuts.firstUnreadable ??= value;
  };
  return orNone(projectValues(raw, settings.values, unread, (error) => failed(cuts, error)));
}

/** A failed expression, in the cuts (the list made on the first: most objects have none). */
function failed(cuts: ObjectCuts, error: CelError): void {
  cuts.celErrors = [...(cuts.celErrors ?? []), error];
}

/** The `field` labels of a kind's CEL expressions: readiness.cel and the computed values' names. */
export function celFields(settings: ProjectionSettings): string[] {
  return [
    ...(settings.readiness ? [readinessCelField] : []),
    ...settings.values.flatMap((v) => (v.cel ? [v.name] : [])),
  ];
}

/** The readiness expression's verdict on `raw`: Unknown when its evaluation fails (then in `errors`). */
function celVerdict(
  raw: JsonRecord,
  program: CelProgram<CelReadinessResult>,
  cuts: ObjectCuts,
): CelReadinessResult | "Unknown" {
  const outcome = program.evaluate(raw);
  if (outcome.ok) return outcome.value;
  failed(cuts, { field: readinessCelField, reason: outcome.reason, message: outcome.message });
  return "Unknown";
}

export function projectObject(raw: Json, settings: ProjectionSettings): ObjectState {
  if (!isRecord(raw) || !isRecord(raw.metadata)) throw new ProjectionError("object has no metadata");
  const metadata = raw.metadata;
  const uid = asString(metadata.uid);
  const name = asString(metadata.name);
  if (!uid || !name) throw new ProjectionError("object has no metadata.uid or metadata.name");

  const cuts: ObjectCuts = { labelValues: 0, conditions: 0, unreadableValues: 0 };
  const conditions = settings.conditionsPath
    ? projectConditions(readPath(raw, settings.conditionsPath), settings.messageMaxLength, cuts)
    : none;
  const observedGeneration = asGeneration(readPath(raw, settings.observedGenerationPath));
  const phaseValue = settings.phasePath ? readPath(raw, settings.phasePath) : undefined;
  const phase =
    typeof phaseValue === "string" && phaseValue.length > 0 ? labelValue(phaseValue, cuts) : undefined;
  const heartbeat = settings.heartbeatPath
    ? parseTimestamp(readPath(raw, settings.heartbeatPath))
    : undefined;
  const generation = asGeneration(metadata.generation);
  const deletionTimestamp = parseTimestamp(metadata.deletionTimestamp);
  const labels = extraLabels(raw, metadata, settings.extraLabels);
  // Annotations and fields have no length limit of their own.
  for (const [name, value] of Object.entries(labels)) labels[name] = labelValue(value, cuts);

  const state: ObjectState = {
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
    states: orNone(
      projectStates(raw, settings.states).map((state) => ({
        ...state,
        value: labelValue(state.value, cuts),
      })),
    ),
    values: valuesOf(raw, settings, cuts),
    suspended: isSuspended(raw, metadata, settings),
    heartbeat,
    specChangedAt: specChangeTime(metadata.managedFields),
    extraLabels: labels,
    metaDigest: metadataDigest(metadata, deletionTimestamp, labels),
    statusDigest: statusDigest(raw.status, settings.heartbeatPath),
    specDigest: settings.specDigest ? specDigest(raw.spec) : undefined,
    cuts,
  };
  // Only kinds with a readiness expression carry a verdict (no field per object elsewhere).
  if (settings.readiness) state.celVerdict = celVerdict(raw, settings.readiness, cuts);
  if (settings.refs) {
    const refs = projectRefs(raw, metadata, state.namespace, settings.refs);
    if (refs) state.refs = refs;
  }
  state.cuts =
    cuts.labelValues + cuts.conditions + cuts.unreadableValues > 0 || cuts.celErrors ? cuts : noCuts;
  return state;
}
