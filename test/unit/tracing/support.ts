// Builders for the tracing unit tests: ObjectState values, histories fed
// through the production tracing factory (with an in-memory span exporter
// instead of OTLP), the spans exactly as the OpenTelemetry SDK finished them,
// and the expected spans of each kind.
import { InMemorySpanExporter, type ReadableSpan, SimpleSpanProcessor } from "@opentelemetry/sdk-trace";
import { defaultReadinessRules, type ReadinessRules } from "../../../src/core/judge/readiness.ts";
import type { ConditionState, ObjectState, ResourceIdentity } from "../../../src/core/state.ts";
import { silentLogger } from "../../../src/log.ts";
import type { TimeSource } from "../../../src/tracing/attributes.ts";
import * as attr from "../../../src/tracing/attributes.ts";
import { degradedTraceKey, generationTraceKey, spanIdOf, traceIdOf } from "../../../src/tracing/ids.ts";
import type { RootSampling } from "../../../src/tracing/otel-env.ts";
import type { PlannerSettings } from "../../../src/tracing/planner/model.ts";
import { createTracing, type TracingOptions } from "../../../src/tracing/sdk-setup.ts";
import type { ObjectObservation } from "../../../src/tracing/state-tracer.ts";
import { RecordKeepingTracer } from "../../support/trace-records.ts";

/** 2026-01-01T00:00:00Z in epoch seconds: every history counts from here. */
export const T = 1_767_225_600;
/** Epoch ms of T + `seconds`. */
export const at = (seconds: number): number => (T + seconds) * 1000;
export const iso = (seconds: number): string => new Date(at(seconds)).toISOString().replace(".000Z", "Z");

export const cluster = "test";

export const widgets: ResourceIdentity = {
  group: "example.com",
  version: "v1",
  kind: "Widget",
  resource: "widgets",
  namespaced: true,
};

export const sprockets: ResourceIdentity = {
  group: "example.com",
  version: "v1",
  kind: "Sprocket",
  resource: "sprockets",
  namespaced: true,
};

export function object(fields: Partial<ObjectState> = {}): ObjectState {
  return {
    uid: "uid-1",
    namespace: "ns",
    name: "w1",
    resourceVersion: "1",
    creationTimestamp: T,
    deletionTimestamp: undefined,
    generation: 1,
    observedGeneration: undefined,
    phase: undefined,
    conditions: [],
    states: [],
    values: [],
    suspended: false,
    heartbeat: undefined,
    specChangedAt: T,
    extraLabels: {},
    metaDigest: 0,
    cuts: { labelValues: 0, conditions: 0, unreadableValues: 0 },
    statusDigest: 0,
    specDigest: undefined,
    ...fields,
  };
}

/** A condition that entered `status` at T + `since` seconds. */
export function condition(
  type: string,
  status: ConditionState["status"],
  since: number,
  reason = "",
  message = "",
  observedGeneration?: number,
): ConditionState {
  return {
    type,
    status,
    reason,
    message,
    lastTransitionTime: T + since,
    since: T + since,
    sinceSource: "lastTransitionTime",
    observedGeneration,
  };
}

/** The identity attributes every span of uid-1 carries. */
export function identity(resource: ResourceIdentity = widgets, name = "w1"): Record<string, string> {
  return {
    [attr.K8S_NAMESPACE_NAME]: "ns",
    [attr.K8S_OBJECT_KIND]: resource.kind,
    [attr.K8S_OBJECT_NAME]: name,
    [attr.K8S_OBJECT_UID]: "uid-1",
    [attr.K8S_OBJECT_API_VERSION]: `${resource.group}/${resource.version}`,
    [attr.RESOURCE]: `${resource.resource}.${resource.group}`,
  };
}

export interface TraceIds {
  traceId: string;
  root: string;
  /** The span id of the interval of `type` that entered `status` at T + `since` seconds. */
  condition(type: string, since: number, status: string): string;
  phase(name: string, sinceMs: number): string;
}

function traceIds(key: string): TraceIds {
  return {
    traceId: traceIdOf(key),
    root: spanIdOf(key, "root"),
    condition: (type, since, status) => spanIdOf(key, `cond=${type}|since=${T + since}|status=${status}`),
    phase: (name, sinceMs) => spanIdOf(key, `phase=${name}|since=${sinceMs}`),
  };
}

/** The deterministic ids of one generation trace. */
export function generationIds(generation: number, uid = "uid-1"): TraceIds {
  return traceIds(generationTraceKey(cluster, uid, generation));
}

/** The deterministic ids of one degraded trace (the ready condition left True at T + `since`). */
export function degradedIds(since: number, status: string, uid = "uid-1"): TraceIds {
  return traceIds(degradedTraceKey(cluster, uid, "Ready", `${T + since}|${status}`));
}

export interface EventView {
  name: string;
  timeMs: number;
  attributes: Record<string, unknown>;
}

