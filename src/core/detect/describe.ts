// A DetectedShape in two flat forms: fields for the start-up log line (with
// the reasons) and labels for a per-resource info series (values only, each
// bounded by the schema, so one series per kind and version).
import { type DetectedShape, dotted } from "./shape.ts";

export type ShapeLogFields = Record<string, string | boolean | string[]>;

function readinessRule(shape: DetectedShape): string {
  const { readiness } = shape;
  if (readiness.condition) return readiness.condition;
  if (readiness.source === "states") return shape.states.map((s) => `${s.name}=${s.readyValue}`).join(",");
  return "";
}

function generationField(shape: DetectedShape): string {
  const { observedGeneration, conditions } = shape;
  if (observedGeneration.path) return dotted(observedGeneration.path);
  // Source "conditions" is only chosen with conditions.
  return observedGeneration.source === "conditions" && conditions
    ? `${dotted(conditions.path)}[].observedGeneration`
    : "";
}

/** Labels for an info series: what was detected, no reasons (they are in the log). */
export function shapeInfoLabels(shape: DetectedShape): Record<string, string> {
  return {
    version: shape.version,
    basis: shape.basis,
    conditions_path: shape.conditions ? dotted(shape.conditions.path) : "",
    observed_generation_path: generationField(shape),
    phase_path: shape.phase ? dotted(shape.phase.path) : "",
    state_paths: shape.states.map((s) => dotted(s.path)).join(","),
    ready_condition: readinessRule(shape),
    readiness_source: shape.readiness.pending ? "pending" : shape.readiness.source,
    run_to_completion: String(shape.runToCompletion.value),
    condition_times: shape.conditions
      ? shape.conditions.lastTransitionTime
        ? "lastTransitionTime"
        : "first_seen"
      : "",
    suspend_path: shape.suspendPath ? dotted(shape.suspendPath) : "",
  };
}

/** Fields for the start-up log line: the labels above and why each was chosen. */
export function shapeLogFields(shape: DetectedShape): ShapeLogFields {
  const fields: ShapeLogFields = { ...shapeInfoLabels(shape) };
  if (shape.conditions) fields.conditionsWhy = shape.conditions.why;
  fields.observedGenerationWhy = shape.observedGeneration.why;
  if (shape.phase) fields.phaseWhy = shape.phase.why;
  fields.readinessWhy = shape.readiness.why;
  fields.runToCompletionWhy = shape.runToCompletion.why;
  fields.learning = shape.learning;
  if (shape.warnings.length > 0) fields.warnings = shape.warnings;
  if (shape.notes.length > 0) fields.notes = shape.notes;
  return fields;
}
