// The composition root: builds every part of a running exporter from the
// configuration and the injected dependencies (credentials, logger, clock,
// environment), with one Kubernetes client and one clock for all of them.
// main.ts runs it with real parts; tests run it the same way against the test
// control plane. The components, in start order:
//   tracing        the tracer and its Lease elector (the collectors feed it)
//   sharding       which objects are this process's (a StatefulSet pod's shard
//                  is read before anything serves, and followed as it scales)
//   http           /metrics, /healthz, /readyz, the status page (/) and its API (/api/v1/)
//   status writes  the sidecar API proxy and the audit receiver, when configured
//   collectors     the CRD watch and one list/watch per selected resource
//   otlp metrics   every family of /metrics pushed over OTLP, when asked for
//   tracing clock  ends open root spans whose timeout passed
// stop() runs their stops in the reverse order; reload() hands each the new
// configuration in start order.
import type { KubeConfig } from "@kubernetes/client-node";
import type { SpanProcessor } from "@opentelemetry/sdk-trace";
import { CollectorManager } from "../collectors/manager.ts";
import type { CollectorDeps } from "../collectors/resource-collector.ts";
import { storeViewSource } from "../collectors/view-source.ts";
import type { Config } from "../config/schema.ts";
import { mayGainObjects } from "../core/shard.ts";
import { createKubeClient, type KubeClient } from "../kube/client.ts";
import type { Logger } from "../log.ts";
import { createSelfMetrics, type SelfMetrics } from "../metrics/self-metrics.ts";
import { createApp, type Listening, listen } from "../server/http.ts";
import { metricsServerFactory } from "../server/secure-serving.ts";
import { statusRoutes } from "../server/status-routes.ts";
import type { ProxyProcess } from "../statuswrites/process/remote-sources.ts";
import type { Environment } from "../tracing/otel-env.ts";
import type { StateTracer } from "../tracing/state-tracer.ts";
import { version } from "../version.ts";
import { type Component, startInOrder, stopInReverse } from "./component.ts";
import { buildOtlpMetrics, type OtlpMetricsPart } from "./otlp-metrics.ts";
import { buildSharding, type Sharding } from "./sharding.ts";
import { buildStatusWriteSources, type StatusWriteSources } from "./status-writes.ts";
import { buildTracing } from "./tracing.ts";

export interface AppDeps {
  kubeConfig: KubeConfig;
  /** The client every part shares; default: one made from kubeConfig (tests pass a scripted API). */
  client?: KubeClient;
  logger: Logger;
  /** sha256 prefix of the configuration file (for cr_exporter_config_hash). */
  configHash: string;
  /** Epoch seconds; default: the wall clock. Tracing reads the same clock in milliseconds. */
  nowSeconds?: () => number;
  /** Where OTEL_* and POD_NAME are read from; default: process.env. */
  env?: Environment;
  /** Overrides for the list/watch loops (tests shorten timeouts). */
  listWatch?: CollectorDeps["listWatch"];
  /** Span processors instead of the OTLP exporter: tracing is then on (tests). */
  spanProcessors?: SpanProcessor[];
  /** How often open root spans are checked against their timeout (default 10 s). */
  tracingTickIntervalMs?: number;
  /**
   * Set under the supervisor (src/supervisor/): the API proxy runs in a process
   * of its own, and its counters are read from it instead of starting it here.
   */
  proxyProcess?: ProxyProcess | undefined;
}

export interface App {
  /** In start order. */
  readonly components: readonly Component[];
  readonly metrics: SelfMetrics;
  readonly manager: CollectorManager;
  readonly sharding: Pick<Sharding, "assignment" | "owns">;
  /** Undefined when tracing is off. */
  readonly tracer: StateTracer | undefined;
  /** Undefined when the OTLP metrics export is off. */
  readonly otlpMetrics: OtlpMetricsPart["exporter"];
  readonly statusWrites: Pick<StatusWriteSources, "proxyUrl" | "proxyCaPem" | "auditUrl">;
  /** Base URL of /metrics, /healthz, /readyz, the status page and its API; set by start(). */
  readonly url: string;
  start(): Promise<void>;
  /** Applies a new configuration (hot reload). */
  reload(config: Config, hash: string): Promise<void>;
  /** Records a rejected configuration; the running one stays. */
  reloadFailed(error: Error): void;
  stop(): Promise<void>;
}

