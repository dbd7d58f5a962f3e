// A CRD version's openAPIV3Schema → ShapeEvidence (see detect.ts): what the
// schema declares under status. Lists are not entered (a list of conditions
// inside each entry of another list describes the entries, not the object),
// nor are maps (additionalProperties); the walk is bounded in depth and size,
// since some CRDs embed schemas of tens of thousands of nodes.

import { asRecord, type JsonRecord } from "../json-record.ts";
import {
  type ConditionArrayEvidence,
  completionFieldNames,
  dotted,
  emptyEvidence,
  type FieldPath,
  phaseLikeName,
  type ShapeEvidence,
  type StringFieldEvidence,
  wellKnownStates,
} from "./shape.ts";

const maxDepth = 8;
const maxNodes = 5000;

function stringEnum(schema: JsonRecord | undefined): string[] | undefined {
  const values = schema?.enum;
  if (!Array.isArray(values)) return undefined;
  const strings = values.filter((v): v is string => typeof v === "string");
  return strings.length > 0 ? strings : undefined;
}

const isString = (schema: JsonRecord | undefined): boolean => schema?.type === "string";
const preserves = (schema: JsonRecord | undefined): boolean =>
  schema?.["x-kubernetes-preserve-unknown-fields"] === true;

/** Words that name a lifecycle step; an enum with one of them (besides Unknown) reads as a phase. */
const phaseWords = new Set(
  [
    "Pending",
    "Running",
    "InProgress",
    "Succeeded",
    "Completed",
    "Complete",
    "Failed",
    "Error",
    "Ready",
    "Available",
    "Provisioning",
    "Provisioned",
    "Deleting",
    "Terminating",
    "Healthy",
    "Degraded",
  ].map((w) => w.toLowerCase()),
);

function phaseLike(name: string, schema: JsonRecord): boolean {
  if (!isString(schema)) return false;
  if (phaseLikeName(name)) return true;
  return stringEnum(schema)?.some((value) => phaseWords.has(value.toLowerCase())) ?? false;
}

/** A numeric or date-time field the schema declares: a candidate for `values` (cr_value). */
export interface ValueField {
  path: FieldPath;
  type: "number" | "timestamp";
}

/** Candidates kept per version: enough to choose from, bounded for CRDs with huge schemas. */
export const maxValueFields = 20;

interface Collected {
  valueFields: ValueField[];
  conditionArrays: ConditionArrayEvidence[];
  generationFields: FieldPath[];
  phaseFields: StringFieldEvidence[];
  stateFields: StringFieldEvidence[];
  completionFields: FieldPath[];
  notes: string[];
  nodes: number;
}

function conditionItems(path: FieldPath, items: JsonRecord | undefined): ConditionArrayEvidence | undefined {
  const props = asRecord(items?.properties);
  if (!isString(asRecord(props?.type)) || !isString(asRecord(props?.status))) return undefined;
  return {
    path,
    declaredTypes: stringEnum(asRecord(props?.type)),
    observedTypes: [],
    lastTransitionTime: asRecord(props?.lastTransitionTime) !== undefined,
    observedGeneration: asRecord(props?.observedGeneration) !== undefined,
  };
}

function visit(schema: JsonRecord, path: FieldPath, out: Collected): void {
  if (path.length > maxDepth) return;
  for (const [name, raw] of Object.entries(asRecord(schema.properties) ?? {})) {
    const child = asRecord(raw);
    if (!child) continue;
    if (++out.nodes > maxNodes) {
      // Said once: each level still on the stack counts one more on its way out.
      if (out.nodes === maxNodes + 1)
        out.notes.push(`schema walk stopped after ${maxNodes} fields under status`);
      return;
    }
    const at = [...path, name];
    if (child.type === "array") {
      const conditions = conditionItems(at, asRecord(child.items));
      if (conditions) out.conditionArrays.push(conditions);
      else if (name === "conditions")
        out.notes.push(`${dotted(at)}: entries lack a string type and status, not conditions`);
      continue;
    }
    const numeric = child.type === "integer" || child.type === "number";
    if (name === "observedGeneration" && numeric) {
      out.generationFields.push(at);
    } else if (
      out.valueFields.length < maxValueFields &&
      (numeric || (isString(child) && child.format === "date-time"))
    ) {
      out.valueFields.push({ path: at, type: numeric ? "number" : "timestamp" });
    }
    if (path.length === 1 && phaseLike(name, child)) {
      out.phaseFields.push({ path: at, declaredValues: stringEnum(child), observedValues: [] });
    }
    if (path.length === 1 && completionFieldNames.includes(name)) out.completionFields.push(at);
    if (isString(child) && wellKnownStates.some((s) => dotted(s.path) === dotted(at))) {
      out.stateFields.push({ path: at, declaredValues: stringEnum(child), observedValues: [] });
    }
    visit(child, at, out);
  }
}

/** spec.suspend, else spec.paused, when the schema declares it as a boolean. */
function suspendField(root: JsonRecord | undefined): FieldPath | undefined {
  const spec = asRecord(asRecord(root?.properties)?.spec);
  for (const name of ["suspend", "paused"]) {
    if (asRecord(asRecord(spec?.properties)?.[name])?.type === "boolean") return ["spec", name];
  }
  return undefined;
}

/** What one CRD version's schema says about its status. */
export interface VersionDetection {
  version: string;
  served: boolean;
  storage: boolean;
  statusSubresource: boolean;
  /** status preserves unknown fields: objects may carry what the schema does not declare. */
  openStatus: boolean;
  /** No status fields are declared and none are preserved: the API server prunes any status. */
  statusUndeclared: boolean;
  evidence: ShapeEvidence;
  /** Numeric and date-time fields under status, outside lists (at most maxValueFields), in schema order. */
  valueFields: readonly ValueField[];
}

export function detectVersion(raw: unknown): VersionDetection | undefined {
  const version = asRecord(raw);
  const name = version?.name;
  if (typeof name !== "string") return undefined;
  const root = asRecord(asRecord(version?.schema)?.openAPIV3Schema);
  const status = asRecord(asRecord(root?.properties)?.status);
  const openStatus = preserves(status) || (status === undefined && (root === undefined || preserves(root)));
  const out: Collected = {
    valueFields: [],
    conditionArrays: [],
    generationFields: [],
    phaseFields: [],
    stateFields: [],
    completionFields: [],
    notes: [],
    nodes: 0,
  };
  if (status) visit(status, ["status"], out);
  const { nodes: _, valueFields, ...collected } = out;
  return {
    version: name,
    served: version?.served === true,
    storage: version?.storage === true,
    statusSubresource: asRecord(asRecord(version?.subresources)?.status) !== undefined,
    openStatus,
    statusUndeclared: !openStatus && asRecord(status?.properties) === undefined,
    evidence: { ...emptyEvidence, ...collected, suspendPath: suspendField(root) },
    valueFields,
  };
}

/** Every version of a CRD object as the API returns it (unusable entries are skipped). */
export function detectVersions(crd: unknown): VersionDetection[] {
  const versions = asRecord(asRecord(crd)?.spec)?.versions;
  if (!Array.isArray(versions)) return [];
  return versions.map(detectVersion).filter((v): v is VersionDetection => v !== undefined);
}
