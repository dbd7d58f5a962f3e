// What objects show, for what a schema cannot say: the whole status of kinds
// whose status preserves unknown fields, and the condition types of kinds
// whose schema declares no type enum; and the decision (detect.ts) from the
// schema plus what was learned. Learning is bounded: only the first
// `maxSamples` objects count, and per object only a bounded part of status is
// looked at. Pure: addSample returns a new value.

import { asRecord, type JsonRecord } from "../json-record.ts";
import { decideShape } from "./decide.ts";
import { detectVersions, type VersionDetection } from "./schema.ts";
import {
  type ConditionArrayEvidence,
  completionFieldNames,
  type DetectedShape,
  dotted,
  emptyEvidence,
  type FieldPath,
  phaseLikeName,
  type ShapeEvidence,
  type StringFieldEvidence,
  wellKnownStates,
} from "./shape.ts";

export interface SampleLimits {
  /** Objects that count; later ones are ignored. */
  maxSamples: number;
  /** How deep under status fields are looked for. */
  maxDepth: number;
  /** Distinct values kept per field (condition types, phases). */
  maxValues: number;
  /** Distinct paths kept per kind of field. */
  maxPaths: number;
}

export const defaultSampleLimits: SampleLimits = { maxSamples: 20, maxDepth: 6, maxValues: 32, maxPaths: 16 };

export interface Samples {
  /** Objects that counted (at most maxSamples). */
  seen: number;
  evidence: ShapeEvidence;
}

export const noSamples: Samples = { seen: 0, evidence: emptyEvidence };

const key = (path: FieldPath): string => dotted(path);

function union(values: readonly string[], more: readonly string[], max: number): readonly string[] {
  if (more.every((v) => values.includes(v))) return values;
  const result = [...values];
  for (const value of more) if (!result.includes(value) && result.length < max) result.push(value);
  return result;
}

/** Adds or merges an entry keyed by path; new paths beyond the bound are dropped. */
function mergeByPath<T extends { path: FieldPath }>(
  list: readonly T[],
  entry: T,
  merge: (old: T, next: T) => T,
  maxPaths: number,
): readonly T[] {
  const index = list.findIndex((e) => key(e.path) === key(entry.path));
  if (index < 0) return list.length < maxPaths ? [...list, entry] : list;
  const merged = merge(list[index] as T, entry);
  return list.map((e, i) => (i === index ? merged : e));
}

/** With `open` false, `a` is what the schema declares: objects add seen types, not fields. */
function mergeConditions(
  a: ConditionArrayEvidence,
  b: ConditionArrayEvidence,
  max: number,
  open: boolean,
): ConditionArrayEvidence {
  return {
    path: a.path,
    declaredTypes: a.declaredTypes ?? b.declaredTypes,
    observedTypes: union(a.observedTypes, b.observedTypes, max),
    lastTransitionTime: a.lastTransitionTime || (open && b.lastTransitionTime),
    observedGeneration: a.observedGeneration || (open && b.observedGeneration),
  };
}

function mergeStrings(a: StringFieldEvidence, b: StringFieldEvidence, max: number): StringFieldEvidence {
  return {
    path: a.path,
    declaredValues: a.declaredValues ?? b.declaredValues,
    observedValues: union(a.observedValues, b.observedValues, max),
  };
}

function samePaths(list: readonly FieldPath[], path: FieldPath, maxPaths: number): readonly FieldPath[] {
  if (list.some((p) => key(p) === key(path)) || list.length >= maxPaths) return list;
  return [...list, path];
}

/**
 * Merges `more` into `base`. With `open` false, `base` is what a schema
 * declares: `more` (objects) only adds the values seen in declared fields,
 * since the API server prunes whatever the schema does not declare.
 */
export function mergeEvidence(
  base: ShapeEvidence,
  more: ShapeEvidence,
  limits: SampleLimits,
  open = true,
): ShapeEvidence {
  const known = (list: readonly { path: FieldPath }[], path: FieldPath): boolean =>
    open || list.some((e) => key(e.path) === key(path));
  let result = base;
  for (const entry of more.conditionArrays) {
    if (!known(result.conditionArrays, entry.path)) continue;
    const merged = mergeByPath(
      result.conditionArrays,
      entry,
      (a, b) => mergeConditions(a, b, limits.maxValues, open),
      limits.maxPaths,
    );
    result = { ...result, conditionArrays: merged };
  }
  for (const field of ["phaseFields", "stateFields"] as const) {
    for (const entry of more[field]) {
      if (!known(result[field], entry.path)) continue;
      result = {
        ...result,
        [field]: mergeByPath(
          result[field],
          entry,
          (a, b) => mergeStrings(a, b, limits.maxValues),
          limits.maxPaths,
        ),
      };
    }
  }
  if (open) {
    for (const path of more.generationFields) {
      result = { ...result, generationFields: samePaths(result.generationFields, path, limits.maxPaths) };
    }
    for (const path of more.completionFields) {
      result = { ...result, completionFields: samePaths(result.completionFields, path, limits.maxPaths) };
    }
    if (!result.suspendPath && more.suspendPath) result = { ...result, suspendPath: more.suspendPath };
  }
  const notes = more.notes.filter((n) => !result.notes.includes(n));
  return notes.length > 0
    ? { ...result, notes: [...result.notes, ...notes].slice(0, limits.maxPaths) }
    : result;
}

