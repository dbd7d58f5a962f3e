// The SDK edge: the OpenTelemetry NodeSDK (resource, span limits and batching
// from the standard OTEL_* variables), exporting over OTLP/HTTP in the
// protocol otel-env.ts decided, or through span processors the caller gives
// (tests use an in-memory exporter this way). Loaded only when tracing is on:
// the SDK and its exporters are a large part of an idle process's memory.
import { ProxyTracerProvider, type Sampler, type TracerProvider, trace } from "@opentelemetry/api";
import { OTLPTraceExporter as OtlpJsonExporter } from "@opentelemetry/exporter-trace-otlp-http";
import { OTLPTraceExporter as OtlpProtobufExporter } from "@opentelemetry/exporter-trace-otlp-proto";
import { defaultResource, resourceFromAttributes } from "@opentelemetry/resources";
import { NodeSDK } from "@opentelemetry/sdk-node";
import {
  AlwaysOffSampler,
  AlwaysOnSampler,
  ParentBasedSampler,
  type SpanExporter,
  type SpanProcessor,
  TraceIdRatioBasedSampler,
} from "@opentelemetry/sdk-trace";
import type { Logger } from "../log.ts";
import { K8S_CLUSTER_NAME } from "./attributes.ts";
import type { TracingMetrics } from "./metrics.ts";
import type { Environment, OtlpTarget, RootSampling } from "./otel-env.ts";
import { PlannedIdGenerator } from "./planned-id-generator.ts";
import { type PlannerSettings, plannerSettings } from "./planner/model.ts";
import { createStateTracer, type StateTracerOptions } from "./planning-tracer.ts";
import { SdkSpanSink } from "./sdk-span-sink.ts";
import type { StateTracer } from "./state-tracer.ts";

export interface TracingOptions {
  /** Cluster name: the k8s.cluster.name resource attribute, and the salt of every trace id. */
  cluster: string;
  /** Where spans go: an OTLP/HTTP receiver, or span processors of the caller's own. */
  destination: { otlp: OtlpTarget } | { spanProcessors: SpanProcessor[] };
  /** How root spans are sampled (otel-env.ts rootSampling); children follow their root. */
  sampling: RootSampling;
  /** service.name unless OTEL_SERVICE_NAME or OTEL_RESOURCE_ATTRIBUTES set one (default `cr-status-exporter`). */
  serviceName?: string;
  planner?: Partial<Omit<PlannerSettings, "cluster">>;
  /** Only the leader exports (see kube/lease-elector.ts); default: always. */
  isLeader?: () => boolean;
  /** End open root spans as `interrupted` on shutdown (default false: a restart resumes them). */
  endOpenSpansOnShutdown?: boolean;
  emittedCapacity?: number;
  /** Epoch milliseconds; default: the wall clock. */
  nowMs?: () => number;
  metrics?: TracingMetrics;
  /** Where OTEL_SERVICE_NAME and OTEL_RESOURCE_ATTRIBUTES are read for the service name (the SDK reads the rest of OTEL_* from process.env). */
  env: Environment;
  logger: Logger;
}

export function rootSampler(sampling: RootSampling): Sampler {
  switch (sampling.kind) {
    case "always_on":
      return new AlwaysOnSampler();
    case "always_off":
      return new AlwaysOffSampler();
    case "ratio":
      return new TraceIdRatioBasedSampler(sampling.ratio);
  }
}

/** ExportResultCode.SUCCESS of @opentelemetry/core. */
const exportSucceeded = 0;

/** The exporter for the target's protocol, counting the spans it fails to deliver and logging when that starts and stops. */
function otlpExporter(target: OtlpTarget, metrics: TracingMetrics | undefined, logger: Logger): SpanExporter {
  const exporter =
    target.protocol === "http/json"
      ? new OtlpJsonExporter({ url: target.url })
      : new OtlpProtobufExporter({ url: target.url });
  let failing = false;
  return {
    export(spans, done) {
      exporter.export(spans, (result) => {
        const ok = result.code === exportSucceeded;
        if (!ok) metrics?.spansExportFailed.inc(spans.length);
        if (ok === failing) {
          failing = !ok;
          if (failing) logger.warn("spans not exported", { url: target.url, error: result.error });
          else logger.info("spans exported again", { url: target.url });
        }
        done(result);
      });
    },
    shutdown: () => exporter.shutdown(),
    forceFlush: () => exporter.forceFlush(),
  };
}

/** The provider NodeSDK.start() registered, so spans keep going to it whatever is registered later. */
function startedProvider(): TracerProvider & { forceFlush?: () => Promise<void> } {
  const global = trace.getTracerProvider();
  return global instanceof ProxyTracerProvider ? global.getDelegate() : global;
}

/**
 * Starts the OpenTelemetry SDK and returns the tracer the collectors feed.
 * The SDK registers its provider globally; a second call in the same process
 * (tests) replaces that registration, and each tracer keeps exporting through
 * its own provider.
 */
export function createTracing(options: TracingOptions): StateTracer {
  const { env, logger } = options;
  const settings = plannerSettings(options.cluster, options.planner);
  const sampler = rootSampler(options.sampling);
  const ids = new PlannedIdGenerator();
  // OTEL_SERVICE_NAME, else service.name in OTEL_RESOURCE_ATTRIBUTES (the SDK reads those), else ours.
  const serviceName =
    env.OTEL_SERVICE_NAME ??
    (/(^|,)\s*service\.name\s*=/.test(env.OTEL_RESOURCE_ATTRIBUTES ?? "")
      ? undefined
      : (options.serviceName ?? "cr-status-exporter"));
  const destination =
    "otlp" in options.destination
      ? { traceExporter: otlpExporter(options.destination.otlp, options.metrics, logger) }
      : { spanProcessors: options.destination.spanProcessors };
  const sdk = new NodeSDK({
    resource: defaultResource().merge(resourceFromAttributes({ [K8S_CLUSTER_NAME]: options.cluster })),
    ...(serviceName !== undefined && { serviceName }),
    ...destination,
    sampler: new ParentBasedSampler({ root: sampler }),
    idGenerator: ids,
    // Only traces: no metric readers or log exporters from the environment.
    metricReaders: [],
    logRecordProcessors: [],
    instrumentations: [],
    textMapPropagator: null,
  });
  trace.disable();
  sdk.start();
  const provider = startedProvider();
  const shutdown = async (): Promise<void> => {
    // A span waits for the resource's asynchronous attributes before it is
    // exported; flushing first means every span planned so far is handed over.
    try {
      await provider.forceFlush?.();
      await sdk.shutdown();
    } catch (error) {
      logger.warn("tracing shut down with spans not exported", { error });
    }
  };
  const sink = new SdkSpanSink(provider.getTracer("cr-status-exporter"), ids, sampler, shutdown);
  const tracerOptions: StateTracerOptions = { settings, sink, logger };
  if (options.isLeader) tracerOptions.isLeader = options.isLeader;
  if (options.endOpenSpansOnShutdown !== undefined) {
    tracerOptions.endOpenSpansOnShutdown = options.endOpenSpansOnShutdown;
  }
  if (options.emittedCapacity !== undefined) tracerOptions.emittedCapacity = options.emittedCapacity;
  if (options.nowMs) tracerOptions.nowMs = options.nowMs;
  if (options.metrics) tracerOptions.metrics = options.metrics;
  return createStateTracer(tracerOptions);
}
