// Builders and an in-memory SDK for the tracing unit tests: ObjectState
// values, histories fed through a real StateTracer, and the spans exactly as
// the OpenTelemetry SDK finished them.
import type { Sampler } from "@opentelemetry/api";
import {
  AlwaysOnSampler,
  InMemorySpanExporter,
  ParentBasedSampler,
  type ReadableSpan,
  SimpleSpanProcessor,
  TracerProvider,
} from "@opentelemetry/sdk-trace";
import type { ConditionState, ObjectState, ResourceIdentity } from "../../../src/core/state.ts";
import { silentLogger } from "../../../src/log.ts";
import * as attr from "../../../src/tracing/attributes.ts";
import { degradedTraceKey, generationTraceKey, spanIdOf, traceIdOf } from "../../../src/tracing/ids.ts";
import { PlannedIdGenerator } from "../../../src/tracing/ids-slot.ts";
import { type PlannerSettings, plannerSettings } from "../../../src/tracing/model.ts";
import type { ObjectObservation } from "../../../src/tracing/observation.ts";
import { SdkSpanSink } from "../../../src/tracing/sink.ts";
import { StateTracer, type TracerOptions } from "../../../src/tracing/tracer.ts";

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
    heartbeat: undefined,
    specChangedAt: T,
    extraLabels: {},
    metaDigest: 0,
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
  return { type, status, reason, message, lastTransitionTime: T + since, observedGeneration };
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

/** The deterministic ids of one generation trace. */
export function generationIds(generation: number, uid = "uid-1") {
  const key = generationTraceKey(cluster, uid, generation);
  return {
    traceId: traceIdOf(key),
    root: spanIdOf(key, "root"),
    condition: (type: string, since: number, status: string) =>
      spanIdOf(key, `cond=${type}|since=${T + since}|status=${status}`),
    phase: (name: string, sinceMs: number) => spanIdOf(key, `phase=${name}|since=${sinceMs}`),
  };
}

/** The deterministic ids of one degraded trace (the ready condition left True at T + `since`). */
export function degradedIds(since: number, status: string, uid = "uid-1") {
  const key = degradedTraceKey(cluster, uid, "Ready", `${T + since}|${status}`);
  return { traceId: traceIdOf(key), root: spanIdOf(key, "root") };
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
  };
}

export interface MemoryTracing {
  tracer: StateTracer;
  exporter: InMemorySpanExporter;
  /** Spans finished so far, in the order they ended; clears the exporter. */
  take(): SpanView[];
}

export function memoryTracing(
  options: {
    settings?: Partial<Omit<PlannerSettings, "cluster">>;
    rootSampler?: Sampler;
    tracer?: Partial<Omit<TracerOptions, "settings" | "sink" | "logger">>;
  } = {},
): MemoryTracing {
  const exporter = new InMemorySpanExporter();
  const ids = new PlannedIdGenerator();
  const rootSampler = options.rootSampler ?? new AlwaysOnSampler();
  const provider = new TracerProvider({
    idGenerator: ids,
    sampler: new ParentBasedSampler({ root: rootSampler }),
    spanProcessors: [new SimpleSpanProcessor({ exporter })],
  });
  const sink = new SdkSpanSink(provider.getTracer("test"), ids, rootSampler, () => provider.shutdown());
  const tracer = new StateTracer({
    settings: plannerSettings(cluster, options.settings),
    sink,
    logger: silentLogger,
    ...options.tracer,
  });
  return {
    tracer,
    exporter,
    take() {
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
  readonly #tracer: StateTracer;
  readonly #resource: ResourceIdentity;
  readonly #statusSubresource: boolean;
  #previous: ObjectState | undefined;

  constructor(tracer: StateTracer, resource: ResourceIdentity = widgets, statusSubresource = true) {
    this.#tracer = tracer;
    this.#resource = resource;
    this.#statusSubresource = statusSubresource;
  }

  step(step: Step): void {
    const observation: ObjectObservation = {
      resource: this.#resource,
      statusSubresource: this.#statusSubresource,
      previous: this.#previous,
      current: step.object,
      now: at(step.now),
      replay: step.replay ?? false,
    };
    this.#tracer.observe(observation);
    this.#previous = step.object;
  }
}
