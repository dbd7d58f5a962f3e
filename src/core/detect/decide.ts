// The decision (see detect.ts): from evidence, which list of conditions,
// which observedGeneration, which phase, which readiness rule, and whether the
// kind runs to completion; each with its reason in words. Deterministic: the
// same evidence gives the same choice whatever order it was found in.
import {
  type Basis,
  type ConditionArrayEvidence,
  type ConditionsChoice,
  chooseReadyCondition,
  type DetectedShape,
  dotted,
  type FieldPath,
  type GenerationChoice,
  type PhaseChoice,
  type ReadinessChoice,
  readinessOrder,
  type ShapeEvidence,
  type StateChoice,
  type StringFieldEvidence,
  wellKnownStates,
} from "./shape.ts";

/** Phase names that say a run reached its successful end. */
const completedPhases = new Set(["succeeded", "completed", "complete"]);

const samePath = (a: FieldPath, b: FieldPath): boolean =>
  a.length === b.length && a.every((s, i) => s === b[i]);

const isDeprecated = (path: FieldPath): boolean => path.some((segment) => /deprecated|legacy/i.test(segment));

type Criterion<T> = { name: string; key: (item: T) => number | string };

/** Sorts by the criteria in order; says which criterion put the first ahead of the second. */
function rank<T>(
  items: readonly T[],
  criteria: Criterion<T>[],
): { sorted: T[]; decidedBy: string | undefined } {
  const compare = (a: T, b: T): number => {
    for (const { key } of criteria) {
      const ka = key(a);
      const kb = key(b);
      if (ka !== kb) return ka < kb ? -1 : 1;
    }
    return 0;
  };
  const sorted = [...items].sort(compare);
  const [first, second] = sorted;
  if (first === undefined || second === undefined) return { sorted, decidedBy: undefined };
  const decidedBy = criteria.find(({ key }) => key(first) !== key(second))?.name;
  return { sorted, decidedBy };
}

const conditionCriteria: Criterion<ConditionArrayEvidence>[] = [
  {
    name: "status.conditions is the conventional place",
    key: (c) => (samePath(c.path, ["status", "conditions"]) ? 0 : 1),
  },
  { name: "a list named conditions", key: (c) => (c.path.at(-1) === "conditions" ? 0 : 1) },
  { name: "not under a deprecated field", key: (c) => (isDeprecated(c.path) ? 1 : 0) },
  { name: "the shallowest", key: (c) => c.path.length },
  {
    name: "entries with lastTransitionTime and observedGeneration",
    key: (c) => (c.lastTransitionTime ? 0 : 1) + (c.observedGeneration ? 0 : 1),
  },
  { name: "first by name", key: (c) => dotted(c.path) },
];

function chooseConditions(arrays: readonly ConditionArrayEvidence[]): ConditionsChoice | undefined {
  const { sorted, decidedBy } = rank(arrays, conditionCriteria);
  const [chosen, ...rest] = sorted;
  if (!chosen) return undefined;
  const others = rest.map((c) => c.path);
  const why =
    others.length === 0
      ? "the only list of conditions in status"
      : `${decidedBy}; also found: ${others.map(dotted).join(", ")}`;
  const declared = chosen.declaredTypes !== undefined;
  return {
    path: chosen.path,
    why,
    others,
    lastTransitionTime: chosen.lastTransitionTime,
    observedGeneration: chosen.observedGeneration,
    // Seen types in sorted order, so the decision reads the same whatever object came first.
    types: chosen.declaredTypes ?? [...chosen.observedTypes].sort(),
    typesDeclared: declared,
  };
}

