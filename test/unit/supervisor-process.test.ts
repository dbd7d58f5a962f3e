// The supervisor's process side: each child is a real `node` process started
// from a small fixture (test/fixtures/supervisor/child.ts) that reports what it
// was started with; the supervisor's own process (log lines, signals, exit) is
// a fake host. Every child started here has exited when its test ends.
import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { getPriority, tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { setTimeout as delay } from "node:timers/promises";
import { createLogger } from "../../src/log.ts";
import {
  type ChildLaunch,
  childNames,
  exporterNiceness,
  lowerPriority,
  memoryLimitOf,
  nodeFlagsFor,
  processHost,
  proxyHeapMiB,
  realClock,
  runSupervisor,
  type SupervisorHost,
  spawnChild,
} from "../../src/supervisor/run-supervisor.ts";
import type { ChildExit } from "../../src/supervisor/supervisor.ts";

const fixture = join(import.meta.dirname, "../fixtures/supervisor/child.ts");
const MiB = 1024 * 1024;

function scratch(t: { after(fn: () => void): void }): string {
  const dir = mkdtempSync(join(tmpdir(), "supervisor-test-"));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

function logCapture() {
  const lines: Record<string, unknown>[] = [];
  const logger = createLogger({ level: "debug", write: (line) => lines.push(JSON.parse(line)) });
  return { lines, logger };
}

function launchOf(prefix: string, mode: string[], overrides: Partial<ChildLaunch> = {}): ChildLaunch {
  return {
    main: fixture,
    argv: [prefix, ...mode],
    execPath: process.execPath,
    execArgv: [],
    env: { ...process.env, SUPERVISOR_TEST_INHERITED: "yes" },
    memoryLimitBytes: 512 * MiB,
    countersSocket: "@test-counters",
    logger: logCapture().logger,
    ...overrides,
  };
}

/** Spawns `name` and resolves with its exit, reported through onExit. */
function spawned(launch: ChildLaunch, name: "api-proxy" | "exporter", restarts: number) {
  let exited!: (exit: ChildExit) => void;
  const exit = new Promise<ChildExit>((resolve) => {
    exited = resolve;
  });
  const running = spawnChild(launch, name, restarts, exited);
  return { running, exit };
}

test("a child is node with its own flags, main.ts and the supervisor's arguments, its role, restart count and the counters socket in its environment, and an IPC channel; its exit code is reported", async (t) => {
  const prefix = join(scratch(t), "report");
  const launch = launchOf(prefix, ["exit", "7"], { execArgv: ["--no-warnings"] });
  const { exit } = spawned(launch, "api-proxy", 3);
  assert.deepEqual(await exit, { code: 7, signal: null });
  const report = JSON.parse(readFileSync(`${prefix}-api-proxy.json`, "utf8"));
  assert.deepEqual(report, {
    role: "api-proxy",
    counters: "@test-counters",
    restarts: 3,
    inherited: "yes",
    execArgv: nodeFlagsFor("api-proxy", ["--no-warnings"], 512 * MiB),
    argv: [prefix, "exit", "7"],
    channel: true,
    niceness: getPriority(),
  });
  assert.ok(report.execArgv.includes(`--max-old-space-size=${proxyHeapMiB}`));
});

test("the exporter runs at a lower priority than the proxy; kill signals a running child, and its signal is reported; a kill after the exit does nothing", async (t) => {
  const prefix = join(scratch(t), "report");
  const launch = launchOf(prefix, ["stay"]);
  const proxy = spawned(launch, "api-proxy", 0);
  const exporter = spawned(launch, "exporter", 0);
  assert.ok(exporter.running.pid !== undefined && proxy.running.pid !== undefined);
  assert.equal(getPriority(exporter.running.pid), Math.max(exporterNiceness, getPriority()));
  assert.equal(getPriority(proxy.running.pid), getPriority(), "the proxy keeps the supervisor's");
  exporter.running.kill("SIGTERM");
  proxy.running.kill("SIGKILL");
  assert.deepEqual(await exporter.exit, { code: null, signal: "SIGTERM" });
  assert.deepEqual(await proxy.exit, { code: null, signal: "SIGKILL" });
  exporter.running.kill("SIGTERM");
});

test("a child that cannot be started (no such binary) is reported as an exit with code 1 and logged", async (t) => {
  const { lines, logger } = logCapture();
  const launch = launchOf(join(scratch(t), "report"), ["exit", "0"], {
    execPath: join(tmpdir(), "no-such-node-binary"),
    logger,
  });
  const { running, exit } = spawned(launch, "api-proxy", 0);
  assert.equal(running.pid, undefined);
  assert.deepEqual(await exit, { code: 1, signal: null });
  const logged = lines.find((l) => l.msg === "cannot start");
  assert.equal(logged?.process, "api-proxy");
  assert.match(String(logged?.error), /ENOENT/);
  running.kill("SIGTERM");
});

test("a priority that cannot be lowered is logged with the pid and the error; the exporter runs on", () => {
  const { lines, logger } = logCapture();
  lowerPriority(2 ** 31 - 1, logger);
  assert.equal(lines.length, 1);
  assert.equal(lines[0]?.msg, "cannot lower the exporter process's priority");
  assert.equal(lines[0]?.level, "warn");
  assert.equal(lines[0]?.pid, 2 ** 31 - 1);
  assert.match(String(lines[0]?.error), /ESRCH|EINVAL/);
  lowerPriority(undefined, logger);
  assert.equal(lines.length, 1, "a child that did not start has no pid to lower");
});

test("the memory limit: a cgroup limit below the machine's memory; none reported (0) or one as large as the machine is no limit", () => {
  const machine = 16 * 1024 * MiB;
  assert.equal(memoryLimitOf(512 * MiB, machine), 512 * MiB);
  assert.equal(memoryLimitOf(1, machine), 1);
  assert.equal(memoryLimitOf(0, machine), undefined);
  assert.equal(memoryLimitOf(machine, machine), undefined);
  assert.equal(memoryLimitOf(2 ** 62, machine), undefined);
});

test("the real clock runs a timer when due and not once cleared", async () => {
  const ran: string[] = [];
  realClock.setTimeout(() => ran.push("kept"), 1);
  realClock.clearTimeout(realClock.setTimeout(() => ran.push("cleared"), 1));
  // Timers of the same duration run in the order they were set: this one runs after both.
  await delay(1);
  assert.deepEqual(ran, ["kept"]);
  const before = realClock.now();
  assert.ok(realClock.now() >= before);
});

test("the real host: log lines go to stderr, one a line; stop signals are listened to; exit ends the process with the code", (t) => {
  const host = processHost();
  assert.equal(host.execPath, process.execPath);
  const written: unknown[] = [];
  t.mock.method(process.stderr, "write", (chunk: unknown) => {
    written.push(chunk);
    return true;
  });
  host.write('{"msg":"x"}');
  assert.deepEqual(written, ['{"msg":"x"}\n']);
  const handler = (): void => {};
  host.onSignal("SIGINT", handler);
  t.after(() => process.off("SIGINT", handler));
  assert.ok(process.listeners("SIGINT").includes(handler));
  const exit = t.mock.method(process, "exit", () => undefined as never);
  host.exit(5);
  assert.deepEqual(
    exit.mock.calls.map((c) => c.arguments),
    [[5]],
  );
});

/** Runs the supervisor on a fake host; `stop` sends it a signal and resolves with its exit code. */
function supervise(
  t: { after(fn: () => void): void },
  memoryLimitBytes: number | undefined,
  logLevel: string | undefined = "debug",
) {
  const prefix = join(scratch(t), "report");
  const lines: Record<string, unknown>[] = [];
  const handlers = new Map<string, () => void>();
  let exited!: (code: number) => void;
  const exit = new Promise<number>((resolve) => {
    exited = resolve;
  });
  const host: SupervisorHost = {
    execPath: process.execPath,
    execArgv: [],
    env: process.env,
    memoryLimitBytes,
    write: (line) => lines.push(JSON.parse(line)),
    onSignal: (signal, handler) => handlers.set(signal, handler),
    exit: exited,
  };
  runSupervisor({ main: fixture, argv: [prefix, "stay"], logLevel }, host);
  const stop = (signal: "SIGTERM" | "SIGINT"): Promise<number> => {
    const handler = handlers.get(signal);
    assert.ok(handler, `${signal} is handled`);
    handler();
    return exit;
  };
  return { lines, stop };
}

test("runSupervisor logs as the supervisor, starts the proxy and the exporter, and stops both on SIGTERM with the exporter's exit code", async (t) => {
  const { lines, stop } = supervise(t, 512 * MiB);
  assert.deepEqual(lines[0], {
    ...lines[0],
    level: "info",
    msg: "supervising",
    component: "supervisor",
    pid: process.pid,
    processes: ["api-proxy", "exporter"],
    memoryLimitMiB: 512,
  });
  assert.deepEqual(childNames, ["api-proxy", "exporter"]);
  const started = lines.filter((l) => l.msg === "started");
  assert.deepEqual(
    started.map((l) => l.process),
    ["api-proxy", "exporter"],
  );
  assert.ok(started.every((l) => typeof l.pid === "number" && l.component === "supervisor"));
  assert.equal(await stop("SIGTERM"), 1, "the exporter ended by a signal: 1");
  const stopping = lines.find((l) => l.msg === "stopping");
  assert.equal(stopping?.signal, "SIGTERM");
  assert.deepEqual(
    lines
      .filter((l) => l.msg === "stopped")
      .map((l) => [l.process, l.signal])
      .sort(),
    [
      ["api-proxy", "SIGTERM"],
      ["exporter", "SIGTERM"],
    ],
  );
});

test("runSupervisor stops on SIGINT too, forwarding SIGINT; without a memory limit none is logged", async (t) => {
  const { lines, stop } = supervise(t, undefined);
  assert.equal(lines[0]?.msg, "supervising");
  assert.equal(lines[0]?.memoryLimitMiB, undefined);
  assert.equal(await stop("SIGINT"), 1);
  assert.equal(lines.find((l) => l.msg === "stopping")?.signal, "SIGINT");
  assert.ok(lines.filter((l) => l.msg === "stopped").every((l) => l.signal === "SIGINT"));
});

test("runSupervisor logs at the level it was given: at warn, a start and a stop write nothing; an unknown level is info", async (t) => {
  const quiet = supervise(t, undefined, "warn");
  assert.equal(await quiet.stop("SIGTERM"), 1);
  assert.deepEqual(quiet.lines, []);
  const unknown = supervise(t, undefined, "loud");
  assert.equal(await unknown.stop("SIGTERM"), 1);
  assert.deepEqual(
    unknown.lines.map((l) => l.level),
    ["info", "info", "info", "info", "info", "info"],
    "supervising, 2 started, stopping, 2 stopped",
  );
});
