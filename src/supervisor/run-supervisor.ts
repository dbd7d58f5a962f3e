// The supervisor as the container's main process (main.ts starts it when
// apiProxy is configured): two children, each `node <same flags> main.ts <same
// arguments>` with a role in its environment — the API proxy
// (statuswrites/process/proxy-process.ts) and the exporter (cli/exporter.ts).
// Their stdout and stderr are the container's own (inherited: no log line
// passes through here), and the IPC channel each is started with only tells it
// when the supervisor is gone. Restarts, signals and the exit code are
// supervisor.ts's. Nothing else runs here: no server, no Kubernetes client.
import { spawn } from "node:child_process";
import { setPriority, totalmem } from "node:os";
import { createLogger, isLogLevel, type Logger } from "../log.ts";
import { countersSocketPath, countersVariable, restartsVariable, roleVariable } from "./roles.ts";
import {
  type ChildExit,
  type ChildName,
  type RestartPolicy,
  type RunningChild,
  Supervisor,
  type SupervisorClock,
} from "./supervisor.ts";

/**
 * The proxy's V8 heap: it holds its connections' state, error-body prefixes,
 * discovery documents, the namespace list (at most 10,000 names) and the
 * status-write series (at most 10,000); bodies stream through outside the
 * heap. Past it, V8 ends the proxy process alone and it is restarted.
 */
export const proxyHeapMiB = 96;
/** Its old generation grows from here (the exporter's 64 MiB start is for its initial list). */
const proxyInitialHeapMiB = 16;

/** Heap-size flags meant for the exporter; the proxy gets its own limit instead. */
const heapFlag =
  /^--(max-old-space-size|max-old-space-size-percentage|initial-old-space-size|max-heap-size)(=|$)/;

/**
 * Container memory set aside for the supervisor (about 24 MiB) and the proxy
 * (its heap limit and what it holds outside the heap) when the exporter's heap
 * is sized as a share of the container's memory limit.
 */
export const reservedMiB = 160;
const smallestExporterHeapMiB = 64;

/**
 * The exporter process's niceness. The proxy is on the operator's critical
 * path, the exporter's work can wait: when both want the container's CPU (a
 * scrape at 50k objects, audit batches, a relist after a restart), the kernel
 * gives the proxy about nine tenths of it (CFS weights 1024 against 110).
 * Raising one's own children's niceness needs no privilege.
 */
export const exporterNiceness = 10;

/** Gives the exporter process exporterNiceness; a refusal is logged, the exporter runs on. */
export function lowerPriority(pid: number | undefined, logger: Logger): void {
  if (pid === undefined) return;
  try {
    setPriority(pid, exporterNiceness);
  } catch (error) {
    logger.warn("cannot lower the exporter process's priority", { pid, error: String(error) });
  }
}

/**
 * The node flags each child starts with: the supervisor's own, except for the
 * heap. The proxy gets proxyHeapMiB. A share of the container's memory given to
 * the exporter (--max-old-space-size-percentage, as the image does) is taken
 * of the limit less what the other two processes need, so that the exporter's
 * heap, not the container, runs out first: V8 then ends the exporter alone and
 * it is restarted, where the kernel's OOM killer would end the whole container.
 */
export function nodeFlagsFor(
  name: ChildName,
  execArgv: readonly string[],
  memoryLimitBytes: number | undefined,
): string[] {
  if (name === "api-proxy") {
    // main.ts adds a runtime flag that is missing by starting again (execve), which would also close
    // the channel to the supervisor: the proxy's initial old space is set, smaller.
    return [
      ...execArgv.filter((flag) => !heapFlag.test(flag)),
      `--max-old-space-size=${proxyHeapMiB}`,
      `--initial-old-space-size=${proxyInitialHeapMiB}`,
    ];
  }
  const share = execArgv
    .map((flag) => /^--max-old-space-size-percentage=(\d+(?:\.\d+)?)$/.exec(flag)?.[1])
    .find((p) => p !== undefined);
  const absolute = execArgv.some((flag) => /^--max-old-space-size=/.test(flag));
  if (share === undefined || absolute || memoryLimitBytes === undefined) return [...execArgv];
  const limitMiB = memoryLimitBytes / 1024 / 1024;
  const heapMiB = Math.max(
    smallestExporterHeapMiB,
    Math.floor(((limitMiB - reservedMiB) * Number(share)) / 100),
  );
  return [
    ...execArgv.filter((flag) => !flag.startsWith("--max-old-space-size-percentage=")),
    `--max-old-space-size=${heapMiB}`,
  ];
}

/** The container's memory limit (cgroup), undefined when there is none. */
export function memoryLimit(): number | undefined {
  return memoryLimitOf(process.constrainedMemory(), totalmem());
}

/**
 * The memory limit from what Node reports: no cgroup limit reads as 0, and an
 * unlimited cgroup as a huge number (at least the machine's memory).
 */
export function memoryLimitOf(constrained: number, machineBytes: number): number | undefined {
  return constrained > 0 && constrained < machineBytes ? constrained : undefined;
}

