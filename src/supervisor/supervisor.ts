// The supervisor's logic, without processes: it starts its children (the API
// proxy, then the exporter), restarts one that exits after a delay that
// doubles while it keeps dying young (bounded, reset once a run lasts), and on
// SIGTERM or SIGINT forwards the signal to each running child and ends once
// all have exited, with the exporter's exit code. A child's first run that
// exits 2 (a configuration error) stops everything with 2, as the single
// process would have. Spawning, the clock and exiting are injected
// (run-supervisor.ts gives the real ones; the unit tests fake them).
import type { Logger } from "../log.ts";

export type ChildName = "api-proxy" | "exporter";

export interface ChildExit {
  /** The exit code; null when a signal ended the child. */
  code: number | null;
  signal: NodeJS.Signals | null;
}

export interface RunningChild {
  /** Undefined when the spawn failed (the exit follows). */
  readonly pid: number | undefined;
  kill(signal: NodeJS.Signals): void;
}

export interface SupervisorClock {
  /** Monotonic milliseconds. */
  now(): number;
  setTimeout(run: () => void, ms: number): unknown;
  /** Cancels a timer not yet run; undefined (no timer) is ignored. */
  clearTimeout(handle: unknown): void;
}

export interface RestartPolicy {
  /** Delay before the first restart (and after a run that lasted). */
  firstDelayMs: number;
  /** The delay doubles with each further early exit, up to this. */
  maxDelayMs: number;
  /** A run this long counts as healthy: the next exit restarts after firstDelayMs again. */
  stableAfterMs: number;
}

export interface SupervisorDeps {
  /** Started in this order. */
  children: readonly ChildName[];
  /** Starts `name`; `restarts` is how often it was restarted before; `onExit` is called once, when it has exited. */
  spawn(name: ChildName, restarts: number, onExit: (exit: ChildExit) => void): RunningChild;
  policy: Readonly<Record<ChildName, RestartPolicy>>;
  clock: SupervisorClock;
  logger: Logger;
  /** Called once, when every child has stopped. */
  exit(code: number): void;
  /** After a stop signal, children still running this long later are killed (SIGKILL). */
  stopTimeoutMs: number;
}

/** Exit code of a configuration error (cli/exporter.ts). */
const configErrorCode = 2;

interface ChildState {
  readonly name: ChildName;
  running: RunningChild | undefined;
  startedAt: number;
  /** Restarts so far (the exporter and proxy report them as a metric). */
  restarts: number;
  /** Early exits in a row: the exponent of the next delay. */
  earlyExits: number;
  timer: unknown;
  lastExit: ChildExit | undefined;
}

/** The delay before restarting a child that exited after running `ranMs`, and the early-exit count after it. */
export function restartDelay(
  policy: RestartPolicy,
  earlyExits: number,
  ranMs: number,
): { delayMs: number; earlyExits: number } {
  const inRow = ranMs >= policy.stableAfterMs ? 0 : earlyExits;
  return {
    delayMs: Math.min(policy.maxDelayMs, policy.firstDelayMs * 2 ** inRow),
    earlyExits: inRow + 1,
  };
}

/** The exit code the container reports for a child's exit. */
export function exitCodeOf(exit: ChildExit | undefined): number {
  if (!exit) return 0;
  if (exit.code !== null) return exit.code;
  return 1;
}

export class Supervisor {
  readonly #deps: SupervisorDeps;
  readonly #children: ChildState[];
  #stopping = false;
  #exitCode: number | undefined;
  #killTimer: unknown;
  #exited = false;

  constructor(deps: SupervisorDeps) {
    this.#deps = deps;
    this.#children = deps.children.map((name) => ({
      name,
      running: undefined,
      startedAt: 0,
      restarts: 0,
      earlyExits: 0,
      timer: undefined,
      lastExit: undefined,
    }));
  }

  start(): void {
    for (const child of this.#children) this.#start(child);
  }

  /** The pid of each running child (for logs and tests). */
  pids(): Partial<Record<ChildName, number>> {
    const out: Partial<Record<ChildName, number>> = {};
    for (const child of this.#children)
      if (child.running?.pid !== undefined) out[child.name] = child.running.pid;
    return out;
  }

  /** SIGTERM or SIGINT: forwarded to every running child; a second one is forwarded again. */
  signal(signal: NodeJS.Signals): void {
    const first = !this.#stopping;
    this.#stopping = true;
    if (first) this.#deps.logger.info("stopping", { signal, children: this.pids() });
    for (const child of this.#children) {
      // A pending restart is cancelled (no timer: nothing to clear).
      this.#deps.clock.clearTimeout(child.timer);
      child.timer = undefined;
      child.running?.kill(signal);
    }
    if (first) {
      this.#killTimer = this.#deps.clock.setTimeout(() => this.#killRemaining(), this.#deps.stopTimeoutMs);
    }
    this.#finishIfStopped();
  }

  #start(child: ChildState): void {
    child.timer = undefined;
    child.startedAt = this.#deps.clock.now();
    let exited = false;
    const onExit = (exit: ChildExit): void => {
      if (exited) return;
      exited = true;
      this.#onExit(child, exit);
    };
    let running: RunningChild;
    try {
      running = this.#deps.spawn(child.name, child.restarts, onExit);
    } catch (error) {
      this.#deps.logger.error("cannot start", { process: child.name, error: String(error) });
      onExit({ code: 1, signal: null });
      return;
    }
    // A spawn that failed at once has already reported its exit.
    if (exited) return;
    child.running = running;
    this.#deps.logger.info("started", { process: child.name, pid: running.pid, restarts: child.restarts });
  }

  #onExit(child: ChildState, exit: ChildExit): void {
    child.running = undefined;
    child.lastExit = exit;
    const ranMs = this.#deps.clock.now() - child.startedAt;
    if (this.#stopping) {
      this.#deps.logger.info("stopped", { process: child.name, code: exit.code, signal: exit.signal });
      this.#finishIfStopped();
      return;
    }
    if (child.restarts === 0 && exit.code === configErrorCode) {
      this.#deps.logger.error("configuration error; stopping", { process: child.name, code: exit.code });
      this.#exitCode = configErrorCode;
      this.signal("SIGTERM");
      return;
    }
    const next = restartDelay(this.#deps.policy[child.name], child.earlyExits, ranMs);
    child.earlyExits = next.earlyExits;
    child.restarts += 1;
    this.#deps.logger.warn("exited; restarting", {
      process: child.name,
      code: exit.code,
      signal: exit.signal,
      ranSeconds: Math.round(ranMs) / 1000,
      restartInMs: next.delayMs,
      restarts: child.restarts,
    });
    child.timer = this.#deps.clock.setTimeout(() => this.#start(child), next.delayMs);
  }

  #killRemaining(): void {
    this.#killTimer = undefined;
    for (const child of this.#children) {
      if (!child.running) continue;
      this.#deps.logger.error("did not stop in time; killing", {
        process: child.name,
        afterMs: this.#deps.stopTimeoutMs,
      });
      child.running.kill("SIGKILL");
    }
  }

  #finishIfStopped(): void {
    if (this.#exited || this.#children.some((c) => c.running)) return;
    this.#exited = true;
    this.#deps.clock.clearTimeout(this.#killTimer);
    const exporter = this.#children.find((c) => c.name === "exporter");
    this.#deps.exit(this.#exitCode ?? exitCodeOf(exporter?.lastExit));
  }
}