function chooseGeneration(
  fields: readonly FieldPath[],
  conditions: ConditionsChoice | undefined,
): GenerationChoice {
  const top = fields.find((f) => samePath(f, ["status", "observedGeneration"]));
  if (top) return { source: "status", path: top, why: "status.observedGeneration" };
  if (conditions) {
    const beside = [...conditions.path.slice(0, -1), "observedGeneration"];
    const sibling = fields.find((f) => samePath(f, beside));
    if (sibling)
      return { source: "nested", path: sibling, why: `beside the conditions at ${dotted(conditions.path)}` };
  }
  const { sorted, decidedBy } = rank(fields, [
    { name: "not under a deprecated field", key: (f) => (isDeprecated(f) ? 1 : 0) },
    { name: "the shallowest", key: (f) => f.length },
    { name: "first by name", key: dotted },
  ]);
  const [nested, ...rest] = sorted;
  if (nested) {
    const why =
      rest.length === 0
        ? "the only observedGeneration in status"
        : `deeper in status; ${decidedBy}; also found: ${rest.map(dotted).join(", ")}`;
    return { source: "nested", path: nested, why };
  }
  if (conditions?.observedGeneration) {
    return { source: "conditions", path: undefined, why: "only on each condition (no object-level field)" };
  }
  return { source: "none", path: undefined, why: "no observedGeneration in status or on conditions" };
}

const phaseCriteria: Criterion<StringFieldEvidence>[] = [
  {
    name: "status.phase is the conventional place",
    key: (f) => (samePath(f.path, ["status", "phase"]) ? 0 : 1),
  },
  { name: "status.state comes next", key: (f) => (samePath(f.path, ["status", "state"]) ? 0 : 1) },
  // The dotted path ends where its last segment does.
  { name: "named like a phase or state", key: (f) => (/(phase|state)$/i.test(dotted(f.path)) ? 0 : 1) },
  { name: "first by name", key: (f) => dotted(f.path) },
];

function choosePhase(fields: readonly StringFieldEvidence[]): PhaseChoice | undefined {
  const { sorted, decidedBy } = rank(fields, phaseCriteria);
  const [chosen, ...rest] = sorted;
  if (!chosen) return undefined;
  const declared = chosen.declaredValues !== undefined;
  const kind = declared ? "a string enum" : "a string without enum";
  const why =
    rest.length === 0
      ? `${kind}, the only phase-like field`
      : `${kind}; ${decidedBy}; also found: ${rest.map((f) => dotted(f.path)).join(", ")}`;
  return {
    path: chosen.path,
    values: chosen.declaredValues ?? [...chosen.observedValues].sort(),
    valuesDeclared: declared,
    why,
  };
}

function chooseStates(fields: readonly StringFieldEvidence[]): StateChoice[] {
  return wellKnownStates.flatMap((known) => {
    const field = fields.find((f) => samePath(f.path, known.path));
    if (!field) return [];
    return [
      {
        name: known.name,
        path: known.path,
        values: field.declaredValues ?? known.values,
        readyValue: known.readyValue,
        failedValues: known.failedValues,
      },
    ];
  });
}

function chooseReadiness(
  conditions: ConditionsChoice | undefined,
  states: readonly StateChoice[],
  phase: PhaseChoice | undefined,
  samplingDone: boolean,
): ReadinessChoice {
  if (conditions) {
    const chosen = chooseReadyCondition(conditions.types);
    const source = conditions.typesDeclared ? "schema" : "observed";
    const where = conditions.typesDeclared ? "the type enum declares" : "objects carry";
    if (chosen) {
      const skipped = readinessOrder.slice(
        0,
        readinessOrder.indexOf(chosen as (typeof readinessOrder)[number]),
      );
      const without = skipped.length > 0 ? ` and not ${skipped.join(" or ")}` : "";
      return { condition: chosen, source, pending: false, why: `${where} ${chosen}${without}` };
    }
    if (!conditions.typesDeclared && conditions.types.length === 0) {
      return {
        condition: undefined,
        source: "observed",
        pending: true,
        why: `no type enum in the schema: learned from the condition types objects carry (${readinessOrder.join(", then ")})`,
      };
    }
    const fallback = phase ? "; the phase decides" : "";
    return {
      condition: undefined,
      source,
      pending: !conditions.typesDeclared && !samplingDone,
      why: `${where} none of ${readinessOrder.join(", ")} (only ${conditions.types.join(", ")})${fallback}`,
    };
  }
  if (states.length > 0) {
    const rule = states.map((s) => `${s.name} ${s.readyValue}`).join(" and ");
    return {
      condition: undefined,
      source: "states",
      pending: false,
      why: `no conditions; ready when ${rule}`,
    };
  }
  const why = phase ? `no conditions; the phase ${dotted(phase.path)} decides` : "no conditions and no phase";
  return { condition: undefined, source: "none", pending: false, why };
}

