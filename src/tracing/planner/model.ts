// The data the planner works with: span plans (what to emit, fully decided),
// the small per-object tracing state, and the planner's settings.
import type { ConditionStatus } from "../../core/state.ts";
import type { JoinTarget } from "../joins.ts";

export type AttributeValue = string | number | boolean;
export type SpanAttributes = Record<string, AttributeValue>;

export interface SpanLinkPlan {
  traceId: string;
  spanId: string;
  attributes: SpanAttributes;
}

/** Something that happened inside a span, e.g. a condition's reason changing. */
export interface SpanEventPlan {
  name: string;
  /** Epoch milliseconds, within the span. */
  timeMs: number;
  attributes: SpanAttributes;
}

/** One finished span, with every field decided: the SDK edge only copies it. */
export interface SpanPlan {
  traceId: string;
  spanId: string;
  /** Undefined for a root span. */
  parentSpanId: string | undefined;
  name: string;
  /** Epoch milliseconds. */
  startMs: number;
  /** Epoch milliseconds, ≥ startMs. */
  endMs: number;
  attributes: SpanAttributes;
  links: SpanLinkPlan[];
  events: SpanEventPlan[];
  status: { code: "unset" | "ok" | "error"; message?: string };
  /** W3C tracestate of a trace joined through a request's trace context; undefined: none. */
  traceState?: string;
}

/**
 * The reasons a condition gave while away from its desired status: the first
 * is a span attribute, each later change a span event (at most
 * `maxReasonChangeEvents`; the rest are only counted).
 */
export interface ReasonHistory {
  /** The latest reason seen ("" when none). */
  latest: string;
  events: SpanEventPlan[];
  /** Changes beyond the event bound. */
  dropped: number;
}

/** An interval span (a condition away from its desired status, or a phase held) that has not ended yet. */
export interface OpenInterval {
  spanId: string;
  name: string;
  /** Condition type or phase name. */
  key: string;
  /** Epoch ms, already clamped into the root span. */
  startMs: number;
  /** For conditions: the status held during the interval. */
  status?: ConditionStatus;
  /** lastTransitionTime in epoch seconds as given, for telling intervals apart. */
  sinceSeconds?: number | undefined;
  attributes: SpanAttributes;
  /** For conditions. */
  reasons?: ReasonHistory;
}

/**
 * An open root span and its open children. `generation`: from a spec change
 * until the object is reconciled. `degraded`: the ready condition left its
 * desired status without a spec change (a flap), or any not-ready interval on
 * a kind traced by conditions only. `operation`: one operation of a kind
 * traced by operations (tracing.operation), from its startedAt to its finishedAt.
 */
export interface Episode {
  kind: "generation" | "degraded" | "operation";
  /** The object's generation when the episode began. */
  generation: number | undefined;
  traceKey: string;
  traceId: string;
  rootSpanId: string;
  rootName: string;
  /** The span the root hangs under (an owner's or source's root, or a request's span); undefined: a trace of its own. */
  parentSpanId?: string;
  /** W3C tracestate carried from a request's trace context. */
  traceState?: string;
  /**
   * A child span of this episode has been emitted: its trace id is out, so
   * the root's parent is no longer looked up again (until then, each
   * observation joins the owner or source it finds by then).
   */
  childEmitted?: boolean;
  startMs: number;
  /** Root attributes fixed at the start; outcome attributes are added at the end. */
  attributes: SpanAttributes;
  links: SpanLinkPlan[];
  /** Open condition intervals by condition type. */
  conditions: Record<string, OpenInterval>;
  phase: OpenInterval | undefined;
  /** For degraded episodes: the `since` that keys it (ready lastTransitionTime or observation ms). */
  degradedSince?: string;
  /** For operation episodes: the startedAt (epoch seconds) that keys it. */
  operationStartedAt?: number;
  /** For degraded episodes: the root span is the ready condition's interval, with its reasons. */
  reasons?: ReasonHistory;
  /** Kubernetes Warning events counted while the root is open: span events of the root (warnings.ts). */
  warnings?: WarningHistory;
}

