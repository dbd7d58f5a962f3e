// Where a kind keeps its status facts, decided from evidence: condition
// arrays, observedGeneration fields, phase-like strings, well-known state
// fields, completion times and a suspend switch. The evidence comes from a
// CRD version's OpenAPI schema (schema.ts), from sample objects
// (learn.ts), or both; the decision (decide.ts) is the same for all, so
// a schemaless kind and a fully described one are judged by the same rules.
// Every choice carries a `why` in words, for the start-up log and `explain`.

export type FieldPath = readonly string[];

/** An array of objects with string `type` and `status`: a list of conditions. */
export interface ConditionArrayEvidence {
  path: FieldPath;
  /** The enum of the entries' `type`, when the schema declares one. */
  declaredTypes: readonly string[] | undefined;
  /** Condition types seen in objects (bounded). */
  observedTypes: readonly string[];
  /** Entries carry lastTransitionTime (declared in the schema, or seen). */
  lastTransitionTime: boolean;
  /** Entries carry their own observedGeneration. */
  observedGeneration: boolean;
}

/** A string field: a phase-like one, or a well-known state field. */
export interface StringFieldEvidence {
  path: FieldPath;
  declaredValues: readonly string[] | undefined;
  /** Values seen in objects (bounded). */
  observedValues: readonly string[];
}

export interface ShapeEvidence {
  conditionArrays: readonly ConditionArrayEvidence[];
  /** Integer fields named observedGeneration outside lists. */
  generationFields: readonly FieldPath[];
  phaseFields: readonly StringFieldEvidence[];
  /** Well-known state fields present (see wellKnownStates). */
  stateFields: readonly StringFieldEvidence[];
  /** Direct children of status that record when a run finished. */
  completionFields: readonly FieldPath[];
  /** spec.suspend (or spec.paused) as a boolean. */
  suspendPath: FieldPath | undefined;
  /** What was looked at and set aside, in words. */
  notes: readonly string[];
}

export const emptyEvidence: ShapeEvidence = {
  conditionArrays: [],
  generationFields: [],
  phaseFields: [],
  stateFields: [],
  completionFields: [],
  suspendPath: undefined,
  notes: [],
};

/** The readiness conditions tried in order: the common one, the one of run-to-completion kinds, the one of workloads. */
export const readinessOrder = ["Ready", "Succeeded", "Available"] as const;

/**
 * Status fields whose meaning is settled by a widely used convention (Argo
 * CD's Application): a `status` string inside `status.health` and
 * `status.sync`. Values are the documented ones; an enum in the schema wins.
 */
export const wellKnownStates = [
  {
    name: "health",
    path: ["status", "health", "status"],
    values: ["Healthy", "Progressing", "Degraded", "Suspended", "Missing", "Unknown"],
    readyValue: "Healthy",
    failedValues: ["Degraded"],
  },
  {
    name: "sync",
    path: ["status", "sync", "status"],
    values: ["Synced", "OutOfSync", "Unknown"],
    readyValue: "Synced",
    // OutOfSync is a change not yet applied: progress, however long it lasts.
    failedValues: [],
  },
] as const;

/** Status fields (direct children of status) that only a run-to-completion kind has. */
export const completionFieldNames = [
  "completionTime",
  "completionTimestamp",
  "completedAt",
  "finishedAt",
  "finishTime",
  "stoppedAt",
];

export type Basis = "schema" | "samples" | "schema+samples" | "none";

export interface ConditionsChoice {
  path: FieldPath;
  why: string;
  /** Other condition arrays found and not used. */
  others: FieldPath[];
  lastTransitionTime: boolean;
  observedGeneration: boolean;
  /** Declared enum of types, else the types seen so far. */
  types: readonly string[];
  typesDeclared: boolean;
}

export interface GenerationChoice {
  /** status: status.observedGeneration; nested: deeper in status; conditions: only per condition. */
  source: "status" | "nested" | "conditions" | "none";
  path: FieldPath | undefined;
  why: string;
}

export interface PhaseChoice {
  path: FieldPath;
  /** The declared enum, else the values seen so far (bounded). */
  values: readonly string[];
  valuesDeclared: boolean;
  why: string;
}

export interface StateChoice {
  name: string;
  path: FieldPath;
  values: readonly string[];
  readyValue: string;
  /** Values that are a failure once held for failedAfter. */
  failedValues: readonly string[];
}

export interface ReadinessChoice {
  /** The condition that means healthy; undefined when none is (yet) known. */
  condition: string | undefined;
  /** schema: the type enum; observed: types seen in objects; states: well-known state fields; none. */
  source: "schema" | "observed" | "states" | "none";
  /** More samples may still change the choice. */
  pending: boolean;
  why: string;
}

export interface DetectedShape {
  version: string;
  basis: Basis;
  statusSubresource: boolean;
  conditions: ConditionsChoice | undefined;
  observedGeneration: GenerationChoice;
  phase: PhaseChoice | undefined;
  states: StateChoice[];
  readiness: ReadinessChoice;
  runToCompletion: { value: boolean; why: string };
  suspendPath: FieldPath | undefined;
  /** The decisions depend on objects: feed samples (detect-samples.ts) and decide again. */
  learning: boolean;
  warnings: string[];
  notes: string[];
}

export const dotted = (path: FieldPath): string => path.join(".");

/** A string field named phase or state (or ending so, like deploymentPhase). */
export const phaseLikeName = (name: string): boolean =>
  /^(phase|state)$/i.test(name) || /(Phase|State)$/.test(name);

/** The first of Ready, Succeeded, Available among `types`. */
export function chooseReadyCondition(types: Iterable<string>): string | undefined {
  const present = new Set(types);
  return readinessOrder.find((type) => present.has(type));
}