export interface SpanView {
  name: string;
  traceId: string;
  spanId: string;
  parentSpanId: string | undefined;
  startMs: number;
  endMs: number;
  status: "unset" | "ok" | "error";
  attributes: Record<string, unknown>;
  links: { traceId: string; spanId: string; attributes: Record<string, unknown> }[];
  events: EventView[];
}

function ms(time: readonly [number, number]): number {
  return time[0] * 1000 + time[1] / 1_000_000;
}

export function view(span: ReadableSpan): SpanView {
  const code = span.status.code;
  return {
    name: span.name,
    traceId: span.spanContext().traceId,
    spanId: span.spanContext().spanId,
    parentSpanId: span.parentSpanContext?.spanId,
    startMs: ms(span.startTime),
    endMs: ms(span.endTime),
    status: code === 2 ? "error" : code === 1 ? "ok" : "unset",
    attributes: { ...span.attributes },
    links: span.links.map((l) => ({
      traceId: l.context.traceId,
      spanId: l.context.spanId,
      attributes: { ...(l.attributes ?? {}) },
    })),
    events: span.events.map((e) => ({ name: e.name, timeMs: ms(e.time), attributes: { ...e.attributes } })),
  };
}

export interface MemoryTracing {
  /** The tracer, with the one record per object the collectors would keep. */
  tracer: RecordKeepingTracer;
  exporter: InMemorySpanExporter;
  /**
   * Spans finished so far, in the order they ended; clears the exporter. The
   * SDK exports a span once the resource's asynchronous attributes (host
   * detection) are in, so this waits for the processor first.
   */
  take(): Promise<SpanView[]>;
}

/** The production tracing factory, exporting into memory. */
export function memoryTracing(
  options: {
    settings?: Partial<Omit<PlannerSettings, "cluster">>;
    sampling?: RootSampling;
    tracer?: Partial<
      Pick<TracingOptions, "isLeader" | "endOpenSpansOnShutdown" | "nowMs" | "metrics" | "emittedCapacity">
    >;
  } = {},
): MemoryTracing {
  const exporter = new InMemorySpanExporter();
  const processor = new SimpleSpanProcessor({ exporter });
  const tracer = createTracing({
    cluster,
    destination: { spanProcessors: [processor] },
    sampling: options.sampling ?? { kind: "always_on" },
    ...(options.settings && { planner: options.settings }),
    ...options.tracer,
    env: {},
    logger: silentLogger,
  });
  return {
    tracer: new RecordKeepingTracer(tracer, options.tracer?.nowMs),
    exporter,
    async take() {
      await processor.forceFlush();
      const spans = exporter.getFinishedSpans().map(view);
      exporter.reset();
      return spans;
    },
  };
}

export interface Step {
  /** Observation time, seconds after T. */
  now: number;
  /** The object as observed; undefined: deleted. */
  object: ObjectState | undefined;
  replay?: boolean;
}

/** Feeds a history to a tracer, passing each step's object as the next step's `previous`. */
export class History {
  readonly #tracer: Pick<RecordKeepingTracer, "observe">;
  readonly #resource: ResourceIdentity;
  readonly #statusSubresource: boolean;
  readonly #readiness: ReadinessRules;
  #previous: ObjectState | undefined;

  constructor(
    tracer: Pick<RecordKeepingTracer, "observe">,
    resource: ResourceIdentity = widgets,
    statusSubresource = true,
    readiness: ReadinessRules = defaultReadinessRules,
  ) {
    this.#tracer = tracer;
    this.#resource = resource;
    this.#statusSubresource = statusSubresource;
    this.#readiness = readiness;
  }

  step(step: Step): void {
    const observation: ObjectObservation = {
      resource: this.#resource,
      statusSubresource: this.#statusSubresource,
      readiness: this.#readiness,
      previous: this.#previous,
      current: step.object,
      nowMs: at(step.now),
      replay: step.replay ?? false,
    };
    this.#tracer.observe(observation);
    this.#previous = step.object;
  }
}

// ---------------------------------------------------------------------------
// Expected spans. Each builder fills in what every span of its kind carries
// (identity, ids, parent, start source, no links or events); a test states
// only what its history decides.

interface Ended {
  startMs: number;
  endMs: number;
  endSource: TimeSource;
  /** Further attributes (or overrides). */
  attributes?: Record<string, unknown>;
  events?: EventView[];
}

/** A `condition <type>` child: the interval `type` spent in `status` from T + `since`. */
export function conditionSpan(
  trace: TraceIds,
  c: Ended & {
    type: string;
    status: string;
    since: number;
    reason?: string;
    message?: string;
    nextStatus?: string;
  },
): SpanView {
  const attributes: Record<string, unknown> = {
    ...identity(),
    [attr.CONDITION_TYPE]: c.type,
    [attr.CONDITION_STATUS]: c.status,
    [attr.START_SOURCE]: "condition",
    [attr.CONDITION_LAST_TRANSITION_TIME]: iso(c.since),
    [attr.END_SOURCE]: c.endSource,
  };
  if (c.reason) attributes[attr.CONDITION_REASON] = c.reason;
  if (c.message) attributes[attr.CONDITION_MESSAGE] = c.message;
  if (c.nextStatus) attributes[attr.CONDITION_NEXT_STATUS] = c.nextStatus;
  return child(trace, `condition ${c.type}`, trace.condition(c.type, c.since, c.status), c, attributes);
}

