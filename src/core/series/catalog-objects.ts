// The per-object part of the metric family catalog (see catalog.ts): each
// family's type, help, labels, the projected inputs it is rendered from,
// whether it is in the default set, and what it costs per object. Slots and
// input masks are derived from the table's order.

export type FamilyType = "gauge" | "counter" | "histogram";

/** What a per-object family is rendered from; a change of one re-renders exactly the families that declare it. */
export const inputs = [
  "identity",
  "conditionStatus",
  "conditionTime",
  "conditionReason",
  "conditionGeneration",
  "generation",
  "observedGeneration",
  "lag",
  "requestedAt",
  "phase",
  "states",
  "values",
  "summary",
  "deletion",
  "suspended",
  "heartbeat",
  "statusWrites",
  "noopWrites",
  "generationChanges",
  "conditionTransitions",
  "warnings",
] as const;
export type Input = (typeof inputs)[number];

export function inputMask(list: readonly Input[]): number {
  let mask = 0;
  for (const input of list) mask |= 1 << inputs.indexOf(input);
  return mask;
}

/** What the series count of one object depends on (for the cost formulas). */
export interface ObjectShape {
  conditions: number;
  conditionsWithReason: number;
  /** Conditions carrying observedGeneration on an object that has metadata.generation. */
  conditionsWithGeneration: number;
  generation: boolean;
  statusObservedGeneration: boolean;
  /** An observed generation is known (status, else the ready condition) and so is metadata.generation. */
  lagKnown: boolean;
  requestedAtKnown: boolean;
  phase: boolean;
  /** Configured state fields set on the object. */
  states: number;
  /** Configured values set on the object and read as numbers. */
  values: number;
  terminating: boolean;
  suspended: boolean;
  heartbeat: boolean;
  /** Warning reasons counted for the object (bounded per kind). */
  warningReasons: number;
}

interface FamilySpec {
  /** Name without the prefix. */
  suffix: string;
  type: FamilyType;
  help: string;
  /** Labels beyond the object labels (group, kind, namespace, name, configured extras). */
  labels: readonly string[];
  inputs: readonly Input[];
  /** Exported unless the configuration says otherwise. */
  defaultSet: boolean;
  /**
   * Its lines carry only labels and a small value (1, or 0 and 1), so objects
   * in the same state render the same text: the collector keeps one copy per
   * resource (src/collectors/shared-texts.ts). False where every object's
   * text differs (timestamps, generations, counters).
   */
  sharedText: boolean;
  /** Series per object: the formula as documented, and as a function of the object's shape. */
  cost: { formula: string; series: (shape: ObjectShape) => number };
}

const one = (when: boolean): number => (when ? 1 : 0);

