// The projected state of one custom resource: the few fields the exporter
// needs, extracted from the whole object and nothing more. Watchers keep only
// this (never whole objects); metrics and traces are derived from it.
import type { CelError, CelReadinessResult } from "./cel.ts";

export type ConditionStatus = "True" | "False" | "Unknown";

/**
 * lastTransitionTime: the API's time. first_seen: the condition has none, and
 * this is when the exporter saw it enter its status. exporter_start: it has
 * none, and the object already had this status when the exporter started (a
 * lower bound: "since exporter start").
 */
export type ConditionTimeSource = "lastTransitionTime" | "first_seen" | "exporter_start";

export interface ConditionState {
  type: string;
  status: ConditionStatus;
  reason: string;
  /** Truncated on projection; never used as a metric label. */
  message: string;
  /** Epoch seconds, as given by the API (whole seconds); undefined when absent or unparsable. */
  lastTransitionTime: number | undefined;
  /**
   * Epoch seconds since when the condition has had its status: its
   * lastTransitionTime, else when the exporter first saw it with this status
   * (remembered from one observation to the next, see object-update.ts).
   */
  since: number | undefined;
  /** Where `since` comes from; undefined while `since` is. */
  sinceSource: ConditionTimeSource | undefined;
  /** The condition's own observedGeneration, when the controller sets it. */
  observedGeneration: number | undefined;
}

/** What the projection cut from one version of an object (see core/label-values.ts). */
export interface ObjectCuts {
  /** Label values longer than the cap, cut. */
  labelValues: number;
  /** Conditions past the per-object cap, dropped. */
  conditions: number;
  /** Configured values present but not readable as numbers (no series). */
  unreadableValues: number;
  /** The first of them, with why, for the log. */
  firstUnreadable?: { name: string; reason: string };
  /** The kind's CEL expressions whose evaluation failed on this version (readiness Unknown, no value series). */
  celErrors?: readonly CelError[];
}

/**
 * A configured state field (a string such as Argo CD's status.health.status):
 * its current value and since when it has had it.
 */
export interface StateValue {
  /** The configured name (the `field` label of cr_state). */
  name: string;
  value: string;
  /** Epoch seconds: a lastTransitionTime next to the field, else when the exporter first saw the value. */
  since: number | undefined;
  /** Where `since` comes from; undefined while `since` is. */
  sinceSource: ConditionTimeSource | undefined;
}

/** A configured numeric field (`values`): its name (the `field` label of cr_value) and its value as a number. */
export interface FieldValue {
  name: string;
  value: number;
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

/**
 * What names an object's parents for tracing (src/tracing/joins.ts), read
 * only while tracing is on and only when present: its controller owner, the
 * source a configured reference or label pair names, and the request that
 * started it (a W3C trace context in an annotation). A few short strings,
 * never the whole metadata.
 */
export interface ObjectRefs {
  /** The ownerReference with controller: true. */
  owner?: { uid: string; apiVersion: string; kind: string; name: string };
  /** The source named by the resource's tracing.source (namespace defaults to the object's). */
  source?: { namespace: string; name: string; kind?: string };
  /** The trace-context annotation's value, as given (parsed by tracing). */
  traceContext?: string;
  /** The current operation, for a kind traced by operations (tracing.operation). */
  operation?: OperationTimes;
}

/** An operation's server-written times (epoch seconds): Argo CD's status.operationState. */
export interface OperationTimes {
  startedAt: number;
  /** Not before startedAt; absent while the operation runs. */
  finishedAt?: number;
  /** As written (Running, Succeeded, Failed, Error, Terminating). */
  phase?: string;
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
  /** The configured state fields that are set, in configuration order. */
  states: StateValue[];
  /** The configured numeric fields that are set and read as numbers, in configuration order. */
  values: readonly FieldValue[];
  /** spec.suspend (or the kind's equivalent) says reconciliation is paused. */
  suspended: boolean;
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
   * (deletion, labels, annotations, finalizers, owners): with the spec digest
   * (or generation) and the status digest it tells status writes, no-op
   * status writes and other writes apart (transitions.ts).
   */
  metaDigest: number;
  /** A digest of status without its volatile timestamps (see project.ts): equal digests, same status. */
  statusDigest: number;
  /**
   * A digest of spec, for kinds without a status subresource only (where a
   * status write bumps generation too); undefined elsewhere: there a
   * generation bump is a spec change by definition.
   */
  specDigest: number | undefined;
  /** Label values cut and conditions dropped by the projection's caps. */
  cuts: ObjectCuts;
  /**
   * What the kind's readiness expression (`readiness.cel`) says, Unknown
   * when its evaluation failed; absent for kinds without one. It decides
   * the judgement (core/judge/readiness.ts).
   */
  celVerdict?: CelReadinessResult | "Unknown";
  /** Tracing's parent references (only while tracing is on, only when the object has any). */
  refs?: ObjectRefs;
}

/** What changed between two observations of the same object. */
export type Transition =
  | { kind: "created"; at: number }
  | { kind: "deleted"; at: number }
  | {
      kind: "generation";
      from: number | undefined;
      to: number | undefined;
      at: number;
      /** False when the spec is unchanged (a status write on a kind without a status subresource). */
      specChanged: boolean;
    }
  | { kind: "observedGeneration"; from: number | undefined; to: number | undefined; at: number }
  | { kind: "phase"; from: string | undefined; to: string | undefined; at: number }
  | {
      kind: "condition";
      type: string;
      from: ConditionStatus | undefined;
      to: ConditionStatus | undefined;
      /** When the condition entered `to`: its `since`, else the observation time. */
      at: number;
      /** When it entered `from`, if known: for state-duration histograms. */
      since: number | undefined;
      reason: string;
      message: string;
    }
  | { kind: "statusWrite"; noop: boolean; at: number }
  | { kind: "terminating"; at: number };

/** The kstatus-like one-word summary of an object (readiness.ts summarizeStatus). */
export const statusResults = ["Current", "InProgress", "Failed", "Terminating", "Unknown"] as const;
export type StatusResult = (typeof statusResults)[number];
