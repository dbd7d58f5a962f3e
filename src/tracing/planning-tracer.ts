// The StateTracer: keeps the per-object tracing state, asks the planner what
// to emit, drops spans already emitted, and hands the rest to a sink — only
// while this replica is the one that emits. No SDK here: the sink is the edge
// (sdk-setup.ts builds the real one).
import type { ResourceIdentity } from "../core/state.ts";
import type { Logger } from "../log.ts";
import { EmittedSpanIds } from "./emitted-span-ids.ts";
import { generationTraceKey, traceIdOf } from "./ids.ts";
import type { TracingMetrics } from "./metrics.ts";
import type { ObjectTraceState, PlannerSettings, SpanPlan } from "./planner/model.ts";
import { planInterrupt, planObservation, planTick } from "./planner/plan.ts";
import type { ObjectObservation, StateTracer, TracedGeneration } from "./state-tracer.ts";

export interface SpanSink {
  emit(plan: SpanPlan): void;
  /** Whether a trace with this id is sampled (the same decision the SDK makes for its root). */
  isSampled(traceId: string): boolean;
  shutdown(): Promise<void>;
}

export interface StateTracerOptions {
  settings: PlannerSettings;
  sink: SpanSink;
  logger: Logger;
  /** Only the leader emits; others keep state so they can take over mid-rollout. Default: always. */
  isLeader?: () => boolean;
  /** How many emitted span ids to remember (default 10 000). */
  emittedCapacity?: number;
  /** End open root spans as `interrupted` on shutdown instead of leaving them to be resumed after a restart. */
  endOpenSpansOnShutdown?: boolean;
  /** The clock for shutdown (epoch milliseconds). */
  nowMs?: () => number;
  metrics?: Pick<TracingMetrics, "spansEmitted" | "spansDeduplicated">;
}

export function createStateTracer(options: StateTracerOptions): StateTracer {
  return new PlanningTracer(options);
}

class PlanningTracer implements StateTracer {
  readonly #settings: PlannerSettings;
  readonly #sink: SpanSink;
  readonly #logger: Logger;
  readonly #isLeader: () => boolean;
  readonly #emitted: EmittedSpanIds;
  readonly #endOpenSpansOnShutdown: boolean;
  readonly #nowMs: () => number;
  readonly #metrics: StateTracerOptions["metrics"];
  readonly #states = new Map<string, ObjectTraceState>();
  #stopped = false;

  constructor(options: StateTracerOptions) {
    this.#settings = options.settings;
    this.#sink = options.sink;
    this.#logger = options.logger;
    this.#isLeader = options.isLeader ?? (() => true);
    this.#emitted = new EmittedSpanIds(options.emittedCapacity ?? 10_000);
    this.#endOpenSpansOnShutdown = options.endOpenSpansOnShutdown ?? false;
    this.#nowMs = options.nowMs ?? Date.now;
    this.#metrics = options.metrics;
  }

  observe(o: ObjectObservation): TracedGeneration | undefined {
    if (this.#stopped) return undefined;
    const uid = o.current?.uid ?? o.previous?.uid;
    if (uid === undefined) return undefined;
    const result = planObservation(this.#settings, this.#states.get(uid), o);
    if (result.state) this.#states.set(uid, result.state);
    else this.#states.delete(uid);
    this.#emit(result.spans);
    const generation = result.state?.tracedGeneration;
    if (generation === undefined) return undefined;
    return { generation, traceId: () => this.#sampledTraceId(uid, generation) };
  }

  traceIdFor(_resource: ResourceIdentity, uid: string, generation: number): string | undefined {
    const state = this.#states.get(uid);
    if (state?.tracedGeneration !== generation) return undefined;
    return this.#sampledTraceId(uid, generation);
  }

  #sampledTraceId(uid: string, generation: number): string | undefined {
    const traceId = traceIdOf(generationTraceKey(this.#settings.cluster, uid, generation));
    return this.#sink.isSampled(traceId) ? traceId : undefined;
  }

  forget(uid: string): void {
    this.#states.delete(uid);
  }

  tick(nowMs: number): void {
    if (this.#stopped) return;
    for (const [uid, state] of this.#states) {
      if (!state.open) continue;
      const result = planTick(this.#settings, state, nowMs);
      if (result.state) this.#states.set(uid, result.state);
      this.#emit(result.spans);
    }
  }

  async shutdown(): Promise<void> {
    if (this.#stopped) return;
    if (this.#endOpenSpansOnShutdown) this.#interruptOpen(this.#nowMs());
    this.#stopped = true;
    await this.#sink.shutdown();
  }

  get openEpisodes(): number {
    let count = 0;
    for (const state of this.#states.values()) if (state.open) count++;
    return count;
  }

  #interruptOpen(nowMs: number): void {
    // Ending open roots means a restarted process re-emits them with other
    // content, so this is opt-in; by default they resume after a restart.
    for (const [uid, state] of this.#states) {
      const result = planInterrupt(this.#settings, state, nowMs);
      if (result.state) this.#states.set(uid, result.state);
      this.#emit(result.spans);
    }
  }

  #emit(spans: SpanPlan[]): void {
    if (spans.length === 0 || !this.#isLeader()) return;
    for (const span of spans) {
      if (!this.#emitted.add(span.traceId, span.spanId)) {
        this.#metrics?.spansDeduplicated.inc();
        this.#logger.debug("span already emitted", {
          traceId: span.traceId,
          spanId: span.spanId,
          name: span.name,
        });
        continue;
      }
      try {
        this.#sink.emit(span);
        this.#metrics?.spansEmitted.inc();
      } catch (error) {
        this.#logger.warn("span not emitted", { error, name: span.name, traceId: span.traceId });
      }
    }
  }
}
