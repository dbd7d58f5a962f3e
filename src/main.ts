#!/usr/bin/env node
// Entry point: flags and configuration, Kubernetes credentials, the exporter,
// configuration hot reload, and a clean shutdown on SIGINT/SIGTERM.
import { KubeConfig } from "@kubernetes/client-node";
import { runSubcommand } from "./cli/index.ts";
import { flagOverrides, parseFlags, usage } from "./config/flags.ts";
import { loadConfigFile, watchConfigFile } from "./config/load.ts";
import { ConfigError } from "./config/validate.ts";
import { startExporter } from "./exporter.ts";
import { createKubeClient } from "./kube/client.ts";
import { createLogger, isLogLevel } from "./log.ts";
import { setUpTracing } from "./tracing-setup.ts";
import { version } from "./version.ts";

function loadKubeConfig(path: string | undefined, context: string | undefined): KubeConfig {
  const kubeConfig = new KubeConfig();
  if (path) kubeConfig.loadFromFile(path);
  else kubeConfig.loadFromDefault();
  if (context) kubeConfig.setCurrentContext(context);
  const cluster = kubeConfig.getCurrentCluster();
  if (!cluster) {
    throw new Error("no Kubernetes cluster configured: set KUBECONFIG or --kubeconfig, or run inside a pod");
  }
  return kubeConfig;
}

async function main(): Promise<void> {
  const subcommandExit = await runSubcommand(process.argv.slice(2));
  if (subcommandExit !== undefined) {
    process.exitCode = subcommandExit;
    return;
  }
  const flags = parseFlags(process.argv.slice(2));
  if (flags.help) {
    process.stdout.write(usage);
    return;
  }
  if (flags.version) {
    process.stdout.write(`${version}\n`);
    return;
  }
  const overrides = flagOverrides(flags);
  const loaded = loadConfigFile(flags.config, overrides);
  const config = loaded.config;
  const logger = createLogger({ level: isLogLevel(config.logLevel) ? config.logLevel : "info" });
  const kubeConfig = loadKubeConfig(flags.kubeconfig, flags.context);
  logger.info("starting", {
    version,
    node: process.version,
    config: flags.config ?? "(defaults)",
    hash: loaded.hash,
  });

  const tracing = await setUpTracing(config, createKubeClient(kubeConfig), logger);
  const exporter = await startExporter({
    config,
    configHash: loaded.hash,
    kubeConfig,
    logger,
    ...(tracing.tracer && { tracer: tracing.tracer }),
  });
  const stopWatching = flags.config
    ? watchConfigFile(
        flags.config,
        overrides,
        (next) => void exporter.reload(next.config, next.hash),
        (error) => exporter.reloadFailed(error),
      )
    : () => {};

  let stopping = false;
  const shutdown = (signal: string): void => {
    if (stopping) return;
    stopping = true;
    logger.info("shutting down", { signal });
    stopWatching();
    const force = setTimeout(() => process.exit(1), 10_000);
    force.unref();
    void exporter
      .stop()
      .then(() => tracing.stopElection())
      .then(() => process.exit(0));
  };
  process.on("SIGINT", () => shutdown("SIGINT"));
  process.on("SIGTERM", () => shutdown("SIGTERM"));
}

main().catch((error: unknown) => {
  if (error instanceof ConfigError) {
    process.stderr.write(`${error.message}\n`);
    process.exit(2);
  }
  process.stderr.write(`cr-status-exporter: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
