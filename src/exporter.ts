// Assembles a running exporter from its parts: the collector manager (watches),
// the self-metrics registry, the HTTP server and, when configured, tracing.
// main.ts calls this with real parts; tests call it the same way against the
// test control plane.
import type { KubeConfig } from "@kubernetes/client-node";
import { CollectorManager } from "./collectors/manager.ts";
import type { CollectorDeps, StateObserver } from "./collectors/resource-collector.ts";
import type { Config } from "./config/schema.ts";
import { createKubeClient } from "./kube/client.ts";
import type { Logger } from "./log.ts";
import { createSelfMetrics, type SelfMetrics } from "./metrics/self-metrics.ts";
import { createApp, type Listening, listen } from "./server/http.ts";
import { metricsServerFactory } from "./server/secure-serving.ts";
import { type StatusWriteSources, startStatusWriteSources } from "./status-write-sources.ts";
import { version } from "./version.ts";

export interface ExporterOptions {
  config: Config;
  configHash: string;
  kubeConfig: KubeConfig;
  logger: Logger;
  /** Epoch seconds; defaults to the wall clock. */
  clock?: () => number;
  tracer?: StateObserver;
  listWatch?: CollectorDeps["listWatch"];
}

export interface Exporter {
  url: string;
  manager: CollectorManager;
  metrics: SelfMetrics;
  statusWrites: StatusWriteSources;
  /** Applies a new configuration (hot reload). */
  reload(config: Config, hash: string): Promise<void>;
  /** Records a rejected configuration. */
  reloadFailed(error: Error): void;
  stop(): Promise<void>;
}

export async function startExporter(options: ExporterOptions): Promise<Exporter> {
  const clock = options.clock ?? (() => Date.now() / 1000);
  const logger = options.logger;
  let config = options.config;
  const metrics = createSelfMetrics(config.metricPrefix, version);
  const client = createKubeClient(options.kubeConfig);
  const manager = new CollectorManager({
    client,
    metrics,
    logger,
    tracer: options.tracer,
    clock,
    listWatch: options.listWatch,
  });
  const recordConfig = (hash: string): void => {
    metrics.configHash.reset();
    metrics.configHash.set({ hash }, 1);
    metrics.configReloadSuccess.set(1);
    metrics.configReloads.inc({ result: "success" });
  };
  recordConfig(options.configHash);

  const app = createApp({
    sources: () => manager.collectors(),
    metrics,
    prefix: () => config.metricPrefix,
    readiness: () => manager.readiness(),
    logger,
    clock,
  });
  const serverFactory = metricsServerFactory(config, client, logger);
  let server: Listening;
  try {
    server = await listen(app, config.listen, serverFactory);
  } catch (error) {
    throw new Error(`cannot listen on ${config.listen}: ${(error as Error).message}`);
  }
  logger.info("serving metrics", { url: `${server.url}/metrics`, apiServer: client.server });
  let statusWrites: StatusWriteSources;
  try {
    statusWrites = await startStatusWriteSources(
      config,
      options.kubeConfig,
      client,
      metrics.registry,
      logger,
    );
  } catch (error) {
    await server.close();
    throw error;
  }
  await manager.applyConfig(config);
  // Open generation spans time out even when nothing else happens.
  const ticker = setInterval(() => options.tracer?.tick?.(Date.now()), 10_000);
  ticker.unref();
  let stopping: Promise<void> | undefined;

  return {
    url: server.url,
    manager,
    metrics,
    statusWrites,
    async reload(next, hash) {
      if (next.listen !== config.listen)
        logger.warn("listen address changes take effect after a restart", { listen: next.listen });
      if (
        JSON.stringify([next.apiProxy, next.auditReceiver, next.webConfigFile, next.metricsAuth]) !==
        JSON.stringify([config.apiProxy, config.auditReceiver, config.webConfigFile, config.metricsAuth])
      ) {
        logger.warn(
          "apiProxy, auditReceiver, webConfigFile and metricsAuth changes take effect after a restart",
        );
      }
      if (next.metricPrefix !== config.metricPrefix) {
        logger.warn("metric prefix changes of self metrics take effect after a restart", {
          prefix: next.metricPrefix,
        });
      }
      config = { ...next, listen: config.listen };
      recordConfig(hash);
      logger.info("configuration reloaded", { hash, resources: next.resources.length });
      await manager.applyConfig(config);
    },
    reloadFailed(error) {
      metrics.configReloadSuccess.set(0);
      metrics.configReloads.inc({ result: "failure" });
      logger.error("configuration rejected; keeping the previous one", { error: error.message });
    },
    stop() {
      stopping ??= (async () => {
        clearInterval(ticker);
        await server.close();
        await statusWrites.close();
        await manager.stop();
        await options.tracer?.shutdown?.();
      })();
      return stopping;
    },
  };
}
