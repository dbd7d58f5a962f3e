// The StateTracer: asks the planner what to emit for an object's change from
// the object's trace record (kept in its store entry, handed in and back),
// drops spans already emitted, and hands the rest to a sink — only while this
// replica is the one that emits. No SDK here: the sink is the edge
// (sdk-setup.ts builds the real one), and no object is kept here.
import type { TraceRecord } from "../core/entry.ts";
import type { Logger } from "../log.ts";
import { noJoinRules, TraceDirectory } from "./directory.ts";
import { EmittedSpanIds } from "./emitted-span-ids.ts";
import { generationTraceKey, traceIdOf } from "./ids.ts";
import type { TracingMetrics } from "./metrics.ts";
import type { ObjectTraceState, PlannerSettings, SpanPlan, WarningObservation } from "./planner/model.ts";
import { planInterrupt, planObservation, planTick } from "./planner/plan.ts";
import { planWarning } from "./planner/warnings.ts";
import type { ObjectObservation, StateTracer, TraceStep } from "./state-tracer.ts";

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
  metrics?: Pick<TracingMetrics, "spansEmitted" | "spansDeduplicated"> &
    Partial<Pick<TracingMetrics, "traceContextMalformed">>;
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
  readonly #nowMs: () => number;
  readonly #metrics: StateTracerOptions["metrics"];
  readonly endsOpenSpansOnShutdown: boolean;
  /** The traced objects other objects' roots may join, shared by every collector. */
  readonly #directory: TraceDirectory;
  #stopped = false;

  constructor(options: StateTracerOptions) {
    this.#settings = options.settings;
    this.#sink = options.sink;
    this.#logger = options.logger;
    this.#isLeader = options.isLeader ?? (() => true);
    this.#emitted = new EmittedSpanIds(options.emittedCapacity ?? 10_000);
    this.endsOpenSpansOnShutdown = options.endOpenSpansOnShutdown ?? false;
    this.#nowMs = options.nowMs ?? Date.now;
    this.#metrics = options.metrics;
    this.#directory = new TraceDirectory(this.#settings.cluster, this.#settings.timeoutMs);
  }

  observe(o: ObjectObservation, record: TraceRecord | undefined): TraceStep {
    if (this.#stopped) return { record, traced: undefined };
    const uid = o.current?.uid ?? o.previous?.uid;
    if (uid === undefined) return { record, traced: undefined };
    const joinRules = o.joinRules ?? noJoinRules;
    const joins = o.current ? this.#directory.joinsOf(o.current, joinRules) : undefined;
    const result = planObservation(this.#settings, record as ObjectTraceState | undefined, { ...o, joins });
    if (result.malformedTraceContext) {
      this.#metrics?.traceContextMalformed?.inc();
      this.#logger.debug("trace-context annotation malformed: ignored", { uid, kind: o.resource.kind });
    }
    this.#emit(result.spans);
    const state = result.state;
    const generation = state?.tracedGeneration;
    if (o.current && state) {
      const traced =
        state.tracedGeneration === o.current.generation && generation !== undefined
          ? (state.tracedTraceId ?? this.#ownTraceId(uid, generation))
          : undefined;
      this.#directory.note(
        o.resource,
        o.statusSubresource,
        o.readiness,
        joinRules,
        o.current,
        traced,
        o.nowMs,
      );
    } else this.#directory.forget(uid);
    const traced =
      generation === undefined
        ? undefined
        : {
            generation,
            traceId: () => this.#sampled(state?.tracedTraceId ?? this.#ownTraceId(uid, generation)),
          };
    return { record: state, traced };
  }

  index(o: ObjectObservation): void {
    if (this.#stopped) return;
    if (!o.current) {
      const uid = o.previous?.uid;
      if (uid !== undefined) this.#directory.forget(uid);
      return;
    }
    const rules = o.joinRules ?? noJoinRules;
    this.#directory.note(o.resource, o.statusSubresource, o.readiness, rules, o.current, undefined, o.nowMs);
  }

  traceIdFor(uid: string, record: TraceRecord | undefined, generation: number): string | undefined {
    if (record?.tracedGeneration !== generation) return undefined;
    const joined = (record as ObjectTraceState).tracedTraceId;
    return this.#sampled(joined ?? this.#ownTraceId(uid, generation));
  }

  #ownTraceId(uid: string, generation: number): string {
    return traceIdOf(generationTraceKey(this.#settings.cluster, uid, generation));
  }

  #sampled(traceId: string): string | undefined {
    return this.#sink.isSampled(traceId) ? traceId : undefined;
  }

  warning(record: TraceRecord, warning: WarningObservation, nowMs: number): TraceRecord {
    // Kept on every replica (a new leader ends the root with them); only the leader emits the root.
    if (this.#stopped || !record.open) return record;
    return planWarning(this.#settings, record as ObjectTraceState, warning, nowMs);
  }

  tick(record: TraceRecord, nowMs: number): TraceRecord {
    if (this.#stopped || !record.open) return record;
    const result = planTick(this.#settings, record as ObjectTraceState, nowMs);
    this.#emit(result.spans);
    return result.state ?? record;
  }

  interrupt(record: TraceRecord, nowMs: number = this.#nowMs()): void {
    // Ending open roots means a restarted process re-emits them with other
    // content, so this is opt-in (endsOpenSpansOnShutdown); by default they
    // resume after a restart.
    if (this.#stopped || !record.open) return;
    this.#emit(planInterrupt(this.#settings, record as ObjectTraceState, nowMs).spans);
  }

  async shutdown(): Promise<void> {
    if (this.#stopped) return;
    this.#stopped = true;
    await this.#sink.shutdown();
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
