// The seam between the collectors and tracing: what the collectors hand over
// for every change they see, and what tracing offers back. Tracing never
// watches on its own. planning-tracer.ts implements it.

import type { TraceRecord } from "../core/entry.ts";
import type { ReadinessRules } from "../core/judge/readiness.ts";
import type { ObjectState, ResourceIdentity } from "../core/state.ts";
import type { JoinRules } from "./directory.ts";
import type { Joins, WarningObservation } from "./planner/model.ts";

export interface ObjectObservation {
  resource: ResourceIdentity;
  /** False when the CRD has no status subresource: every status write bumps generation, so trace by conditions only. */
  statusSubresource: boolean;
  /** The resource's readiness rules, the same cr_status and the histograms follow (core/judge/readiness.ts). */
  readiness: ReadinessRules;
  /** Undefined: the first time this process sees the object. */
  previous: ObjectState | undefined;
  /** Undefined: the object was deleted. */
  current: ObjectState | undefined;
  /** Epoch milliseconds of the observation (the injected clock). */
  nowMs: number;
  /** True when the object came from an initial list or a relist, not from a watch event. */
  replay: boolean;
  /** How the resource's roots join others (its tracing options); undefined: links only. */
  joinRules?: JoinRules | undefined;
  /** What its root spans may join (tracing/joins.ts), filled in by the tracer from its directory. */
  joins?: Joins | undefined;
}

/** The generation root span an object is traced under, as an exemplar names it. */
export interface TracedGeneration {
  generation: number;
  /**
   * Hex trace id, undefined when the trace is not sampled. A call, made only
   * when an exemplar needs it: it hashes, and most changes observe no reconcile.
   */
  traceId(): string | undefined;
}

/** One change traced: the object's record after it, and what it is traced under. */
export interface TraceStep {
  /** To keep in the object's store entry (undefined: nothing to keep, e.g. deleted). */
  record: TraceRecord | undefined;
  traced: TracedGeneration | undefined;
}

/**
 * Tracing keeps no object of its own: each object's record lives in its
 * store entry (core/entry.ts), handed in with every change and handed back
 * after it, so the store is the one place per object.
 */
export interface StateTracer {
  /**
   * Plans and emits the spans of one change, from the object's record
   * (undefined: none yet). Returns the record to keep and the generation the
   * object is traced under, for the exemplar of the reconcile histogram this
   * same change may observe.
   */
  observe(o: ObjectObservation, record: TraceRecord | undefined): TraceStep;
  /**
   * Enters an object of another shard in the directory of join targets
   * (tracing.joinAcrossShards): no trace state, no spans. `current`
   * undefined: it is gone.
   */
  index?(o: ObjectObservation): void;
  /**
   * A Warning event update counted for the object (occurrences > 0): recorded
   * on its open root as a `k8s.event` span event, emitted when the root ends.
   * The same record when no root is open.
   */
  warning?(record: TraceRecord, warning: WarningObservation, nowMs: number): TraceRecord;
  /** Periodic check (epoch milliseconds): ends an open root span whose timeout has passed. The same record when nothing is due. */
  tick(record: TraceRecord, nowMs: number): TraceRecord;
  /**
   * Hex trace id of the generation root span for this object and generation,
   * for exemplars and the status page, when its record traces that
   * generation and the trace is sampled.
   */
  traceIdFor(uid: string, record: TraceRecord | undefined, generation: number): string | undefined;
  /** Whether open root spans end as `interrupted` when the process stops (else they resume after a restart). */
  readonly endsOpenSpansOnShutdown: boolean;
  /** Ends an open record's root spans as interrupted (on shutdown, when configured). */
  interrupt(record: TraceRecord, nowMs: number): void;
  /** Flushes what has ended, then shuts the SDK down. */
  shutdown(): Promise<void>;
}
