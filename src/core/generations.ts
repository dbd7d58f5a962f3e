// Generation bookkeeping: which observed generation a kind's lag is measured
// against, and when the current generation was requested. Pure.
import type { ConditionState, ObjectState } from "./state.ts";

/**
 * Where the observed generation comes from, per resource:
 * - `status`: the observedGeneration path (declared in the CRD schema, or configured);
 * - `condition`: the ready condition's own observedGeneration (the schema has conditions but no top-level field);
 * - `status_or_condition`: the status path when the object has it, else the ready condition (schemaless status).
 */
export type ObservedGenerationSource = "status" | "condition" | "status_or_condition";

export interface GenerationSettings {
  source: ObservedGenerationSource;
  readyCondition: string;
}

export function findCondition(state: ObjectState, type: string): ConditionState | undefined {
  for (const c of state.conditions) if (c.type === type) return c;
  return undefined;
}

/** The observed generation the lag is measured against, or undefined when the object gives none. */
export function observedGenerationOf(state: ObjectState, settings: GenerationSettings): number | undefined {
  if (settings.source !== "condition" && state.observedGeneration !== undefined)
    return state.observedGeneration;
  if (settings.source === "status") return undefined;
  return findCondition(state, settings.readyCondition)?.observedGeneration;
}

/** metadata.generation − observed generation, floored at 0; undefined when either is unknown. */
export function generationLag(state: ObjectState, settings: GenerationSettings): number | undefined {
  const observed = observedGenerationOf(state, settings);
  if (state.generation === undefined || observed === undefined) return undefined;
  return Math.max(0, state.generation - observed);
}

/** What the exporter remembers about an object between changes, beyond its projected state. */
export interface ObjectMemory {
  /** The generation `requestedAt` belongs to. */
  generation: number | undefined;
  /** Epoch seconds at which that generation was requested, when known. */
  requestedAt: number | undefined;
  /** Ready=True was already seen once (time to ready is observed only for the first). */
  readySeen: boolean;
}

export const emptyMemory: ObjectMemory = { generation: undefined, requestedAt: undefined, readySeen: false };

/**
 * When the current generation was requested: the last spec write recorded in
 * managedFields (survives exporter restarts), creation for generation 1, the
 * observation time when the generation changed while watched, or — for an
 * object first seen already waiting — the first sight (a lower bound).
 * Unknown for an object first seen caught up without managedFields.
 */
export function requestTime(
  previous: ObjectMemory | undefined,
  state: ObjectState,
  lagging: boolean,
  now: number,
): number | undefined {
  if (state.generation === undefined) return undefined;
  if (state.generation === 1 && state.creationTimestamp !== undefined) return state.creationTimestamp;
  if (state.specChangedAt !== undefined) return state.specChangedAt;
  if (previous && previous.generation === state.generation)
    return previous.requestedAt ?? (lagging ? now : undefined);
  if (previous?.generation !== undefined) return now;
  return lagging ? now : undefined;
}