function chooseRunToCompletion(
  conditions: ConditionsChoice | undefined,
  readiness: ReadinessChoice,
  phase: PhaseChoice | undefined,
  completionFields: readonly FieldPath[],
): { value: boolean; why: string } {
  if (readiness.condition === "Succeeded")
    return { value: true, why: "its readiness condition is Succeeded" };
  if (conditions?.types.includes("Succeeded")) return { value: true, why: "it has a Succeeded condition" };
  const done = phase?.values.find((v) => completedPhases.has(v.toLowerCase()));
  if (done) return { value: true, why: `phase ${done} ends a run` };
  const [field] = completionFields;
  if (field) return { value: true, why: `${dotted(field)} records when it finished` };
  return { value: false, why: "no Succeeded condition, completed phase or completion time" };
}

export interface DecisionInput {
  version: string;
  basis: Basis;
  statusSubresource: boolean;
  /** The schema leaves status (or part of it) open: objects may carry what it does not declare. */
  openStatus: boolean;
  /** The schema has no status at all (the API server drops any status written). */
  statusUndeclared: boolean;
  /** No more samples will be taken (the learning bound was reached). */
  samplingDone: boolean;
  evidence: ShapeEvidence;
}

export function decideShape(input: DecisionInput): DetectedShape {
  const { evidence } = input;
  const conditions = chooseConditions(evidence.conditionArrays);
  const phase = choosePhase(evidence.phaseFields);
  const states = chooseStates(evidence.stateFields);
  const readiness = chooseReadiness(conditions, states, phase, input.samplingDone);
  const warnings: string[] = [];
  if (input.statusUndeclared) {
    warnings.push(
      "the schema declares no status: the API server drops any status written, nothing to read there",
    );
  }
  if (input.openStatus && !input.samplingDone) {
    warnings.push(
      "status is open (x-kubernetes-preserve-unknown-fields): paths are learned from the first objects seen",
    );
  }
  if (conditions && !conditions.lastTransitionTime) {
    warnings.push(
      `conditions at ${dotted(conditions.path)} carry no lastTransitionTime: times count from when the exporter first saw a status`,
    );
  }
  // With conditions, readiness comes from them (never from state fields).
  if (conditions && readiness.condition === undefined && !readiness.pending) {
    warnings.push(`no readiness condition: ${readiness.why}; set readyCondition to choose one`);
  }
  const useful = conditions || phase || states.length > 0 || evidence.generationFields.length > 0;
  if (!input.statusUndeclared && !useful && !(input.openStatus && !input.samplingDone)) {
    warnings.push("status has no conditions, observedGeneration, phase or known state field");
  }
  if (!input.statusSubresource && !input.statusUndeclared) {
    warnings.push("no status subresource: every status write bumps metadata.generation");
  }
  return {
    version: input.version,
    basis: input.basis,
    statusSubresource: input.statusSubresource,
    conditions,
    observedGeneration: chooseGeneration(evidence.generationFields, conditions),
    phase,
    states,
    readiness,
    runToCompletion: chooseRunToCompletion(conditions, readiness, phase, evidence.completionFields),
    suspendPath: evidence.suspendPath,
    // Objects can still tell what the schema leaves open: the whole status,
    // the condition types, or the values of a phase without enum.
    learning:
      !input.samplingDone &&
      (input.openStatus || readiness.pending || (phase !== undefined && !phase.valuesDeclared)),
    warnings,
    notes: [...evidence.notes],
  };
}
