// The SDK edge: NodeSDK with the OTLP/HTTP exporter, configured by the
// standard OTEL_* variables. Tracing is off unless an endpoint is configured
// (the `endpoint` option, OTEL_EXPORTER_OTLP_TRACES_ENDPOINT or
// OTEL_EXPORTER_OTLP_ENDPOINT), and off when OTEL_SDK_DISABLED=true or
// OTEL_TRACES_EXPORTER=none.
import { trace } from "@opentelemetry/api";
import { OTLPTraceExporter } from "@opentelemetry/exporter-trace-otlp-http";
import { defaultResource, resourceFromAttributes } from "@opentelemetry/resources";
import { NodeSDK } from "@opentelemetry/sdk-node";
import { ParentBasedSampler } from "@opentelemetry/sdk-trace";
import type { Logger } from "../log.ts";
import { K8S_CLUSTER_NAME } from "./attributes.ts";
import { PlannedIdGenerator } from "./ids-slot.ts";
import { type PlannerSettings, plannerSettings } from "./model.ts";
import { rootSamplerFromEnv } from "./sampler.ts";
import { SdkSpanSink } from "./sink.ts";
import { StateTracer } from "./tracer.ts";

export interface TracingOptions {
  /** Cluster name: the k8s.cluster.name resource attribute, and the salt of every trace id. */
  cluster: string;
  /** OTLP/HTTP base URL (`/v1/traces` is appended); overrides the OTEL_EXPORTER_OTLP_* endpoints. */
  endpoint?: string;
  /** service.name unless OTEL_SERVICE_NAME or OTEL_RESOURCE_ATTRIBUTES set one (default `cr-status-exporter`). */
  serviceName?: string;
  planner?: Partial<Omit<PlannerSettings, "cluster">>;
  /** Only the leader exports (see leader.ts); default: always. */
  isLeader?: () => boolean;
  /** End open root spans as `interrupted` on shutdown (default false: a restart resumes them). */
  endOpenSpansOnShutdown?: boolean;
  emittedCapacity?: number;
  /** Environment to read OTEL_* from (default process.env; the exporter itself always reads process.env). */
  env?: Record<string, string | undefined>;
  now?: () => number;
}

/** The OTLP endpoint tracing would export to, or undefined when tracing is off (with the reason). */
export function tracingEndpoint(
  options: Pick<TracingOptions, "endpoint" | "env">,
): { endpoint: string; source: string } | { endpoint: undefined; reason: string } {
  const env = options.env ?? process.env;
  if (env.OTEL_SDK_DISABLED?.trim().toLowerCase() === "true") {
    return { endpoint: undefined, reason: "OTEL_SDK_DISABLED=true" };
  }
  const exporters = (env.OTEL_TRACES_EXPORTER ?? "otlp").split(",").map((e) => e.trim());
  if (exporters.includes("none")) return { endpoint: undefined, reason: "OTEL_TRACES_EXPORTER=none" };
  const candidates: [string, string | undefined][] = [
    ["tracing endpoint option", options.endpoint],
    ["OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT],
    ["OTEL_EXPORTER_OTLP_ENDPOINT", env.OTEL_EXPORTER_OTLP_ENDPOINT],
  ];
  for (const [source, value] of candidates) {
    if (value === undefined || value.trim() === "") continue;
    let url: URL;
    try {
      url = new URL(value);
    } catch {
      throw new Error(`${source}: not a URL: "${value}"`);
    }
    if (url.protocol !== "http:" && url.protocol !== "https:") {
      throw new Error(`${source}: expected an http(s) URL of an OTLP/HTTP receiver (got "${value}")`);
    }
    return { endpoint: value, source };
  }
  return { endpoint: undefined, reason: "no OTLP endpoint configured" };
}

/**
 * Starts the OpenTelemetry SDK and returns the tracer the collectors feed, or
 * undefined when tracing is off. Throws on invalid configuration, naming the
 * variable and value.
 */
export async function createTracing(
  options: TracingOptions,
  logger: Logger,
): Promise<StateTracer | undefined> {
  const env = options.env ?? process.env;
  const target = tracingEndpoint(options);
  if (target.endpoint === undefined) {
    logger.info("tracing off", { reason: target.reason });
    return undefined;
  }
  const protocol = (env.OTEL_EXPORTER_OTLP_TRACES_PROTOCOL ?? env.OTEL_EXPORTER_OTLP_PROTOCOL)?.trim();
  if (protocol === "grpc") {
    throw new Error(
      'OTEL_EXPORTER_OTLP_PROTOCOL: "grpc" is not supported; point tracing at an OTLP/HTTP receiver',
    );
  }
  const settings = plannerSettings(options.cluster, options.planner);
  const rootSampler = rootSamplerFromEnv(env);
  const ids = new PlannedIdGenerator();
  const exporter = new OTLPTraceExporter(
    options.endpoint === undefined ? undefined : { url: `${options.endpoint.replace(/\/+$/, "")}/v1/traces` },
  );
  const serviceNameFromEnv =
    env.OTEL_SERVICE_NAME !== undefined ||
    /(^|,)\s*service\.name\s*=/.test(env.OTEL_RESOURCE_ATTRIBUTES ?? "");
  const sdk = new NodeSDK({
    resource: defaultResource().merge(resourceFromAttributes({ [K8S_CLUSTER_NAME]: options.cluster })),
    ...(serviceNameFromEnv ? {} : { serviceName: options.serviceName ?? "cr-status-exporter" }),
    traceExporter: exporter,
    sampler: new ParentBasedSampler({ root: rootSampler }),
    idGenerator: ids,
    // Only traces: no metric readers or log exporters from the environment.
    metricReaders: [],
    logRecordProcessors: [],
    instrumentations: [],
    textMapPropagator: null,
  });
  sdk.start();
  const tracer = trace.getTracer("cr-status-exporter");
  const sink = new SdkSpanSink(tracer, ids, rootSampler, async () => {
    await sdk.shutdown();
    // Let a later createTracing() in the same process register its own provider.
    trace.disable();
  });
  logger.info("tracing on", { endpoint: target.endpoint, from: target.source, cluster: options.cluster });
  const tracerOptions: ConstructorParameters<typeof StateTracer>[0] = { settings, sink, logger };
  if (options.isLeader) tracerOptions.isLeader = options.isLeader;
  if (options.endOpenSpansOnShutdown !== undefined)
    tracerOptions.endOpenSpansOnShutdown = options.endOpenSpansOnShutdown;
  if (options.emittedCapacity !== undefined) tracerOptions.emittedCapacity = options.emittedCapacity;
  if (options.now) tracerOptions.now = options.now;
  return new StateTracer(tracerOptions);
}
