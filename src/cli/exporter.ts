// The command line that runs the exporter (the subcommands are in index.ts):
// flags, configuration, signals and exit codes (0 ok, 1 runtime error, 2
// configuration error). Everything that runs is built by app/build.ts. Every
// line on stderr is a JSON log line, errors before the configuration is read
// included.
import { buildApp } from "../app/build.ts";
import { flagOverrides, parseFlags, usage } from "../config/flags.ts";
import { type LoadedConfig, loadConfigFile, watchConfigFile } from "../config/load.ts";
import { ConfigError } from "../config/validate.ts";
import { loadKubeConfig } from "../kube/kubeconfig.ts";
import { createLogger, type Logger } from "../log.ts";
import type { ProxyProcess } from "../statuswrites/process/remote-sources.ts";
import { childRole, countersVariable, exitWithSupervisor, restartsOf } from "../supervisor/roles.ts";
import { resolveTracingTarget, rootSampling } from "../tracing/otel-env.ts";
import { version } from "../version.ts";
import { runSubcommand } from "./index.ts";

const exitCode = { ok: 0, runtime: 1, config: 2 } as const;

/** Under the supervisor, the API proxy is a process of its own: where its counters are read. */
function proxyProcessOf(env: NodeJS.ProcessEnv): ProxyProcess | undefined {
  const socketPath = env[countersVariable];
  if (childRole(env) !== "exporter" || !socketPath) return undefined;
  return { socketPath, exporterRestarts: restartsOf(env) };
}

/** The OTEL_* variables are configuration too: check them with the file. */
function checkTracingEnvironment(loaded: LoadedConfig): string {
  const target = resolveTracingTarget(loaded.config.tracing, process.env);
  if (target.on) rootSampling(process.env);
  return target.on ? `on (${target.otlp.protocol} to ${target.otlp.url})` : `off (${target.reason})`;
}

async function main(logger: Logger): Promise<number | "running"> {
  const subcommandExit = await runSubcommand(process.argv.slice(2));
  if (subcommandExit !== undefined) return subcommandExit;
  const flags = parseFlags(process.argv.slice(2));
  if (flags.help) {
    process.stdout.write(usage);
    return exitCode.ok;
  }
  if (flags.version) {
    process.stdout.write(`${version}\n`);
    return exitCode.ok;
  }
  const overrides = flagOverrides(flags);
  if (flags.checkConfig !== undefined) {
    const loaded = loadConfigFile(flags.checkConfig, overrides);
    const tracing = checkTracingEnvironment(loaded);
    logger.info("configuration is valid", { config: flags.checkConfig, hash: loaded.hash, tracing });
    return exitCode.ok;
  }
  const loaded = loadConfigFile(flags.config, overrides);
  const log = createLogger({ level: loaded.config.logLevel });
  log.info("starting", {
    version,
    node: process.version,
    config: flags.config ?? "(defaults)",
    hash: loaded.hash,
    ...(childRole(process.env) && { restarts: restartsOf(process.env) }),
  });
  const kubeConfig = await loadKubeConfig({ path: flags.kubeconfig, context: flags.context });
  const app = await buildApp(loaded.config, {
    kubeConfig,
    logger: log,
    configHash: loaded.hash,
    proxyProcess: proxyProcessOf(process.env),
  });
  // Handlers before start(): a SIGTERM right after "serving metrics" is logged must stop the exporter cleanly too.
  let stopWatching = (): void => {};
  let stopping = false;
  const shutdown = (signal: string): void => {
    if (stopping) return;
    stopping = true;
    log.info("shutting down", { signal });
    stopWatching();
    const force = setTimeout(() => {
      log.error("shutdown took longer than 10 s; exiting");
      process.exit(exitCode.runtime);
    }, 10_000);
    force.unref();
    app.stop().then(
      () => process.exit(exitCode.ok),
      (error: unknown) => {
        log.error("shutdown failed", { error: String(error) });
        process.exit(exitCode.runtime);
      },
    );
  };
  process.on("SIGINT", () => shutdown("SIGINT"));
  process.on("SIGTERM", () => shutdown("SIGTERM"));
  if (childRole(process.env) === "exporter") exitWithSupervisor(() => shutdown("supervisor gone"));
  await app.start();
  if (stopping) return "running";
  if (flags.config)
    stopWatching = watchConfigFile(
      flags.config,
      overrides,
      (next) => void app.reload(next.config, next.hash),
      (error) => app.reloadFailed(error),
    );
  return "running";
}

/** Runs the command line; the process keeps running while the exporter does. */
export function runCli(): void {
  // Until the configuration names a level, errors are logged at the default one.
  const startupLogger = createLogger({ level: "info" });
  main(startupLogger).then(
    (result) => {
      if (result !== "running") process.exitCode = result;
    },
    (error: unknown) => {
      if (error instanceof ConfigError) {
        startupLogger.error("invalid configuration", { problems: error.problems });
        process.exit(exitCode.config);
      }
      startupLogger.error("cannot start", { error: error instanceof Error ? error.message : String(error) });
      process.exit(exitCode.runtime);
    },
  );
}
