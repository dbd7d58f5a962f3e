// The OTLP metrics export as a part of the app: every family /metrics serves,
// pushed over OTLP/HTTP every interval (docs/otlp-metrics.md), by the one
// replica of a shard that holds the Lease when one is configured (the tracing
// Lease's elector is shared when both name the same Lease). Started after the
// collectors and stopped before them, so the last flush still reads the
// stores. The OpenTelemetry modules are loaded only when the export is on.
import { hostname } from "node:os";
import type { Registry } from "@prometheus-io/client";
import type { Config } from "../config/schema.ts";
import type { KubeClient } from "../kube/client.ts";
import type { LeaseElector } from "../kube/lease-elector.ts";
import type { Logger } from "../log.ts";
import type { SeriesSource } from "../metrics/writer.ts";
import type { ExportReport } from "../otlp-metrics/exporter.ts";
import { registerOtlpMetricsMetrics } from "../otlp-metrics/metrics.ts";
import { keyValueList, resolveOtlpMetrics } from "../otlp-metrics/settings.ts";
import type { Environment } from "../tracing/otel-env.ts";
import { version } from "../version.ts";
import { type Component, changed } from "./component.ts";
import { leaseElector, shardLeaseName, type TracingParts } from "./tracing.ts";

export interface OtlpMetricsDeps {
  client: KubeClient;
  registry: Registry;
  logger: Logger;
  env: Environment;
  /** Epoch milliseconds. */
  nowMs: () => number;
  /** What /metrics writes, read at every export. */
  sources: () => readonly SeriesSource[];
  /** The tracing Lease, shared when the export names the same one. */
  tracingElector: TracingParts["elector"];
}

export interface OtlpMetricsPart extends Component {
  /** Undefined when the export is off. */
  readonly exporter:
    | { exportNow(): Promise<ExportReport>; readonly lastReport: ExportReport | undefined }
    | undefined;
}

/** The resource attributes of every export: ours, then OTEL_RESOURCE_ATTRIBUTES, then OTEL_SERVICE_NAME. */
export function resourceAttributes(env: Environment): Record<string, string> {
  const pod = env.POD_NAME?.trim();
  return {
    "service.name": "cr-status-exporter",
    "service.version": version,
    "service.instance.id": pod || hostname(),
    ...(pod && { "k8s.pod.name": pod }),
    ...keyValueList("OTEL_RESOURCE_ATTRIBUTES", env.OTEL_RESOURCE_ATTRIBUTES),
    ...(env.OTEL_SERVICE_NAME?.trim() && { "service.name": env.OTEL_SERVICE_NAME.trim() }),
  };
}

/** The Lease that lets one replica (of a shard) push: the tracing one when both name the same, else its own. */
function electorFor(
  config: Config,
  deps: OtlpMetricsDeps,
): { elector: LeaseElector; own: boolean } | undefined {
  const m = config.otlpMetrics;
  const name = shardLeaseName(m.leaseName, config.sharding);
  const shared = deps.tracingElector;
  // The tracing elector always has a name and a namespace, so an unset one here never matches it.
  if (shared && shared.name === name && shared.namespace === m.leaseNamespace) {
    return { elector: shared.elector, own: false };
  }
  // Undefined without a name and a namespace: then every replica pushes.
  const elector = leaseElector(name, m.leaseNamespace, deps);
  return elector && { elector, own: true };
}

export async function buildOtlpMetrics(config: Config, deps: OtlpMetricsDeps): Promise<OtlpMetricsPart> {
  const { logger } = deps;
  const decision = resolveOtlpMetrics(config.otlpMetrics, deps.env);
  const reload = async (next: Config, previous: Config): Promise<void> => {
    if (changed(next, previous, (c) => c.otlpMetrics)) {
      logger.warn("otlpMetrics changes take effect after a restart");
    }
  };
  if (!decision.on) {
    logger.info("OTLP metrics export off", { reason: decision.reason });
    const idle = async (): Promise<void> => {};
    return { name: "otlp metrics", start: idle, reload, stop: idle, exporter: undefined };
  }
  const { settings } = decision;
  if (settings.target.warning) logger.warn("OTLP metrics endpoint", { warning: settings.target.warning });
  const lease = electorFor(config, deps);
  const metrics = registerOtlpMetricsMetrics(deps.registry, config.metricPrefix);
  const [{ OtlpMetricsExporter }, { resourceFromAttributes }] = await Promise.all([
    import("../otlp-metrics/exporter.ts"),
    import("@opentelemetry/resources"),
  ]);
  const exporter = new OtlpMetricsExporter({
    settings,
    sources: deps.sources,
    registry: deps.registry,
    resource: resourceFromAttributes(resourceAttributes(deps.env)),
    version,
    ...(lease && { isLeader: () => lease.elector.isLeader() }),
    metrics,
    logger,
    nowMs: deps.nowMs,
    startMs: deps.nowMs(),
  });
  return {
    name: "otlp metrics",
    exporter,
    async start() {
      if (lease?.own) lease.elector.start();
      exporter.start();
      logger.info("OTLP metrics export on", {
        url: settings.target.url,
        protocol: settings.target.protocol,
        from: settings.target.source,
        intervalMs: settings.intervalMs,
        compression: settings.compression,
        leaderElection: lease
          ? `${config.otlpMetrics.leaseNamespace}/${shardLeaseName(config.otlpMetrics.leaseName, config.sharding)}`
          : "off",
      });
    },
    reload,
    async stop() {
      // The last flush, while this replica still holds the Lease.
      await exporter.stop();
      if (lease?.own) await lease.elector.stop();
    },
  };
}
