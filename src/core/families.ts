// The per-object and aggregate metric families, in the order they are written.
// HELP/TYPE come from here so that each family has exactly one header block on
// /metrics, however many resources and objects contribute series to it.

export type FamilyType = "gauge" | "counter";

export interface FamilyDefinition {
  /** Name without the prefix, e.g. `condition`. */
  suffix: string;
  type: FamilyType;
  help: string;
}

function family(suffix: string, type: FamilyType, help: string): FamilyDefinition {
  return { suffix, type, help };
}

/** Per-object families; the index of each is its slot in an object's rendered series. */
export const objectFamilies = [
  family("condition", "gauge", "Current status of each condition, one-hot over True/False/Unknown."),
  family(
    "condition_last_transition_timestamp_seconds",
    "gauge",
    "lastTransitionTime of each condition as Unix seconds.",
  ),
  family(
    "condition_stale",
    "gauge",
    "1 when the condition's observedGeneration is below metadata.generation.",
  ),
  family("condition_reason", "gauge", "1 for the condition's current reason (bounded per kind)."),
  family("metadata_generation", "gauge", "metadata.generation of the object."),
  family("status_observed_generation", "gauge", "status.observedGeneration of the object."),
  family("generation_lag", "gauge", "metadata.generation minus status.observedGeneration, floored at 0."),
  family(
    "generation_lag_seconds",
    "gauge",
    "Seconds the current generation has waited to be observed; 0 when caught up.",
  ),
  family("phase", "gauge", "Current status.phase, one-hot over the phases known for the kind."),
  family("status", "gauge", "kstatus-like summary: Current, InProgress, Failed, Terminating or Unknown."),
  family(
    "deletion_timestamp_seconds",
    "gauge",
    "metadata.deletionTimestamp as Unix seconds while terminating.",
  ),
  family("heartbeat_age_seconds", "gauge", "Seconds since the configured heartbeat status field."),
  family(
    "status_updates_total",
    "counter",
    "Status writes that changed conditions, phase, observedGeneration or heartbeat.",
  ),
  family(
    "status_noop_updates_total",
    "counter",
    "Writes that changed the resourceVersion but nothing meaningful.",
  ),
  family("spec_generation_changes_total", "counter", "Changes of metadata.generation seen."),
  family("condition_transitions_total", "counter", "Condition status changes, by the new status."),
] as const;

export const aggregateFamilies = [
  family("aggregate_objects", "gauge", "Objects of the kind in the namespace."),
  family("aggregate_condition_objects", "gauge", "Objects whose condition type has the given status."),
  family("aggregate_phase_objects", "gauge", "Objects in each phase."),
  family("aggregate_status_objects", "gauge", "Objects by kstatus-like result."),
  family(
    "aggregate_generation_lagging_objects",
    "gauge",
    "Objects whose observedGeneration is behind their generation.",
  ),
] as const;

/** Slot numbers of the per-object families, by suffix. */
export const F = {
  condition: 0,
  conditionLastTransition: 1,
  conditionStale: 2,
  conditionReason: 3,
  generation: 4,
  observedGeneration: 5,
  generationLag: 6,
  generationLagSeconds: 7,
  phase: 8,
  status: 9,
  deletionTimestamp: 10,
  heartbeatAge: 11,
  statusUpdates: 12,
  statusNoopUpdates: 13,
  specGenerationChanges: 14,
  conditionTransitions: 15,
} as const;

export const objectFamilyCount = objectFamilies.length;