function conditionEntries(
  path: FieldPath,
  list: unknown[],
  limits: SampleLimits,
): ConditionArrayEvidence | undefined {
  const entries = list.slice(0, limits.maxValues).map(asRecord);
  const valid = entries.filter(
    (e): e is JsonRecord => typeof e?.type === "string" && typeof e.status === "string",
  );
  if (valid.length === 0 || valid.length !== entries.length) return undefined;
  return {
    path,
    declaredTypes: undefined,
    observedTypes: union(
      [],
      valid.map((e) => e.type as string),
      limits.maxValues,
    ),
    lastTransitionTime: valid.some(
      (e) => typeof e.lastTransitionTime === "string" && e.lastTransitionTime !== "",
    ),
    observedGeneration: valid.some((e) => typeof e.observedGeneration === "number"),
  };
}

/** What one object's status shows; the same rules as the schema walk. */
function objectEvidence(object: JsonRecord, limits: SampleLimits): ShapeEvidence {
  const conditionArrays: ConditionArrayEvidence[] = [];
  const generationFields: FieldPath[] = [];
  const phaseFields: StringFieldEvidence[] = [];
  const stateFields: StringFieldEvidence[] = [];
  const completionFields: FieldPath[] = [];
  const notes: string[] = [];
  const visit = (node: JsonRecord, path: FieldPath): void => {
    if (path.length > limits.maxDepth) return;
    for (const [name, value] of Object.entries(node)) {
      const at = [...path, name];
      if (Array.isArray(value)) {
        const conditions = conditionEntries(at, value, limits);
        if (conditions) conditionArrays.push(conditions);
        else if (name === "conditions" && value.length > 0) {
          notes.push(`${dotted(at)}: entries lack a string type and status, not conditions`);
        }
        continue;
      }
      if (name === "observedGeneration" && Number.isSafeInteger(value)) generationFields.push(at);
      if (typeof value === "string") {
        if (path.length === 1 && phaseLikeName(name)) {
          phaseFields.push({ path: at, declaredValues: undefined, observedValues: value ? [value] : [] });
        }
        if (path.length === 1 && completionFieldNames.includes(name)) completionFields.push(at);
        if (wellKnownStates.some((s) => dotted(s.path) === dotted(at))) {
          stateFields.push({ path: at, declaredValues: undefined, observedValues: value ? [value] : [] });
        }
      }
      const child = asRecord(value);
      if (child) visit(child, at);
    }
  };
  const status = asRecord(object.status);
  if (status) visit(status, ["status"]);
  const spec = asRecord(object.spec);
  const suspend = ["suspend", "paused"].find((name) => typeof spec?.[name] === "boolean");
  return {
    conditionArrays,
    generationFields,
    phaseFields,
    stateFields,
    completionFields,
    suspendPath: suspend ? ["spec", suspend] : undefined,
    notes,
  };
}

/** Counts one more object, unless maxSamples were already counted (then `samples` comes back unchanged). */
export function addSample(
  samples: Samples,
  object: unknown,
  limits: SampleLimits = defaultSampleLimits,
): Samples {
  const record = asRecord(object);
  if (samples.seen >= limits.maxSamples || !record) return samples;
  return {
    seen: samples.seen + 1,
    evidence: mergeEvidence(samples.evidence, objectEvidence(record, limits), limits),
  };
}

export function samplingDone(samples: Samples, limits: SampleLimits = defaultSampleLimits): boolean {
  return samples.seen >= limits.maxSamples;
}

/**
 * The decision from the schema and the objects seen so far. Where the schema
 * declares status, objects only add what it leaves open (condition types,
 * phase values); where status is open, objects supply the paths as well.
 */
export function decideWithSamples(
  detection: VersionDetection,
  samples: Samples,
  limits: SampleLimits = defaultSampleLimits,
): DetectedShape {
  const schema = detection.evidence;
  const evidence = mergeEvidence(schema, samples.evidence, limits, detection.openStatus);
  const fromSchema =
    schema.conditionArrays.length +
      schema.generationFields.length +
      schema.phaseFields.length +
      schema.stateFields.length >
    0;
  const fromSamples = samples.seen > 0 && !detection.statusUndeclared;
  const basis = fromSchema ? (fromSamples ? "schema+samples" : "schema") : fromSamples ? "samples" : "none";
  return decideShape({
    version: detection.version,
    basis,
    statusSubresource: detection.statusSubresource,
    openStatus: detection.openStatus,
    statusUndeclared: detection.statusUndeclared,
    samplingDone: samplingDone(samples, limits),
    evidence,
  });
}

/** One decision per served version of a CRD, from its schema alone (no object seen yet). */
export function detectShapes(crd: unknown): DetectedShape[] {
  return detectVersions(crd)
    .filter((v) => v.served)
    .map((v) => decideWithSamples(v, noSamples));
}