/** A `phase <phase>` child, first seen at `startMs`. */
export function phaseSpan(
  trace: TraceIds,
  p: Ended & { phase: string; startSource?: TimeSource; nextPhase?: string },
): SpanView {
  const attributes: Record<string, unknown> = {
    ...identity(),
    [attr.PHASE]: p.phase,
    [attr.START_SOURCE]: p.startSource ?? "observed",
    [attr.END_SOURCE]: p.endSource,
  };
  if (p.nextPhase) attributes[attr.NEXT_PHASE] = p.nextPhase;
  return child(trace, `phase ${p.phase}`, trace.phase(p.phase, p.startMs), p, attributes);
}

/** A child of the trace's root: what every child span has in common. */
function child(
  trace: TraceIds,
  name: string,
  spanId: string,
  ended: Ended,
  attributes: Record<string, unknown>,
): SpanView {
  return {
    name,
    traceId: trace.traceId,
    spanId,
    parentSpanId: trace.root,
    startMs: ended.startMs,
    endMs: ended.endMs,
    status: "unset",
    attributes: { ...attributes, ...ended.attributes },
    links: [],
    events: ended.events ?? [],
  };
}

/** A `Widget generation` root; generations after the first link to the one before. */
export function generationSpan(
  generation: number,
  g: Ended & {
    startSource: TimeSource;
    outcome: attr.Outcome;
    status: SpanView["status"];
    observedGeneration?: number;
  },
): SpanView {
  const attributes: Record<string, unknown> = {
    ...identity(),
    [attr.K8S_OBJECT_GENERATION]: generation,
    [attr.START_SOURCE]: g.startSource,
    [attr.OUTCOME]: g.outcome,
    [attr.END_SOURCE]: g.endSource,
  };
  if (g.observedGeneration !== undefined) attributes[attr.OBSERVED_GENERATION] = g.observedGeneration;
  const ids = generationIds(generation);
  const previous = generation > 1 ? generationIds(generation - 1) : undefined;
  return {
    name: "Widget generation",
    traceId: ids.traceId,
    spanId: ids.root,
    parentSpanId: undefined,
    startMs: g.startMs,
    endMs: g.endMs,
    status: g.status,
    attributes: { ...attributes, ...g.attributes },
    links: previous
      ? [
          {
            traceId: previous.traceId,
            spanId: previous.root,
            attributes: { [attr.LINK_REASON]: "previous_generation" },
          },
        ]
      : [],
    events: g.events ?? [],
  };
}

/** A `Widget degraded` root: Ready away from True from T + `since`, within generation 1. */
export function degradedSpan(
  since: number,
  d: Ended & { status: string; reason?: string; message?: string; nextStatus: string },
): SpanView {
  const ids = degradedIds(since, d.status);
  const g1 = generationIds(1);
  const attributes: Record<string, unknown> = {
    ...identity(),
    [attr.START_SOURCE]: "condition",
    [attr.CONDITION_TYPE]: "Ready",
    [attr.CONDITION_STATUS]: d.status,
    [attr.K8S_OBJECT_GENERATION]: 1,
    [attr.CONDITION_LAST_TRANSITION_TIME]: iso(since),
    [attr.OUTCOME]: "recovered",
    [attr.END_SOURCE]: d.endSource,
    [attr.CONDITION_NEXT_STATUS]: d.nextStatus,
  };
  if (d.reason) attributes[attr.CONDITION_REASON] = d.reason;
  if (d.message) attributes[attr.CONDITION_MESSAGE] = d.message;
  return {
    name: "Widget degraded",
    traceId: ids.traceId,
    spanId: ids.root,
    parentSpanId: undefined,
    startMs: d.startMs,
    endMs: d.endMs,
    status: "ok",
    attributes: { ...attributes, ...d.attributes },
    links: [{ traceId: g1.traceId, spanId: g1.root, attributes: { [attr.LINK_REASON]: "generation" } }],
    events: d.events ?? [],
  };
}

/** The event of a reason change seen at `timeMs`. */
export function reasonChanged(timeMs: number, previous: string, reason: string, message?: string): EventView {
  const attributes: Record<string, unknown> = {
    [attr.CONDITION_PREVIOUS_REASON]: previous,
    [attr.CONDITION_REASON]: reason,
  };
  if (message) attributes[attr.CONDITION_MESSAGE] = message;
  return { name: attr.REASON_CHANGED, timeMs, attributes };
}