/**
 * The Warning events about the object counted while a root is open, as the
 * root's `k8s.event` span events: at most `maxWarningEvents`, the rest counted.
 */
export interface WarningHistory {
  events: SpanEventPlan[];
  /** Event updates beyond the bound: span events not recorded. */
  dropped: number;
}

/** One counted update of a Warning event about the object, as the planner takes it (plain values). */
export interface WarningObservation {
  reason: string;
  /** Cut as stored (core/events/warning-event.ts). */
  message: string;
  /** Occurrences this update adds (> 0). */
  count: number;
  /** Epoch ms of the latest occurrence (eventTime / series.lastObservedTime); undefined: the observation's time. */
  atMs: number | undefined;
}

/** What tracing remembers about one object between observations. */
export interface ObjectTraceState {
  uid: string;
  open: Episode | undefined;
  /** The newest generation whose root span has ended, or that was already settled when first seen. */
  closedGeneration: number | undefined;
  /** When that happened (epoch ms): a ready condition leaving True after it is a flap. */
  closedAtMs: number | undefined;
  /** The newest generation that got a root span (open or ended): its trace id is the exemplar. */
  tracedGeneration: number | undefined;
  /** The key of the last degraded episode that ended, so the same interval is not reopened. */
  closedDegradedSince: string | undefined;
  /** The startedAt (epoch seconds) of the last operation whose root ended or that was over when first seen. */
  closedOperationAt?: number;
  /**
   * The trace id of `tracedGeneration`'s root when it joined another trace (a
   * parent's or a request's); undefined: its own hash (generationTraceKey).
   */
  tracedTraceId?: string;
  /** `<trace id>-<span id>` of the request context that parented the newest generation: a repeat only links. */
  requestContext?: string;
}

/**
 * What an object's root spans may join, resolved by the caller from what it
 * knows of other objects (plain values: tracing/joins.ts).
 */
export interface Joins {
  /** tracing.parent: which join makes the generation root a child of its parent's root (when that was open). */
  parent: "owner" | "source" | undefined;
  /** The controller owner, when it is a traced object the caller knows. */
  owner: JoinTarget | undefined;
  /** The configured source, when it is a traced object the caller knows. */
  source: JoinTarget | undefined;
  /** The trace-context annotation's value, as given. */
  traceContext: string | undefined;
}

/**
 * What tracing needs beyond each resource's readiness rules, which come with
 * every observation (the ready, stalled and reconciling conditions, desired
 * statuses, phase results and failedAfter: core/judge/readiness.ts). Messages are
 * cut once, on projection (core/project/project.ts).
 */
export interface PlannerSettings {
  /** Salts every id and names the cluster; must be stable across restarts. */
  cluster: string;
  /** Condition types to trace as child intervals; undefined: all. */
  trackedConditions: readonly string[] | undefined;
  /** Open root spans end as `timeout` (ERROR) this long after they started. */
  timeoutMs: number;
  /** Reason changes recorded as span events per interval; later ones are only counted. */
  maxReasonChangeEvents: number;
  /** Warning events recorded as span events per root; later ones are only counted. */
  maxWarningEvents: number;
}

/** How long a generation's root stays open by default: `tracing.generationTimeout`'s default is this value. */
export const defaultGenerationTimeoutSeconds = 3600;

export const defaultPlannerSettings: Omit<PlannerSettings, "cluster"> = {
  trackedConditions: undefined,
  timeoutMs: defaultGenerationTimeoutSeconds * 1000,
  maxReasonChangeEvents: 16,
  maxWarningEvents: 16,
};

export function plannerSettings(
  cluster: string,
  overrides: Partial<Omit<PlannerSettings, "cluster">> = {},
): PlannerSettings {
  if (!cluster) throw new Error('tracing: cluster must be a non-empty string (got "")');
  const settings: PlannerSettings = { ...defaultPlannerSettings, ...overrides, cluster };
  if (!Number.isFinite(settings.timeoutMs) || settings.timeoutMs <= 0) {
    throw new Error(
      `tracing: timeoutMs must be a positive number of milliseconds (got ${settings.timeoutMs})`,
    );
  }
  return settings;
}
