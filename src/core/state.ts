// The projected state of one custom resource: the few fields the exporter
// needs, extracted from the whole object and nothing more. Watchers keep only
// this (never whole objects); metrics and traces are derived from it.

export type ConditionStatus = "True" | "False" | "Unknown";

export interface ConditionState {
  type: string;
  status: ConditionStatus;
  reason: string;
  /** Truncated on projection; never used as a metric label. */
  message: string;
  /** Epoch seconds, as given by the API (whole seconds); undefined when absent or unparsable. */
  lastTransitionTime: number | undefined;
  /** The condition's own observedGeneration, when the controller sets it. */
  observedGeneration: number | undefined;
}

/** What the projection cut from one version of an object (see core/label-values.ts). */
export interface ObjectCuts {
  /** Label values longer than the cap, cut. */
  labelValues: number;
  /** Conditions past the per-object cap, dropped. */
  conditions: number;
}

/** Which resource type an object belongs to. */
export interface ResourceIdentity {
  group: string;
  version: string;
  kind: string;
  /** Lower-case plural, as in the REST path. */
  resource: string;
  namespaced: boolean;
}

export interface ObjectState {
  uid: string;
  namespace: string;
  name: string;
  resourceVersion: string;
  /** Epoch seconds. */
  creationTimestamp: number | undefined;
  /** Epoch seconds; set while the object is terminating. */
  deletionTimestamp: number | undefined;
  generation: number | undefined;
  observedGeneration: number | undefined;
  phase: string | undefined;
  conditions: ConditionState[];
  /** Epoch seconds of the configured heartbeat field. */
  heartbeat: number | undefined;
  /**
   * Epoch seconds of the last write that changed spec, from managedFields
   * (the newest entry touching f:spec). Survives exporter restarts.
   */
  specChangedAt: number | undefined;
  /** Extra labels copied from object labels/annotations, already allow-listed. */
  extraLabels: Record<string, string>;
  /**
   * A digest of the metadata that writes other than status writes change
   * (generation, deletion, labels, annotations, finalizers, owners): a write
   * that changes neither this nor the status is a no-op status write.
   */
  metaDigest: number;
  /** Label values cut and conditions dropped by the projection's caps. */
  cuts: ObjectCuts;
}

/** What changed between two observations of the same object. */
export type Transition =
  | { kind: "created"; at: number }
  | { kind: "deleted"; at: number }
  | { kind: "generation"; from: number | undefined; to: number | undefined; at: number }
  | { kind: "observedGeneration"; from: number | undefined; to: number | undefined; at: number }
  | { kind: "phase"; from: string | undefined; to: string | undefined; at: number }
  | {
      kind: "condition";
      type: string;
      from: ConditionStatus | undefined;
      to: ConditionStatus | undefined;
      /** When the condition entered `to`: its lastTransitionTime, else the observation time. */
      at: number;
      /** When it entered `from`, if known: for state-duration histograms. */
      since: number | undefined;
      reason: string;
      message: string;
    }
  | { kind: "statusWrite"; noop: boolean; at: number }
  | { kind: "terminating"; at: number };