/**
 * Restarted within 100 ms, then after twice as long for each further exit
 * before a run of a minute: the proxy at most 5 s later (the operator waits
 * for it), the exporter at most 60 s (each start lists every watched object).
 */
export const restartPolicies: Readonly<Record<ChildName, RestartPolicy>> = {
  "api-proxy": { firstDelayMs: 100, maxDelayMs: 5_000, stableAfterMs: 60_000 },
  exporter: { firstDelayMs: 100, maxDelayMs: 60_000, stableAfterMs: 60_000 },
};

/** The children, in the order they are started: the exporter's requests go through the proxy. */
export const childNames: readonly ChildName[] = ["api-proxy", "exporter"];

/** The event loop's timers and the monotonic clock. */
export const realClock: SupervisorClock = {
  now: () => performance.now(),
  setTimeout: (run, ms) => setTimeout(run, ms),
  clearTimeout: (handle) => clearTimeout(handle as NodeJS.Timeout),
};

/** What every child is started with. */
export interface ChildLaunch {
  /** main.ts, and the arguments the supervisor was given. */
  main: string;
  argv: readonly string[];
  /** The node binary and the supervisor's own node flags. */
  execPath: string;
  execArgv: readonly string[];
  /** The supervisor's environment; each child's gets its role added. */
  env: NodeJS.ProcessEnv;
  memoryLimitBytes: number | undefined;
  /** Where the proxy serves its counters and the exporter reads them. */
  countersSocket: string;
  logger: Logger;
}

/**
 * Starts one child: `node <flags> main.ts <arguments>` with its role in the
 * environment, stdout and stderr the supervisor's, and an IPC channel that
 * only tells it when the supervisor is gone. `onExit` is called once: when it
 * exits, or when it cannot be started.
 */
export function spawnChild(
  launch: ChildLaunch,
  name: ChildName,
  restarts: number,
  onExit: (exit: ChildExit) => void,
): RunningChild {
  const child = spawn(
    launch.execPath,
    [...nodeFlagsFor(name, launch.execArgv, launch.memoryLimitBytes), launch.main, ...launch.argv],
    {
      stdio: ["ignore", "inherit", "inherit", "ipc"],
      env: {
        ...launch.env,
        [roleVariable]: name,
        [countersVariable]: launch.countersSocket,
        [restartsVariable]: String(restarts),
      },
    },
  );
  if (name === "exporter") lowerPriority(child.pid, launch.logger);
  child.once("error", (error) => {
    launch.logger.error("cannot start", { process: name, error: error.message });
    onExit({ code: 1, signal: null });
  });
  child.once("exit", (code, signal) => onExit({ code, signal }));
  return {
    pid: child.pid,
    kill(signal) {
      // Never signal a pid that may belong to another process by now.
      if (child.exitCode === null && child.signalCode === null) child.kill(signal);
    },
  };
}

/** The supervisor's process: the real one in production, a fake in the unit tests. */
export interface SupervisorHost {
  execPath: string;
  execArgv: readonly string[];
  env: NodeJS.ProcessEnv;
  memoryLimitBytes: number | undefined;
  /** Writes one log line. */
  write(line: string): void;
  /** Calls `handler` on each SIGTERM or SIGINT the process receives. */
  onSignal(signal: "SIGTERM" | "SIGINT", handler: () => void): void;
  exit(code: number): void;
}

export function processHost(): SupervisorHost {
  return {
    execPath: process.execPath,
    execArgv: process.execArgv,
    env: process.env,
    memoryLimitBytes: memoryLimit(),
    write: (line) => process.stderr.write(`${line}\n`),
    onSignal: (signal, handler) => process.on(signal, handler),
    exit: (code) => process.exit(code),
  };
}

export function runSupervisor(
  options: {
    main: string;
    argv: readonly string[];
    logLevel: string | undefined;
  },
  host: SupervisorHost = processHost(),
): void {
  const level = options.logLevel !== undefined && isLogLevel(options.logLevel) ? options.logLevel : "info";
  const logger = createLogger({ level, write: host.write }, { component: "supervisor" });
  const launch: ChildLaunch = {
    main: options.main,
    argv: options.argv,
    execPath: host.execPath,
    execArgv: host.execArgv,
    env: host.env,
    memoryLimitBytes: host.memoryLimitBytes,
    countersSocket: countersSocketPath(),
    logger,
  };
  const supervisor = new Supervisor({
    children: childNames,
    policy: restartPolicies,
    clock: realClock,
    logger,
    stopTimeoutMs: 15_000,
    exit: host.exit,
    spawn: (name, restarts, onExit) => spawnChild(launch, name, restarts, onExit),
  });
  host.onSignal("SIGTERM", () => supervisor.signal("SIGTERM"));
  host.onSignal("SIGINT", () => supervisor.signal("SIGINT"));
  const limit = host.memoryLimitBytes;
  logger.info("supervising", {
    pid: process.pid,
    processes: childNames,
    memoryLimitMiB: limit === undefined ? undefined : Math.round(limit / 1024 / 1024),
  });
  supervisor.start();
}
