// The supervisor's restarts, backoff, signals and exit code, with a fake
// spawn and a fake clock: no process is started and no time passes.
import assert from "node:assert/strict";
import { test } from "node:test";
import { createLogger } from "../../src/log.ts";
import { nodeFlagsFor, proxyHeapMiB, restartPolicies } from "../../src/supervisor/run-supervisor.ts";
import {
  type ChildExit,
  type ChildName,
  type RestartPolicy,
  restartDelay,
  Supervisor,
  type SupervisorClock,
} from "../../src/supervisor/supervisor.ts";

class FakeClock implements SupervisorClock {
  #now = 0;
  #timers = new Map<number, { at: number; run: () => void }>();
  #next = 1;
  now(): number {
    return this.#now;
  }
  setTimeout(run: () => void, ms: number): unknown {
    const id = this.#next++;
    this.#timers.set(id, { at: this.#now + ms, run });
    return id;
  }
  clearTimeout(handle: unknown): void {
    this.#timers.delete(handle as number);
  }
  /** Moves time forward, running each timer that falls due, in order. */
  advance(ms: number): void {
    const end = this.#now + ms;
    for (;;) {
      const due = [...this.#timers.entries()]
        .filter(([, t]) => t.at <= end)
        .sort((a, b) => a[1].at - b[1].at)[0];
      if (!due) break;
      this.#timers.delete(due[0]);
      this.#now = due[1].at;
      due[1].run();
    }
    this.#now = end;
  }
  get pending(): number {
    return this.#timers.size;
  }
}

interface FakeChild {
  name: ChildName;
  pid: number;
  restarts: number;
  signals: NodeJS.Signals[];
  alive: boolean;
  exit(exit: ChildExit): void;
}

function harness(policy: Partial<Record<ChildName, RestartPolicy>> = {}) {
  const clock = new FakeClock();
  const spawned: FakeChild[] = [];
  const exits: number[] = [];
  const logs: Record<string, unknown>[] = [];
  let pid = 100;
  const supervisor = new Supervisor({
    children: ["api-proxy", "exporter"],
    policy: { ...restartPolicies, ...policy },
    clock,
    logger: createLogger({ level: "debug", write: (line) => logs.push(JSON.parse(line)) }),
    stopTimeoutMs: 15_000,
    exit: (code) => exits.push(code),
    spawn(name, restarts, onExit) {
      const child: FakeChild = {
        name,
        pid: pid++,
        restarts,
        signals: [],
        alive: true,
        exit(exit) {
          child.alive = false;
          onExit(exit);
        },
      };
      spawned.push(child);
      return {
        pid: child.pid,
        kill(signal) {
          child.signals.push(signal);
        },
      };
    },
  });
  const latest = (name: ChildName): FakeChild => {
    const found = spawned.filter((c) => c.name === name).at(-1);
    assert.ok(found, `${name} was spawned`);
    return found;
  };
  return { clock, spawned, exits, logs, supervisor, latest };
}

const killed: ChildExit = { code: null, signal: "SIGKILL" };

test("starts the proxy, then the exporter; a killed child is restarted within 100 ms, alone, with its restart count", () => {
  const h = harness();
  h.supervisor.start();
  assert.deepEqual(
    h.spawned.map((c) => c.name),
    ["api-proxy", "exporter"],
  );
  h.clock.advance(30_000);
  h.latest("exporter").exit(killed);
  h.clock.advance(99);
  assert.equal(h.spawned.length, 2, "not yet");
  h.clock.advance(1);
  assert.equal(h.spawned.length, 3);
  assert.equal(h.latest("exporter").restarts, 1);
  assert.equal(h.latest("api-proxy").alive, true, "the proxy was not touched");
  assert.deepEqual(h.latest("api-proxy").signals, []);
  assert.deepEqual(h.supervisor.pids(), { "api-proxy": 100, exporter: 102 });
  const restarted = h.logs.find((l) => l.msg === "exited; restarting");
  assert.equal(restarted?.process, "exporter");
  assert.equal(restarted?.signal, "SIGKILL");
  assert.equal(restarted?.restartInMs, 100);
});

test("a child that keeps dying young waits twice as long each time, up to its bound; a run of a minute resets the delay", () => {
  const h = harness();
  h.supervisor.start();
  const delays: number[] = [];
  for (let i = 0; i < 9; i++) {
    h.clock.advance(1_000); // each run lasts a second
    const before = h.spawned.length;
    h.latest("api-proxy").exit({ code: 1, signal: null });
    let waited = 0;
    while (h.spawned.length === before) {
      h.clock.advance(50);
      waited += 50;
    }
    delays.push(waited);
  }
  assert.deepEqual(delays, [100, 200, 400, 800, 1600, 3200, 5000, 5000, 5000], "the proxy's bound is 5 s");
  h.clock.advance(60_000);
  h.latest("api-proxy").exit({ code: 1, signal: null });
  h.clock.advance(100);
  assert.equal(h.latest("api-proxy").restarts, 10, "after a healthy minute, restarted after 100 ms again");

  assert.deepEqual(
    [1, 2, 3, 4, 5, 6, 7, 8, 9, 10].map((n) => restartDelay(restartPolicies.exporter, n - 1, 1_000).delayMs),
    [100, 200, 400, 800, 1600, 3200, 6400, 12800, 25600, 51200],
  );
  assert.equal(restartDelay(restartPolicies.exporter, 12, 1_000).delayMs, 60_000, "the exporter's bound");
  assert.deepEqual(restartDelay(restartPolicies.exporter, 12, 60_000), { delayMs: 100, earlyExits: 1 });
});

test("SIGTERM goes to both children; the supervisor exits once both have, with the exporter's exit code", () => {
  const h = harness();
  h.supervisor.start();
  h.supervisor.signal("SIGTERM");
  assert.deepEqual(h.latest("api-proxy").signals, ["SIGTERM"]);
  assert.deepEqual(h.latest("exporter").signals, ["SIGTERM"]);
  h.latest("exporter").exit({ code: 0, signal: null });
  assert.deepEqual(h.exits, [], "the proxy is still stopping");
  assert.equal(h.spawned.length, 2, "nothing is restarted while stopping");
  h.latest("api-proxy").exit({ code: 0, signal: null });
  assert.deepEqual(h.exits, [0]);
  h.clock.advance(60_000);
  assert.deepEqual(h.exits, [0], "exit is called once");
  assert.equal(h.clock.pending, 0, "no timer left");

  const failing = harness();
  failing.supervisor.start();
  failing.supervisor.signal("SIGINT");
  assert.deepEqual(failing.latest("exporter").signals, ["SIGINT"]);
  failing.latest("api-proxy").exit({ code: 0, signal: null });
  failing.latest("exporter").exit({ code: 1, signal: null });
  assert.deepEqual(failing.exits, [1], "the exporter's code, whatever the proxy's");
});

test("a signal during a restart delay cancels the restart; a child that ignores SIGTERM is killed after the stop timeout", () => {
  const h = harness();
  h.supervisor.start();
  h.clock.advance(1_000);
  h.latest("exporter").exit(killed);
  h.supervisor.signal("SIGTERM");
  h.clock.advance(1_000);
  assert.equal(h.spawned.length, 2, "the exporter was not restarted");
  assert.deepEqual(h.latest("api-proxy").signals, ["SIGTERM"]);
  h.supervisor.signal("SIGTERM");
  assert.deepEqual(h.latest("api-proxy").signals, ["SIGTERM", "SIGTERM"], "a second signal is forwarded too");
  h.clock.advance(13_999);
  assert.deepEqual(h.latest("api-proxy").signals, ["SIGTERM", "SIGTERM"]);
  h.clock.advance(1);
  assert.deepEqual(h.latest("api-proxy").signals, ["SIGTERM", "SIGTERM", "SIGKILL"], "15 s after the first");
  h.latest("api-proxy").exit(killed);
  assert.deepEqual(h.exits, [1], "the exporter's last exit was a kill: 1");
});

test("a first run that exits 2 (configuration error) stops everything with 2; a later one is restarted", () => {
  const h = harness();
  h.supervisor.start();
  h.latest("exporter").exit({ code: 2, signal: null });
  assert.deepEqual(h.latest("api-proxy").signals, ["SIGTERM"]);
  h.latest("api-proxy").exit({ code: 0, signal: null });
  assert.deepEqual(h.exits, [2]);
  assert.equal(h.spawned.length, 2);

  const later = harness();
  later.supervisor.start();
  later.clock.advance(1_000);
  later.latest("api-proxy").exit(killed);
  later.clock.advance(100);
  later.latest("api-proxy").exit({ code: 2, signal: null });
  later.clock.advance(200);
  assert.equal(later.latest("api-proxy").restarts, 2, "the configuration was good once: keep trying");
  assert.deepEqual(later.exits, []);
});

test("a spawn that throws counts as an exit and is retried with the backoff", () => {
  const h = harness();
  let failures = 2;
  const clock = new FakeClock();
  const started: ChildName[] = [];
  const supervisor = new Supervisor({
    children: ["api-proxy"],
    policy: restartPolicies,
    clock,
    logger: createLogger({ write: () => {} }),
    stopTimeoutMs: 1_000,
    exit: (code) => h.exits.push(code),
    spawn(name) {
      if (failures-- > 0) throw new Error("EAGAIN");
      started.push(name);
      return { pid: 1, kill: () => {} };
    },
  });
  supervisor.start();
  clock.advance(100);
  assert.deepEqual(started, []);
  clock.advance(200);
  assert.deepEqual(started, ["api-proxy"]);
});

test("child node flags: the proxy gets its own heap limit; the exporter's share of the memory limit leaves room for the other two", () => {
  const image = ["--liftoff-only", "--initial-old-space-size=64", "--max-old-space-size-percentage=75"];
  assert.deepEqual(nodeFlagsFor("api-proxy", image, 512 * 1024 * 1024), [
    "--liftoff-only",
    `--max-old-space-size=${proxyHeapMiB}`,
    "--initial-old-space-size=16",
  ]);
  assert.deepEqual(nodeFlagsFor("exporter", image, 512 * 1024 * 1024), [
    "--liftoff-only",
    "--initial-old-space-size=64",
    "--max-old-space-size=264",
  ]);
  assert.deepEqual(nodeFlagsFor("exporter", image, undefined), image, "no limit: the share is V8's to take");
  const own = ["--max-old-space-size=300", "--max-old-space-size-percentage=75"];
  assert.deepEqual(nodeFlagsFor("exporter", own, 512 * 1024 * 1024), own, "an absolute size given is kept");
  assert.deepEqual(nodeFlagsFor("exporter", ["--liftoff-only"], 512 * 1024 * 1024), ["--liftoff-only"]);
  assert.deepEqual(nodeFlagsFor("exporter", image, 128 * 1024 * 1024).at(-1), "--max-old-space-size=64");
});

test("stopping is logged once, with the signal and the running children; the second signal sets no second kill timer", () => {
  const h = harness();
  h.supervisor.start();
  h.supervisor.signal("SIGTERM");
  h.supervisor.signal("SIGINT");
  assert.deepEqual(
    h.logs.filter((l) => l.msg === "stopping").map((l) => [l.signal, l.children]),
    [["SIGTERM", { "api-proxy": 100, exporter: 101 }]],
  );
  assert.deepEqual(h.latest("exporter").signals, ["SIGTERM", "SIGINT"]);
  h.latest("exporter").exit({ code: 0, signal: null });
  h.latest("api-proxy").exit({ code: 0, signal: null });
  assert.deepEqual(h.exits, [0]);
  assert.equal(h.clock.pending, 0, "the kill timer was cleared when the last child stopped");
  assert.deepEqual(
    h.logs.filter((l) => l.msg === "stopped").map((l) => [l.process, l.code, l.signal]),
    [
      ["exporter", 0, null],
      ["api-proxy", 0, null],
    ],
  );
  h.supervisor.signal("SIGTERM");
  assert.deepEqual(h.exits, [0], "a signal after the exit does not exit again");
});

test("a signal while no child runs (both waiting to restart) exits at once, with the exporter's last exit", () => {
  const h = harness();
  h.supervisor.start();
  h.latest("api-proxy").exit(killed);
  h.latest("exporter").exit({ code: 3, signal: null });
  h.supervisor.signal("SIGTERM");
  assert.deepEqual(h.exits, [3]);
  assert.equal(h.clock.pending, 0, "no restart and no kill timer left");
});

test("each start and restart is logged with the process, its pid and restart count; the time it ran is measured from its own start", () => {
  const h = harness();
  h.clock.advance(100_000); // the supervisor started long after the clock's zero
  h.supervisor.start();
  assert.deepEqual(
    h.logs.filter((l) => l.msg === "started").map((l) => [l.process, l.pid, l.restarts]),
    [
      ["api-proxy", 100, 0],
      ["exporter", 101, 0],
    ],
  );
  h.clock.advance(1_500);
  h.latest("exporter").exit(killed);
  h.clock.advance(100);
  h.clock.advance(1_000);
  h.latest("exporter").exit(killed);
  const restarting = h.logs.filter((l) => l.msg === "exited; restarting");
  assert.deepEqual(
    restarting.map((l) => [l.ranSeconds, l.restartInMs, l.restarts]),
    [
      [1.5, 100, 1],
      [1, 200, 2],
    ],
    "young runs: the delay doubles",
  );
  h.clock.advance(200);
  assert.deepEqual(h.logs.filter((l) => l.msg === "started").at(-1), {
    ...h.logs.filter((l) => l.msg === "started").at(-1),
    process: "exporter",
    pid: 103,
    restarts: 2,
  });
});

test("an exit reported twice (an error and then an exit event) restarts the child once", () => {
  const h = harness();
  h.supervisor.start();
  h.clock.advance(1_000);
  const exporter = h.latest("exporter");
  exporter.exit({ code: 1, signal: null });
  exporter.exit({ code: 1, signal: null });
  h.clock.advance(60_000);
  assert.equal(h.spawned.length, 3, "one restart");
  assert.equal(h.latest("exporter").restarts, 1);
});

test("a spawn that reports its exit before returning leaves no running child: nothing is logged as started, and a stop does not wait for it", () => {
  const clock = new FakeClock();
  const exits: number[] = [];
  const logs: Record<string, unknown>[] = [];
  const supervisor = new Supervisor({
    children: ["exporter"],
    policy: restartPolicies,
    clock,
    logger: createLogger({ write: (line) => logs.push(JSON.parse(line)) }),
    stopTimeoutMs: 1_000,
    exit: (code) => exits.push(code),
    spawn(_name, _restarts, onExit) {
      onExit({ code: 1, signal: null });
      return { pid: undefined, kill: () => {} };
    },
  });
  supervisor.start();
  assert.deepEqual(supervisor.pids(), {});
  assert.deepEqual(
    logs.map((l) => l.msg),
    ["exited; restarting"],
  );
  supervisor.signal("SIGTERM");
  assert.deepEqual(exits, [1]);
});

test("a spawn that throws is logged as a start failure with the process and the error", () => {
  const clock = new FakeClock();
  const logs: Record<string, unknown>[] = [];
  const supervisor = new Supervisor({
    children: ["api-proxy"],
    policy: restartPolicies,
    clock,
    logger: createLogger({ write: (line) => logs.push(JSON.parse(line)) }),
    stopTimeoutMs: 1_000,
    exit: () => {},
    spawn() {
      throw new Error("EAGAIN");
    },
  });
  supervisor.start();
  const failed = logs.find((l) => l.msg === "cannot start");
  assert.equal(failed?.level, "error");
  assert.equal(failed?.process, "api-proxy");
  assert.equal(failed?.error, "Error: EAGAIN");
});

test("a configuration error and a child that outlives the stop timeout are logged as errors naming the process", () => {
  const h = harness();
  h.supervisor.start();
  h.latest("exporter").exit({ code: 2, signal: null });
  const configError = h.logs.find((l) => l.msg === "configuration error; stopping");
  assert.equal(configError?.level, "error");
  assert.equal(configError?.process, "exporter");
  assert.equal(configError?.code, 2);
  h.clock.advance(15_000);
  const killing = h.logs.filter((l) => l.msg === "did not stop in time; killing");
  assert.deepEqual(
    killing.map((l) => [l.level, l.process, l.afterMs]),
    [["error", "api-proxy", 15_000]],
  );
  assert.deepEqual(h.latest("api-proxy").signals, ["SIGTERM", "SIGKILL"]);
});

test("child node flags: only whole flags count; a flag's value that mentions a heap flag is kept, a share that is not a plain number is left to V8", () => {
  const limit = 512 * 1024 * 1024;
  const title = "--title=cr--max-old-space-size=1";
  const longerName = "--max-heap-size-fraction=0.5"; // a flag whose name only begins like a heap flag's
  assert.deepEqual(
    nodeFlagsFor("api-proxy", [title, longerName, "--max-heap-size=300", "--max-heap-size"], limit),
    [title, longerName, `--max-old-space-size=${proxyHeapMiB}`, "--initial-old-space-size=16"],
  );
  assert.deepEqual(nodeFlagsFor("exporter", [title, "--max-old-space-size-percentage=75"], limit), [
    title,
    "--max-old-space-size=264",
  ]);
  const sharedInTitle = ["--title=x--max-old-space-size-percentage=75"];
  assert.deepEqual(nodeFlagsFor("exporter", sharedInTitle, limit), sharedInTitle);
  assert.deepEqual(nodeFlagsFor("exporter", ["--max-old-space-size-percentage=62.25"], limit), [
    "--max-old-space-size=219",
  ]);
  const notNumber = ["--max-old-space-size-percentage=75abc"];
  assert.deepEqual(nodeFlagsFor("exporter", notNumber, limit), notNumber);
});
