// The per-kind part of the metric family catalog (see catalog.ts): the
// aggregate-mode families and the histograms and counters per kind that
// object changes feed (the exporter's own families: catalog-exporter.ts).
import type { FamilyType } from "./catalog-objects.ts";

interface KindFamilySpec {
  suffix: string;
  type: FamilyType;
  help: string;
  /** All labels (these families carry no object labels). */
  labels: readonly string[];
  defaultSet: boolean;
  /** Series per kind (or per namespace of a kind), for the docs. */
  cost: string;
}

const aggregateSpecs = {
  aggregateObjects: {
    suffix: "aggregate_objects",
    type: "gauge",
    help: "Objects of the kind in the namespace.",
    labels: ["group", "kind", "namespace"],
    defaultSet: true,
    cost: "1 per namespace",
  },
  aggregateConditions: {
    suffix: "aggregate_condition_objects",
    type: "gauge",
    help: "Objects whose condition type has the given status.",
    labels: ["group", "kind", "namespace", "type", "status"],
    defaultSet: true,
    cost: "≤ 3 per condition type per namespace",
  },
  aggregatePhases: {
    suffix: "aggregate_phase_objects",
    type: "gauge",
    help: "Objects in each phase.",
    labels: ["group", "kind", "namespace", "phase"],
    defaultSet: true,
    cost: "1 per phase per namespace",
  },
  aggregateStatuses: {
    suffix: "aggregate_status_objects",
    type: "gauge",
    help: "Objects by kstatus-like result.",
    labels: ["group", "kind", "namespace", "result"],
    defaultSet: true,
    cost: "≤ 5 per namespace",
  },
  aggregateLagging: {
    suffix: "aggregate_generation_lagging_objects",
    type: "gauge",
    help: "Objects whose observed generation is behind their generation.",
    labels: ["group", "kind", "namespace"],
    defaultSet: true,
    cost: "1 per namespace",
  },
  // Appended, not inserted: a family's index is its bit in the selection.
  aggregateStates: {
    suffix: "aggregate_state_objects",
    type: "gauge",
    help: "Objects whose state field holds the value (values bounded per field as in cr_state).",
    labels: ["group", "kind", "namespace", "field", "value"],
    defaultSet: true,
    cost: "1 per value held per state field per namespace",
  },
  aggregateSuspended: {
    suffix: "aggregate_suspended_objects",
    type: "gauge",
    help: "Objects whose reconciliation is suspended (spec.suspend, spec.paused or a configured switch).",
    labels: ["group", "kind", "namespace"],
    defaultSet: true,
    cost: "1 per namespace with suspended objects",
  },
} as const satisfies Record<string, KindFamilySpec>;

export type AggregateFamilyKey = keyof typeof aggregateSpecs;
export interface AggregateFamily extends KindFamilySpec {
  key: AggregateFamilyKey;
  index: number;
}
export const aggregateFamilies: readonly AggregateFamily[] = Object.entries(aggregateSpecs).map(
  ([key, spec], index) => ({ ...(spec as KindFamilySpec), key: key as AggregateFamilyKey, index }),
);

/** Per-kind histograms and counters fed by object changes: selectable per resource like the per-object families. */
const perKindSpecs = {
  conditionStateDuration: {
    suffix: "condition_state_duration_seconds",
    type: "histogram",
    help: "How long a condition held a status before it changed (status = the one it left).",
    labels: ["group", "kind", "type", "status"],
    defaultSet: true,
    cost: "16 per condition type and status left",
  },
  reconcileDuration: {
    suffix: "reconcile_duration_seconds",
    type: "histogram",
    help: "From a spec generation bump to the observed generation caught up with Ready=True.",
    labels: ["group", "kind"],
    defaultSet: true,
    cost: "16 per kind",
  },
  timeToReady: {
    suffix: "time_to_ready_seconds",
    type: "histogram",
    help: "From creation to the first Ready=True.",
    labels: ["group", "kind"],
    defaultSet: true,
    cost: "16 per kind",
  },
  phaseIllegalTransitions: {
    suffix: "phase_illegal_transitions_total",
    type: "counter",
    help: "Phase changes that the configured phaseTransitions table does not allow.",
    labels: ["group", "kind", "namespace", "from", "to"],
    defaultSet: true,
    cost: "1 per namespace and illegal move seen",
  },
  warningEvents: {
    suffix: "warning_events_total",
    type: "counter",
    help: "Occurrences of Kubernetes Warning events about objects of the kind since the exporter started, by reason (the first warningEvents.maxReasons reasons per kind, then other).",
    labels: ["group", "kind", "namespace", "reason"],
    defaultSet: true,
    cost: "≤ maxReasons + 1 per namespace with warnings",
  },
} as const satisfies Record<string, KindFamilySpec>;

export type PerKindFamilyKey = keyof typeof perKindSpecs;
export interface PerKindFamily extends KindFamilySpec {
  key: PerKindFamilyKey;
  index: number;
}
export const perKindFamilies: readonly PerKindFamily[] = Object.entries(perKindSpecs).map(
  ([key, spec], index) => ({ ...(spec as KindFamilySpec), key: key as PerKindFamilyKey, index }),
);
