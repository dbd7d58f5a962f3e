// The seam between the collectors and tracing: what the collectors hand over
// for every change they see, and what tracing offers back. Tracing never
// watches on its own. planning-tracer.ts implements it.
import type { ReadinessRules } from "../core/judge/readiness.ts";
import type { ObjectState, ResourceIdentity } from "../core/state.ts";

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

export interface StateTracer {
  /**
   * Plans and emits the spans of one change. Returns the generation the
   * object is traced under after it, for the exemplar of the reconcile
   * histogram this same change may observe; undefined when none.
   */
  observe(o: ObjectObservation): TracedGeneration | undefined;
  /**
   * Hex trace id of the generation root span for this object and generation,
   * for exemplars on cr_reconcile_duration_seconds. Undefined when that
   * generation was not traced (e.g. already settled when first seen) or its
   * trace is not sampled.
   */
  traceIdFor(resource: ResourceIdentity, uid: string, generation: number): string | undefined;
  /**
   * The object went to another shard: its state is dropped with nothing
   * emitted or ended (its new owner resumes it, with the same ids, as after a
   * restart).
   */
  forget(uid: string): void;
  /** Periodic check (epoch milliseconds): ends open root spans whose timeout has passed. */
  tick(nowMs: number): void;
  /** Objects with an open root span (a generation or a degraded interval). */
  readonly openEpisodes: number;
  /** Ends (if configured) or keeps open work, flushes what has ended, then shuts the SDK down. */
  shutdown(): Promise<void>;
}
