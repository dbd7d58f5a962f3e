// A kind's detected status shape (core/detect/) and its configuration →
// how its objects are read and judged: projection paths, where the observed
// generation comes from, the readiness rules, and the labels of
// cr_exporter_resource_info that say so. What the configuration sets wins;
// what it leaves open comes from the shape; what the shape cannot tell (an
// open status not learned yet, no CRD read) falls back to the conventional
// paths, which cost nothing when absent. Pure.
import type { ResourceOptions } from "../config/schema.ts";
import { type DetectedShape, dotted, readinessOrder } from "../core/detect/shape.ts";
import type { ObservedGenerationSource } from "../core/judge/generations.ts";
import { defaultReadinessRules, type ReadinessRules, type StateRule } from "../core/judge/readiness.ts";
import { defaultProjectionSettings, type ProjectionSettings } from "../core/project/project.ts";
import type { ExportedCandidate } from "./value-candidates.ts";

/** Labels of cr_exporter_resource_info beyond group/version/kind: how the resource is read. */
export interface ResourceInfo {
  status_subresource: string;
  conditions_path: string;
  observed_generation_path: string;
  observed_generation_source: string;
  phase_path: string;
  /** The readiness condition in effect ("" when the kind has none, or its readiness expression decides). */
  ready_condition: string;
  /** config, schema, observed, pending (the provisional Ready until objects tell), none, default (no CRD read), or cel (readiness.cel decides). */
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
  /** Declared values per state field (absent: learned, up to a cap). */
  stateValues: Record<string, string[]>;
  info: ResourceInfo;
}

/** Where a kind with no shape (no CRD read) or an open status not yet learned is read. */
const conventional = {
  conditions: ["status", "conditions"],
  observedGeneration: defaultProjectionSettings.observedGenerationPath,
  phase: ["status", "phase"],
} as const;

const split = (path: string | undefined): string[] | undefined => path?.split(".");

interface StateFields {
  sources: ProjectionSettings["states"];
  rules: StateRule[];
  values: Record<string, string[]>;
}

/**
 * The state fields read and how they judge: the configured `states` (their
 * values, else the enum detected at the same path), else the well-known ones
 * detected — which decide readiness only when the kind has no conditions
 * (Argo CD's Application: health Healthy and sync Synced; Degraded fails).
 */
function stateFields(options: ResourceOptions, shape: DetectedShape | undefined): StateFields {
  const detected = shape?.states ?? [];
  if (options.states !== undefined) {
    const values: Record<string, string[]> = {};
    for (const o of options.states) {
      const known = detected.find((d) => dotted(d.path) === o.path)?.values;
      const fixed = o.values ?? (known ? [...known] : undefined);
      if (fixed) values[o.name] = fixed;
    }
    return {
      sources: options.states.map((o) => ({ name: o.name, path: o.path.split(".") })),
      rules: options.states.map((o) => ({ name: o.name, ready: o.ready, failed: o.failed })),
      values,
    };
  }
  const judges = shape?.readiness.source === "states";
  return {
    sources: detected.map((d) => ({ name: d.name, path: d.path })),
    rules: judges
      ? detected.map((d) => ({ name: d.name, ready: [d.readyValue], failed: [...d.failedValues] }))
      : [],
    values: Object.fromEntries(detected.map((d) => [d.name, [...d.values]])),
  };
}

function readiness(
  options: ResourceOptions,
  shape: DetectedShape | undefined,
  open: boolean,
): { condition: string | undefined; source: string } {
  if (options.readyCondition !== undefined) return { condition: options.readyCondition, source: "config" };
  // Configured states that gate readiness stand for a readiness condition
  // where the kind has none (else both must hold).
  const gating = options.states?.some((s) => s.ready.length > 0) ?? false;
  if (gating && (!shape || (shape.readiness.condition === undefined && !shape.readiness.pending)))
    return { condition: undefined, source: "config" };
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

/** The values read: the configured ones, then the schema's candidates exported. */
function valueSources(
  options: ResourceOptions,
  candidates: readonly ExportedCandidate[],
): ProjectionSettings["values"] {
  return [
    ...options.values.map((v) =>
      v.cel ? { name: v.name, cel: v.cel } : { name: v.name, path: v.path.split("."), kind: v.type },
    ),
    ...candidates.map((c) => ({ name: c.name, path: c.segments, kind: c.type })),
  ];
}

/**
 * `open`: the status may carry what the schema does not declare (it preserves
 * unknown fields, or no CRD was read). `candidates`: the schema's fields
 * exported as values beside the configured ones (valueCandidates: export).
 */
export function shapeSettings(
  options: ResourceOptions,
  shape: DetectedShape | undefined,
  open: boolean,
  statusSubresource: boolean,
  candidates: readonly ExportedCandidate[] = [],
): ShapeSettings {
  const projection: ProjectionSettings = {
    ...defaultProjectionSettings,
    // A declared schema without conditions has none to read (a list named
    // conditions whose entries lack a status is not one: it would be invented).
    conditionsPath:
      split(options.conditionsPath) ??
      shape?.conditions?.path ??
      (open ? conventional.conditions : undefined),
    observedGenerationPath:
      // The shape has a path only when the object carries one (source status or nested).
      split(options.observedGenerationPath) ??
      shape?.observedGeneration.path ??
      conventional.observedGeneration,
    phasePath: split(options.phasePath) ?? shape?.phase?.path ?? (open ? conventional.phase : undefined),
    heartbeatPath: split(options.heartbeatField),
    suspendPath: split(options.suspendPath) ?? shape?.suspendPath,
    suspendAnnotation: options.suspendAnnotation,
    extraLabels: options.labels.map((l) => ({ key: l.key, name: l.name, from: l.from })),
    values: valueSources(options, candidates),
    readiness: options.readiness?.cel,
    specDigest: !statusSubresource,
  };
  const source = generationSource(options, shape, open);
  const ready = readiness(options, shape, open);
  const states = stateFields(options, shape);
  projection.states = states.sources;
  const rules: ReadinessRules = {
    ...defaultReadinessRules,
    readyCondition: ready.condition,
    failedAfterSeconds: options.failedAfterSeconds,
    states: states.rules,
    phases: { runToCompletion: shape?.runToCompletion.value ?? false, overrides: options.phaseResults ?? {} },
  };
  // The conditions read are the detected ones (whose times are known) unless the configuration names others.
  const conditionsDetected =
    shape?.conditions !== undefined &&
    (options.conditionsPath === undefined || options.conditionsPath === dotted(shape.conditions.path));
  return {
    projection,
    generationSource: source,
    readiness: rules,
    phases: shape?.phase?.valuesDeclared ? [...shape.phase.values] : [],
    stateValues: states.values,
    info: {
      status_subresource: String(statusSubresource),
      conditions_path: projection.conditionsPath ? dotted(projection.conditionsPath) : "",
      observed_generation_path: source === "condition" ? "" : dotted(projection.observedGenerationPath),
      observed_generation_source: source,
      phase_path: projection.phasePath ? dotted(projection.phasePath) : "",
      // With an expression the detected condition still says where a condition-reported
      // observedGeneration is read (the lag), but it decides nothing.
      ready_condition: options.readiness ? "" : (ready.condition ?? ""),
      readiness_source: options.readiness ? "cel" : ready.source,
      run_to_completion: String(rules.phases.runToCompletion),
      condition_times: conditionsDetected
        ? shape.conditions?.lastTransitionTime
          ? "lastTransitionTime"
          : "first_seen"
        : "",
    },
  };
}