const objectFamilySpecs = {
  condition: {
    suffix: "condition",
    type: "gauge",
    help: "1 for each condition, labelled with its current status (True, False or Unknown).",
    labels: ["type", "status"],
    inputs: ["conditionStatus"],
    defaultSet: true,
    sharedText: true,
    cost: { formula: "1 per condition", series: (s) => s.conditions },
  },
  conditionLastTransition: {
    suffix: "condition_last_transition_timestamp_seconds",
    type: "gauge",
    help: "lastTransitionTime of each condition as Unix seconds (without one: when the exporter first saw its status).",
    labels: ["type"],
    inputs: ["conditionTime"],
    defaultSet: true,
    sharedText: false,
    cost: { formula: "1 per condition", series: (s) => s.conditions },
  },
  conditionReason: {
    suffix: "condition_reason",
    type: "gauge",
    help: "1 for each condition's current reason (at most maxReasons per kind, then other).",
    labels: ["type", "reason"],
    inputs: ["conditionReason"],
    defaultSet: true,
    sharedText: true,
    cost: { formula: "1 per condition with a reason", series: (s) => s.conditionsWithReason },
  },
  conditionStale: {
    suffix: "condition_stale",
    type: "gauge",
    help: "1 when the condition's observedGeneration is below metadata.generation.",
    labels: ["type"],
    inputs: ["conditionGeneration", "generation"],
    defaultSet: false,
    sharedText: true,
    cost: {
      formula: "1 per condition with observedGeneration",
      series: (s) => s.conditionsWithGeneration,
    },
  },
  generation: {
    suffix: "metadata_generation",
    type: "gauge",
    help: "metadata.generation of the object.",
    labels: [],
    inputs: ["generation"],
    defaultSet: true,
    sharedText: false,
    cost: { formula: "1", series: (s) => one(s.generation) },
  },
  observedGeneration: {
    suffix: "status_observed_generation",
    type: "gauge",
    help: "status.observedGeneration of the object.",
    labels: [],
    inputs: ["observedGeneration"],
    defaultSet: true,
    sharedText: false,
    cost: { formula: "1 when status has it", series: (s) => one(s.statusObservedGeneration) },
  },
  generationLag: {
    suffix: "generation_lag",
    type: "gauge",
    help: "metadata.generation minus the observed generation (status, else the ready condition), floored at 0.",
    labels: [],
    inputs: ["lag"],
    defaultSet: true,
    sharedText: false,
    cost: { formula: "1 when an observed generation is known", series: (s) => one(s.lagKnown) },
  },
  generationRequested: {
    suffix: "generation_requested_timestamp_seconds",
    type: "gauge",
    help: "When the current metadata.generation was requested, as Unix seconds.",
    labels: [],
    inputs: ["requestedAt"],
    defaultSet: true,
    sharedText: false,
    cost: { formula: "1 when known", series: (s) => one(s.requestedAtKnown) },
  },
  phase: {
    suffix: "phase",
    type: "gauge",
    help: "1, labelled with the current status.phase (bounded per kind).",
    labels: ["phase"],
    inputs: ["phase"],
    defaultSet: true,
    sharedText: true,
    cost: { formula: "1 when status.phase is set", series: (s) => one(s.phase) },
  },
  state: {
    suffix: "state",
    type: "gauge",
    help: "1 for each configured state field (states, e.g. Argo CD health and sync), labelled with its current value (bounded per field).",
    labels: ["field", "value"],
    inputs: ["states"],
    defaultSet: true,
    sharedText: true,
    cost: { formula: "1 per state field set", series: (s) => s.states },
  },
  value: {
    suffix: "value",
    type: "gauge",
    help: "Each configured numeric field (values, or the CRD schema's candidates with valueCandidates: export: replicas, instances, expiry times), as a number: quantities scaled, booleans 1 or 0, RFC 3339 timestamps as Unix seconds.",
    labels: ["field"],
    inputs: ["values"],
    defaultSet: true,
    sharedText: false,
    cost: { formula: "1 per value or exported candidate set", series: (s) => s.values },
  },
  status: {
    suffix: "status",
    type: "gauge",
    help: "1, labelled with the kstatus-like summary: Current, InProgress, Failed, Terminating or Unknown.",
    labels: ["result"],
    inputs: ["summary"],
    defaultSet: true,
    sharedText: true,
    cost: { formula: "1", series: () => 1 },
  },
  deletion: {
    suffix: "deletion_timestamp_seconds",
    type: "gauge",
    help: "metadata.deletionTimestamp as Unix seconds while terminating.",
    labels: [],
    inputs: ["deletion"],
    defaultSet: true,
    sharedText: false,
    cost: { formula: "1 while terminating", series: (s) => one(s.terminating) },
  },
  suspended: {
    suffix: "suspended",
    type: "gauge",
    help: "1 while the object is suspended (spec.suspend, spec.paused or the configured equivalent).",
    labels: [],
    inputs: ["suspended"],
    defaultSet: true,
    sharedText: true,
    cost: { formula: "1 while suspended", series: (s) => one(s.suspended) },
  },
  heartbeat: {
    suffix: "heartbeat_timestamp_seconds",
    type: "gauge",
    help: "The configured heartbeat status field as Unix seconds.",
    labels: [],
    inputs: ["heartbeat"],
    defaultSet: true,
    sharedText: false,
    cost: { formula: "1 with heartbeatField", series: (s) => one(s.heartbeat) },
  },
  statusUpdates: {
    suffix: "status_updates_total",
    type: "counter",
    help: "Status writes that changed the status (volatile timestamps such as heartbeats aside).",
    labels: [],
    inputs: ["statusWrites"],
    defaultSet: true,
    sharedText: false,
    cost: { formula: "1", series: () => 1 },
  },
  noopUpdates: {
    suffix: "status_noop_updates_total",
    type: "counter",
    help: "Status writes that changed nothing but volatile timestamps (heartbeats, lastUpdateTime-like stamps).",
    labels: [],
    inputs: ["noopWrites"],
    defaultSet: true,
    sharedText: false,
    cost: { formula: "1", series: () => 1 },
  },
  specGenerationChanges: {
    suffix: "spec_generation_changes_total",
    type: "counter",
    help: "Spec changes seen (metadata.generation bumps whose spec changed).",
    labels: [],
    inputs: ["generationChanges"],
    defaultSet: false,
    sharedText: false,
    cost: { formula: "1", series: () => 1 },
  },
  conditionTransitions: {
    suffix: "condition_transitions_total",
    type: "counter",
    help: "Condition status changes, by the new status.",
    labels: ["type", "status"],
    // Rendered per condition the object has now: a condition that appears or
    // goes away (no transition counted) still changes which series exist.
    inputs: ["conditionTransitions", "conditionStatus"],
    defaultSet: false,
    sharedText: false,
    cost: { formula: "3 per condition", series: (s) => 3 * s.conditions },
  },
  objectWarningEvents: {
    suffix: "object_warning_events_total",
    type: "counter",
    help: "Occurrences of Kubernetes Warning events about the object since the exporter started, by reason (bounded per kind as in cr_warning_events_total).",
    labels: ["reason"],
    inputs: ["warnings"],
    defaultSet: false,
    sharedText: false,
    cost: { formula: "1 per warning reason seen for the object", series: (s) => s.warningReasons },
  },
} as const satisfies Record<string, FamilySpec>;

export type ObjectFamilyKey = keyof typeof objectFamilySpecs;

export interface ObjectFamily extends FamilySpec {
  key: ObjectFamilyKey;
  /** Position in output order, and index into an object's rendered slots. */
  slot: number;
  /** Bits of `inputs` (plus identity: every family carries the object labels). */
  inputMask: number;
}

/** Per-object families in the order they are written. */
export const objectFamilies: readonly ObjectFamily[] = Object.entries(objectFamilySpecs).map(
  ([key, spec], slot) => ({
    ...(spec as FamilySpec),
    key: key as ObjectFamilyKey,
    slot,
    inputMask: inputMask(["identity", ...spec.inputs]),
  }),
);

/** Slot of each per-object family, derived from the table's order. */
export const slotOf = Object.fromEntries(objectFamilies.map((f) => [f.key, f.slot])) as Readonly<
  Record<ObjectFamilyKey, number>
>;

/** Bit of each input in a changed-inputs set. */
export const inputBit = Object.fromEntries(inputs.map((name, i) => [name, 1 << i])) as Readonly<
  Record<Input, number>
>;

/** Series of one object in the given families (bit i = object family slot i). */
export function seriesPerObject(shape: ObjectShape, selected: number): number {
  let total = 0;
  for (const family of objectFamilies) if (selected & (1 << family.slot)) total += family.cost.series(shape);
  return total;
}
