// The API proxy as a process of its own, started by the supervisor with the
// exporter's command line: the same proxy (startApiProxy), with its own
// Kubernetes client for the kind and namespace confirmations, its own log
// lines (component "api-proxy") and its own heap. Its status-write counters
// are cumulative since this process started; the exporter reads them over
// the counters socket (counters-channel.ts) once the proxy listens and has
// written the operator's kubeconfig. It never exits on its own: SIGTERM or
// SIGINT close it (exit 0), and it ends with the supervisor.
import { randomBytes } from "node:crypto";
import { Registry } from "@prometheus-io/client";
import { flagOverrides, parseFlags } from "../../config/flags.ts";
import { loadConfigFile } from "../../config/load.ts";
import { ConfigError } from "../../config/validate.ts";
import { createKubeClient } from "../../kube/client.ts";
import { loadKubeConfig } from "../../kube/kubeconfig.ts";
import { createLogger } from "../../log.ts";
import { countersVariable, exitWithSupervisor, restartsOf } from "../../supervisor/roles.ts";
import { version } from "../../version.ts";
import { createStatusWriteMetrics } from "../metrics.ts";
import { createApiserverKindResolver } from "../proxy/apiserver-resolver.ts";
import { startConfiguredApiProxy } from "../sources.ts";
import { serveProxyCounters } from "./counters-channel.ts";

const component = { component: "api-proxy" };

async function start(): Promise<() => Promise<void>> {
  const socketPath = process.env[countersVariable];
  if (!socketPath)
    throw new Error(`${countersVariable} is not set: the API proxy process is started by the supervisor`);
  const flags = parseFlags(process.argv.slice(2));
  const loaded = loadConfigFile(flags.config, flagOverrides(flags));
  const { config } = loaded;
  if (!config.apiProxy) throw new ConfigError(["apiProxy: not configured, so there is no API proxy to run"]);
  const log = createLogger({ level: config.logLevel }, component);
  const restarts = restartsOf(process.env);
  log.info("starting", { version, node: process.version, restarts, hash: loaded.hash });
  const kubeConfig = await loadKubeConfig({ path: flags.kubeconfig, context: flags.context });
  const client = createKubeClient(kubeConfig, { logger: log });
  const registry = new Registry();
  const metrics = createStatusWriteMetrics(registry, config.metricPrefix);
  const kinds = createApiserverKindResolver((path, query) => client.request("GET", path, { query }), log);
  const proxy = await startConfiguredApiProxy(config.apiProxy, kubeConfig, kinds, metrics, log);
  let counters: Awaited<ReturnType<typeof serveProxyCounters>>;
  try {
    counters = await serveProxyCounters(
      socketPath,
      {
        instance: randomBytes(8).toString("hex"),
        startTimeSeconds: Math.round(performance.timeOrigin) / 1000,
        restarts,
        url: proxy.url,
        caPem: proxy.caPem,
        registry,
      },
      log,
    );
  } catch (error) {
    await proxy.close();
    throw new Error(`cannot serve the status-write counters: ${String(error)}`, { cause: error });
  }
  return async () => {
    await counters.close();
    await proxy.close();
  };
}

/** Runs the API proxy process; it keeps running until a signal or the supervisor's end stops it. */
export function runApiProxyProcess(): void {
  const logger = createLogger({ level: "info" }, component);
  let stop: (() => Promise<void>) | undefined;
  let stopping = false;
  const shutdown = (signal: string): void => {
    if (stopping) return;
    stopping = true;
    logger.info("shutting down", { signal });
    const force = setTimeout(() => {
      logger.error("shutdown took longer than 10 s; exiting");
      process.exit(1);
    }, 10_000);
    force.unref();
    (stop ?? (async () => {}))().then(
      () => process.exit(0),
      (error: unknown) => {
        logger.error("shutdown failed", { error: String(error) });
        process.exit(1);
      },
    );
  };
  process.on("SIGTERM", () => shutdown("SIGTERM"));
  process.on("SIGINT", () => shutdown("SIGINT"));
  exitWithSupervisor(() => shutdown("supervisor gone"));
  start().then(
    (close) => {
      stop = close;
    },
    (error: unknown) => {
      if (error instanceof ConfigError) {
        logger.error("invalid configuration", { problems: error.problems });
        process.exit(2);
      }
      logger.error("cannot start", { error: error instanceof Error ? error.message : String(error) });
      process.exit(1);
    },
  );
}
