// Generation bookkeeping: which observed generation a kind's lag is measured
// against, when a generation began by the server's clock, and when the
// current generation was requested. Pure.

import type { ObjectState } from "../state.ts";
import { findCondition } from "./readiness.ts";

/**
 * Where the observed generation comes from, per resource:
 * - `status`: the observedGeneration path (declared in the CRD schema, or configured);
 * - `condition`: the ready condition's own observedGeneration (the schema has conditions but no object-level field);
 * - `status_or_condition`: the status path when the object has it, else the ready condition (schemaless status).
 */
export type ObservedGenerationSource = "status" | "condition" | "status_or_condition";

export interface GenerationSettings {
  source: ObservedGenerationSource;
  /** The readiness condition, whose own observedGeneration stands in for the object's (undefined: none). */
  readyCondition: string | undefined;
}

/** The observed generation the lag is measured against, or undefined when the object gives none. */
export function observedGenerationOf(state: ObjectState, settings: GenerationSettings): number | undefined {
  if (settings.source !== "condition" && state.observedGeneration !== undefined)
    return state.observedGeneration;
  if (settings.source === "status" || settings.readyCondition === undefined) return undefined;
  return findCondition(state, settings.readyCondition)?.observedGeneration;
}

/** metadata.generation − observed generation, floored at 0; undefined when either is unknown. */
export function generationLag(state: ObjectState, settings: GenerationSettings): number | undefined {
  const observed = observedGenerationOf(state, settings);
  if (state.generation === undefined || observed === undefined) return undefined;
  return Math.max(0, state.generation - observed);
}

/** When a generation began by the server's clock, and which of its times says so. */
export interface GenerationStart {
  /** Epoch seconds. */
  at: number;
  source: "creation_timestamp" | "spec_change";
}

/**
 * When `generation` began: creationTimestamp for the first, the newest spec
 * write in managedFields for later ones. Server times, so a restarted exporter
 * finds the same start; undefined when the object has neither. Metrics (the
 * requested timestamp, the reconcile histogram) and spans (a generation's
 * root) both start here.
 */
export function generationStart(
  state: ObjectState,
  generation = state.generation,
): GenerationStart | undefined {
  if (generation === 1 && state.creationTimestamp !== undefined)
    return { at: state.creationTimestamp, source: "creation_timestamp" };
  if (state.specChangedAt !== undefined) return { at: state.specChangedAt, source: "spec_change" };
  return undefined;
}

/** What the exporter remembers about an object between changes, beyond its projected state. */
export interface ObjectMemory {
  /** The generation `requestedAt` belongs to. */
  generation: number | undefined;
  /** Epoch seconds at which that generation was requested, when known. */
  requestedAt: number | undefined;
  /** The ready condition was already seen in its desired status once (time to ready is observed only for the first). */
  readySeen: boolean;
  /**
   * The latest generation seen reconciled (readiness.ts isReconciled), first
   * sight included: its reconcile duration is observed once.
   */
  reconciledGeneration: number | undefined;
}

/**
 * When the current generation was requested: its start by the server's clock
 * (generationStart), else the observation time when the generation changed
 * while watched, or — for an object first seen already waiting — the first
 * sight (a lower bound). Unknown for an object first seen caught up without
 * managedFields.
 */
export function requestTime(
  previous: ObjectMemory | undefined,
  state: ObjectState,
  lagging: boolean,
  now: number,
): number | undefined {
  if (state.generation === undefined) return undefined;
  const start = generationStart(state);
  if (start) return start.at;
  if (previous && previous.generation === state.generation)
    return previous.requestedAt ?? (lagging ? now : undefined);
  if (previous?.generation !== undefined) return now;
  return lagging ? now : undefined;
}
