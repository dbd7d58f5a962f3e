// Span attribute names, in one place. Identity attributes follow the names the
// OpenTelemetry Collector's Kubernetes receivers already use (`k8s.object.*`),
// so spans can be joined with event logs; everything this exporter invents
// lives under its own `cr_status.` prefix.

export const K8S_NAMESPACE_NAME = "k8s.namespace.name";
export const K8S_CLUSTER_NAME = "k8s.cluster.name";
export const K8S_OBJECT_KIND = "k8s.object.kind";
export const K8S_OBJECT_NAME = "k8s.object.name";
export const K8S_OBJECT_UID = "k8s.object.uid";
export const K8S_OBJECT_API_VERSION = "k8s.object.api_version";
export const K8S_OBJECT_GENERATION = "k8s.object.generation";

/** Registered semantic convention: the class of error on a failed span. */
export const ERROR_TYPE = "error.type";

/** Lower-case plural and group of the resource, e.g. `widgets.example.com`. */
export const RESOURCE = "cr_status.resource";
/** How a root span ended: see `Outcome`. */
export const OUTCOME = "cr_status.outcome";
/** status.observedGeneration when the root span ended. */
export const OBSERVED_GENERATION = "cr_status.observed_generation";
/** Which clock gave the start time: see `TimeSource`. */
export const START_SOURCE = "cr_status.start_source";
/** Which clock gave the end time: see `TimeSource`. */
export const END_SOURCE = "cr_status.end_source";
/** Why two traces are linked (on links). */
export const LINK_REASON = "cr_status.link.reason";

export const CONDITION_TYPE = "cr_status.condition.type";
/** The status held during the interval (never the desired one). */
export const CONDITION_STATUS = "cr_status.condition.status";
/** The status the condition moved to when the interval ended by a transition. */
export const CONDITION_NEXT_STATUS = "cr_status.condition.next_status";
/** The first reason of the interval; later ones are `REASON_CHANGED` events. */
export const CONDITION_REASON = "cr_status.condition.reason";
/** On a `REASON_CHANGED` event: the reason before the change. */
export const CONDITION_PREVIOUS_REASON = "cr_status.condition.previous_reason";
/** Reason changes beyond the bound on `REASON_CHANGED` events (counted, not recorded). */
export const CONDITION_REASON_CHANGES_DROPPED = "cr_status.condition.reason_changes_dropped";
/** Truncated; on a span the first message of the interval, on a `REASON_CHANGED` event the one given with that reason. */
export const CONDITION_MESSAGE = "cr_status.condition.message";
/** lastTransitionTime exactly as the API gave it (RFC 3339), before clamping into the root span. */
export const CONDITION_LAST_TRANSITION_TIME = "cr_status.condition.last_transition_time";
export const CONDITION_OBSERVED_GENERATION = "cr_status.condition.observed_generation";

export const PHASE = "cr_status.phase";
export const PREVIOUS_PHASE = "cr_status.previous_phase";
export const NEXT_PHASE = "cr_status.next_phase";

/** Span event: the condition kept its status but changed its reason (`CONDITION_REASON` is the new one). */
export const REASON_CHANGED = "condition reason changed";

/** Span event on an open root: a Kubernetes Warning event about the object was counted. */
export const K8S_EVENT = "k8s.event";
export const K8S_EVENT_REASON = "k8s.event.reason";
/** Cut as the object's latest warning keeps it (256 characters). */
export const K8S_EVENT_MESSAGE = "k8s.event.message";
/** Occurrences the update added. */
export const K8S_EVENT_COUNT = "k8s.event.count";
export const K8S_EVENT_TYPE = "k8s.event.type";
/** On roots: Warning event updates beyond the bound on `K8S_EVENT` events (counted, not recorded). */
export const K8S_EVENT_DROPPED = "k8s.event.dropped";

/** On operation roots: the operation's startedAt as the object gave it (RFC 3339). */
export const OPERATION_STARTED_AT = "cr_status.operation.started_at";
/** On operation roots: the operation's phase as it ended (Succeeded, Failed, Error). */
export const OPERATION_PHASE = "cr_status.operation.phase";

/** How a root span (a generation, a degraded episode or an operation) ended. */
export type Outcome =
  | "ready"
  | "succeeded"
  | "recovered"
  | "superseded"
  | "deleted"
  | "stalled"
  | "failed"
  | "timeout"
  | "interrupted";

/**
 * Where a timestamp came from: `creation_timestamp`, `spec_change` (managedFields),
 * `condition` (lastTransitionTime), `operation` (an operation's startedAt or
 * finishedAt) and `deadline` are reproducible after a restart; `observed` is
 * this process's clock and is not.
 */
export type TimeSource =
  | "creation_timestamp"
  | "spec_change"
  | "condition"
  | "operation"
  | "deadline"
  | "observed";

/** Link reasons. */
export type LinkReason = "previous_generation" | "generation" | "owner" | "source" | "request";

/** On owner and source links: the parent's generation root was already reconciled when this root began. */
export const LINK_ENDED = "cr_status.link.ended";
/** On owner and source links: the parent's kind. */
export const LINK_KIND = "cr_status.link.kind";
/** On roots: what the root hangs under when it is not a trace of its own (`owner`, `source`, `request`). */
export const PARENT = "cr_status.parent";
