// A kind's detected status shape (core/detect*.ts) and its configuration →
// how its objects are read and judged: projection paths, where the observed
// generation comes from, the readiness rules, and the labels of
// cr_exporter_resource_info that say so. What the configuration sets wins;
// what it leaves open comes from the shape; what the shape cannot tell (an
// open status not learned yet, no CRD read) falls back to the conventional
// paths, which cost nothing when absent. Pure.
import type { ResourceOptions } from "../config/schema.ts";
import { type DetectedShape, dotted, readinessOrder } from "../core/detect.ts";
import type { ObservedGenerationSource } from "../core/generations.ts";
import { defaultProjectionSettings, type ProjectionSettings } from "../core/project.ts";
import { defaultReadinessRules, type ReadinessRules } from "../core/readiness.ts";

/** Labels of cr_exporter_resource_info beyond group/version/kind: how the resource is read. */
export interface ResourceInfo {
  status_subresource: string;
  conditions_path: string;
  observed_generation_path: string;
  observed_generation_source: string;
  phase_path: string;
  /** The readiness condition in effect ("" when the kind has none). */
  ready_condition: string;
  /** config, schema, observed, pending (the provisional Ready until objects tell), none, or default (no CRD read). */
  readiness_source: string;
  run_to_completion: string;
  /** lastTransitionTime, first_seen (the conditions carry none), or "" (unknown). */
  condition_times: string;
}

/** What a kind's shape and options decide. */
export interface ShapeSettings {
  projection: ProjectionSettings;
  generationSource: ObservedGenerationSource;
  readiness: ReadinessRules;
  /** The declared phase enum (empty: phases are learned, up to a cap). */
  phases: string[];
  info: ResourceInfo;
}

/** Where a kind with no shape (no CRD read) or an open status not yet learned is read. */
const conventional = {
  conditions: ["status", "conditions"],
  observedGeneration: defaultProjectionSettings.observedGenerationPath,
  phase: ["status", "phase"],
} as const;

const split = (path: string | undefined): string[] | undefined => path?.split(".");

function readiness(
  options: ResourceOptions,
  shape: DetectedShape | undefined,
  open: boolean,
): { condition: string | undefined; source: string } {
  if (options.readyCondition !== undefined) return { condition: options.readyCondition, source: "config" };
  if (!shape) return { condition: readinessOrder[0], source: "default" };
  if (shape.readiness.condition !== undefined)
    return { condition: shape.readiness.condition, source: shape.readiness.source };
  // Until objects tell (the condition types, or for an open status whether
  // there are conditions at all), the first of the order stands in.
  if (shape.readiness.pending || (open && shape.learning))
    return { condition: readinessOrder[0], source: "pending" };
  return { condition: undefined, source: shape.readiness.source };
}

function generationSource(
  options: ResourceOptions,
  shape: DetectedShape | undefined,
  open: boolean,
): ObservedGenerationSource {
  if (options.observedGenerationPath !== undefined) return "status";
  const found = shape?.observedGeneration.source;
  if (found === "status" || found === "nested") return "status";
  if (found === "conditions") return "condition";
  // No field found: a declared schema has none (the conditions may carry it);
  // an open status may still have one.
  return open ? "status_or_condition" : "condition";
}

/**
 * `open`: the status may carry what the schema does not declare (it preserves
 * unknown fields, or no CRD was read).
 */
export function shapeSettings(
  options: ResourceOptions,
  shape: DetectedShape | undefined,
  open: boolean,
  statusSubresource: boolean,
): ShapeSettings {
  const detectedGeneration =
    shape?.observedGeneration.source === "status" || shape?.observedGeneration.source === "nested"
      ? shape.observedGeneration.path
      : undefined;
  const projection: ProjectionSettings = {
    ...defaultProjectionSettings,
    // A declared schema without conditions has none to read (a list named
    // conditions whose entries lack a status is not one: it would be invented).
    conditionsPath:
      split(options.conditionsPath) ??
      shape?.conditions?.path ??
      (open ? conventional.conditions : undefined),
    observedGenerationPath:
      split(options.observedGenerationPath) ?? detectedGeneration ?? conventional.observedGeneration,
    phasePath: split(options.phasePath) ?? shape?.phase?.path ?? (open ? conventional.phase : undefined),
    heartbeatPath: split(options.heartbeatField),
    extraLabels: options.labels.map((l) => ({ key: l.key, name: l.name, from: l.from })),
    specDigest: !statusSubresource,
  };
  const source = generationSource(options, shape, open);
  const ready = readiness(options, shape, open);
  const rules: ReadinessRules = {
    ...defaultReadinessRules,
    readyCondition: ready.condition,
    failedAfterSeconds: options.failedAfterSeconds,
    phases: { runToCompletion: shape?.runToCompletion.value ?? false, overrides: options.phaseResults ?? {} },
  };
  const conditionsDetected =
    shape?.conditions !== undefined &&
    dotted(shape.conditions.path) === dotted(projection.conditionsPath ?? []);
  return {
    projection,
    generationSource: source,
    readiness: rules,
    phases: shape?.phase?.valuesDeclared ? [...shape.phase.values] : [],
    info: {
      status_subresource: String(statusSubresource),
      conditions_path: projection.conditionsPath ? dotted(projection.conditionsPath) : "",
      observed_generation_path: source === "condition" ? "" : dotted(projection.observedGenerationPath),
      observed_generation_source: source,
      phase_path: projection.phasePath ? dotted(projection.phasePath) : "",
      ready_condition: ready.condition ?? "",
      readiness_source: ready.source,
      run_to_completion: String(rules.phases.runToCompletion),
      condition_times: conditionsDetected
        ? shape.conditions?.lastTransitionTime
          ? "lastTransitionTime"
          : "first_seen"
        : "",
    },
  };
}