// biome-ignore lint/complexity/noExcessiveLinesPerFunction: the composition root: every component built and wired in one place, in start order
export async function buildApp(initial: Config, deps: AppDeps): Promise<App> {
  const { logger } = deps;
  const nowSeconds = deps.nowSeconds ?? (() => Date.now() / 1000);
  const nowMs = (): number => nowSeconds() * 1000;
  let config = initial;
  const metrics = createSelfMetrics(config.metricPrefix, version);
  const client = deps.client ?? createKubeClient(deps.kubeConfig, { logger });
  const recordConfig = (hash: string): void => {
    metrics.configHash.reset();
    metrics.configHash.set({ hash }, 1);
    metrics.configReloadSuccess.set(1);
    metrics.configReloads.inc({ result: "success" });
  };

  const tracing = await buildTracing(config, {
    client,
    registry: metrics.registry,
    logger,
    env: deps.env ?? process.env,
    nowMs,
    spanProcessors: deps.spanProcessors,
    tickIntervalMs: deps.tracingTickIntervalMs ?? 10_000,
    // The records live in the collectors' store entries; the manager is built next, with the tracer.
    records: { tick: (nowMs) => manager.tickTraces(nowMs), open: () => manager.openTraces },
  });
  const sharding = buildSharding(config, { client, metrics, logger, listWatch: deps.listWatch });
  const manager = new CollectorManager({
    client,
    metrics,
    logger,
    tracer: tracing.tracer,
    joins: tracing.tracer
      ? {
          traceContextAnnotation: config.tracing.traceContextAnnotation,
          acrossShards: config.tracing.joinAcrossShards,
        }
      : undefined,
    clock: nowSeconds,
    owns: sharding.owns,
    shardSelector: sharding.shardSelector,
    sharded: () => sharding.assignment.total > 1,
    listWatch: deps.listWatch,
  });
  // A selector names the range: asked for by the apiserver, a new range is listed again whatever it gains.
  sharding.onChange(
    (next, previous) =>
      void manager.reshard(sharding.shardSelector() !== undefined || mayGainObjects(previous, next)),
  );

  // Both read the configuration per request: a reload of statusPage applies at once.
  const statusSource = storeViewSource({
    collectors: () => manager.collectors(),
    tracer: tracing.tracer,
    settings: () => config.statusPage,
    clock: nowSeconds,
  });
  let server: Listening | undefined;
  const http: Component = {
    name: "http",
    async start() {
      const app = createApp({
        sources: () => manager.collectors().flatMap((c) => c.sources),
        metrics,
        prefix: () => config.metricPrefix,
        readiness: () => {
          const readiness = manager.readiness();
          const apiProxy = statusWrites.notReady();
          return apiProxy ? { ...readiness, ready: false, apiProxy } : readiness;
        },
        logger,
        routes: [statusRoutes({ source: statusSource, settings: () => config.statusPage })],
      });
      try {
        server = await listen(app, config.listen, metricsServerFactory(config, client, logger));
      } catch (error) {
        throw new Error(`cannot listen on ${config.listen}: ${(error as Error).message}`, { cause: error });
      }
      logger.info("serving metrics", {
        url: `${server.url}/metrics`,
        statusPage: `${server.url}/`,
        apiServer: client.server,
      });
    },
    async reload(next, previous) {
      if (next.listen !== previous.listen) {
        logger.warn("listen address changes take effect after a restart", { listen: next.listen });
      }
      if (
        JSON.stringify([next.webConfigFile, next.metricsAuth]) !==
        JSON.stringify([previous.webConfigFile, previous.metricsAuth])
      ) {
        logger.warn("webConfigFile and metricsAuth changes take effect after a restart");
      }
      if (next.metricPrefix !== previous.metricPrefix) {
        logger.warn("metric prefix changes of self metrics take effect after a restart", {
          prefix: next.metricPrefix,
        });
      }
    },
    async stop() {
      await server?.close();
    },
  };
  const statusWrites = buildStatusWriteSources(config, {
    kubeConfig: deps.kubeConfig,
    client,
    registry: metrics.registry,
    logger,
    proxyProcess: deps.proxyProcess,
  });
  const collectors: Component = {
    name: "collectors",
    start: () => manager.applyConfig(config),
    reload: (next) => manager.applyConfig(next),
    stop: () => manager.stop(),
  };
  const otlpMetrics = await buildOtlpMetrics(config, {
    client,
    registry: metrics.registry,
    logger,
    env: deps.env ?? process.env,
    nowMs,
    sources: () => manager.collectors().flatMap((c) => c.sources),
    tracingElector: tracing.elector,
  });
  const components = [tracing.tracing, sharding, http, statusWrites, collectors, otlpMetrics, tracing.clock];

  let stopping: Promise<void> | undefined;
  return {
    components,
    metrics,
    manager,
    sharding,
    tracer: tracing.tracer,
    otlpMetrics: otlpMetrics.exporter,
    statusWrites,
    get url() {
      if (!server) throw new Error("the exporter is not started");
      return server.url;
    },
    async start() {
      recordConfig(deps.configHash);
      await startInOrder(components);
    },
    async reload(next, hash) {
      const previous = config;
      // The server stays bound where it is (its reload says so).
      config = { ...next, listen: previous.listen };
      recordConfig(hash);
      logger.info("configuration reloaded", { hash, resources: next.resources.length });
      for (const component of components) await component.reload(next, previous);
    },
    reloadFailed(error) {
      metrics.configReloadSuccess.set(0);
      metrics.configReloads.inc({ result: "failure" });
      logger.error("configuration rejected; keeping the previous one", { error: error.message });
    },
    stop() {
      stopping ??= stopInReverse(components);
      return stopping;
    },
  };
}
