// Tracing's parent references (ObjectRefs), read from the raw object only
// when tracing asks for them (RefSources set): the controller owner, the
// source a configured reference or label pair names, and the trace-context
// annotation — and, for a kind traced by operations, when its current
// operation started and finished. Absent, malformed or over-long values read
// as absent; nothing is kept for an object without any.
import { isRecord } from "../json-record.ts";
import type { ObjectRefs, OperationTimes } from "../state.ts";
import { readPath } from "./fields.ts";
import { parseTimestamp } from "./timestamps.ts";

type Json = unknown;

/** Where one part of a source reference is read: a label, an annotation, a field, or a fixed value. */
export type RefField =
  | { from: "label" | "annotation"; key: string }
  | { from: "path"; path: readonly string[] }
  | { from: "value"; value: string };

export interface SourceRefSource {
  name: RefField;
  /** Unset: the object's own namespace. */
  namespace: RefField | undefined;
  /** Where the reference names its kind (spec.sourceRef.kind); unset: not checked. */
  kind: RefField | undefined;
}

/** Where an operation's server-written times (and phase) are (Argo CD: status.operationState.*). */
export interface OperationPaths {
  startedAt: readonly string[];
  finishedAt: readonly string[];
  phase: readonly string[] | undefined;
}

export interface RefSources {
  /** Read the controller ownerReference. */
  owner: boolean;
  /** The annotation holding a W3C trace context; undefined: none read. */
  traceContextAnnotation: string | undefined;
  source: SourceRefSource | undefined;
  /** The operation's fields (tracing.operation); undefined: not read. */
  operation?: OperationPaths | undefined;
}

/** Longest reference value kept (object names are at most 253; a trace context with tracestate at most ~600). */
const maxRefLength = 1024;

function asText(value: Json): string | undefined {
  return typeof value === "string" && value.length > 0 && value.length <= maxRefLength ? value : undefined;
}

function readField(
  raw: Record<string, Json>,
  metadata: Record<string, Json>,
  field: RefField,
): string | undefined {
  switch (field.from) {
    case "value":
      return field.value;
    case "path":
      return asText(readPath(raw, field.path));
    case "label":
      return isRecord(metadata.labels) ? asText(metadata.labels[field.key]) : undefined;
    case "annotation":
      return isRecord(metadata.annotations) ? asText(metadata.annotations[field.key]) : undefined;
  }
}

/** The controller owner: the first ownerReference with controller: true and a uid, kind and name. */
function controllerOwner(metadata: Record<string, Json>): ObjectRefs["owner"] {
  if (!Array.isArray(metadata.ownerReferences)) return undefined;
  for (const ref of metadata.ownerReferences) {
    if (!isRecord(ref) || ref.controller !== true) continue;
    const uid = asText(ref.uid);
    const kind = asText(ref.kind);
    const name = asText(ref.name);
    const apiVersion = asText(ref.apiVersion);
    if (uid && kind && name && apiVersion) return { uid, apiVersion, kind, name };
  }
  return undefined;
}

/**
 * The current operation: undefined unless its start reads as a time. A
 * finish before the start belongs to no operation of this start (ignored).
 */
function operationTimes(raw: Record<string, Json>, paths: OperationPaths): OperationTimes | undefined {
  const startedAt = parseTimestamp(readPath(raw, paths.startedAt));
  if (startedAt === undefined) return undefined;
  const finished = parseTimestamp(readPath(raw, paths.finishedAt));
  const finishedAt = finished !== undefined && finished >= startedAt ? finished : undefined;
  const phase = paths.phase ? asText(readPath(raw, paths.phase)) : undefined;
  return {
    startedAt,
    ...(finishedAt !== undefined && { finishedAt }),
    ...(phase !== undefined && { phase }),
  };
}

/** The object's refs, or undefined when it has none (the common case costs no allocation). */
export function projectRefs(
  raw: Record<string, Json>,
  metadata: Record<string, Json>,
  namespace: string,
  sources: RefSources,
): ObjectRefs | undefined {
  const owner = sources.owner ? controllerOwner(metadata) : undefined;
  const annotation = sources.traceContextAnnotation;
  const traceContext =
    annotation !== undefined && isRecord(metadata.annotations)
      ? asText(metadata.annotations[annotation])
      : undefined;
  let source: ObjectRefs["source"];
  if (sources.source) {
    const name = readField(raw, metadata, sources.source.name);
    const ns = sources.source.namespace ? readField(raw, metadata, sources.source.namespace) : namespace;
    const kind = sources.source.kind ? readField(raw, metadata, sources.source.kind) : undefined;
    if (name !== undefined)
      source = { namespace: ns ?? namespace, name, ...(kind !== undefined && { kind }) };
  }
  const operation = sources.operation ? operationTimes(raw, sources.operation) : undefined;
  if (!owner && !source && traceContext === undefined && !operation) return undefined;
  return {
    ...(owner && { owner }),
    ...(source && { source }),
    ...(traceContext !== undefined && { traceContext }),
    ...(operation && { operation }),
  };
}
