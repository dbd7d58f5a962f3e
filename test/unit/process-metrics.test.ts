// The process and Node.js runtime families (docs/metrics.md, "Process and
// runtime"): each read from its source when the registry is rendered, in the
// unit the name says, and checked here against a second way of reading the
// same figure.
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import fs, { closeSync, fstatSync, openSync, readdirSync, readFileSync } from "node:fs";
import { syncBuiltinESMExports } from "node:module";
import { performance } from "node:perf_hooks";
import { mock, test } from "node:test";
import { setTimeout as delay } from "node:timers/promises";
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { Registry } from "@prometheus-io/client";
import { registerProcessMetrics } from "../../src/metrics/process-metrics.ts";
import { parseExposition } from "../support/exposition-check.ts";

function processRegistry(): Registry {
  const registry = new Registry();
  registerProcessMetrics(registry);
  return registry;
}

async function scrape(registry: Registry): Promise<Map<string, number>> {
  return parseExposition(await registry.metrics()).samples;
}

function sample(samples: Map<string, number>, key: string): number {
  const value = samples.get(key);
  assert.ok(value !== undefined, `${key} missing: ${[...samples.keys()].join(", ")}`);
  return value;
}

/** Open descriptors counted without listing /proc/self/fd: every number up to the highest listed that fstat accepts. */
function openDescriptors(): number {
  const highest = Math.max(...readdirSync("/proc/self/fd").map(Number));
  let open = 0;
  for (let fd = 0; fd <= highest; fd++) {
    try {
      fstatSync(fd);
      open++;
    } catch {
      // not open (the listing's own handle among them: closed once listed)
    }
  }
  return open;
}

test("process_open_fds counts the open descriptors (not the one reading them); process_max_fds is the soft limit", async () => {
  const registry = processRegistry();
  const extra = [openSync("/dev/null", "r"), openSync("/dev/null", "r"), openSync("/dev/null", "r")];
  let withExtra: number;
  try {
    withExtra = sample(await scrape(registry), "process_open_fds");
    assert.equal(withExtra, openDescriptors());
  } finally {
    for (const fd of extra) closeSync(fd);
  }
  assert.equal(sample(await scrape(registry), "process_open_fds"), withExtra - 3);
  const limit = spawnSync("sh", ["-c", "ulimit -n"], { encoding: "utf8" }).stdout.trim();
  const samples = await scrape(registry);
  if (limit === "unlimited") assert.equal(samples.get("process_max_fds"), undefined);
  else assert.equal(sample(samples, "process_max_fds"), Number(limit));
});

test("process memory: resident, virtual (VmSize) and data segment (VmData) in bytes", async () => {
  const registry = processRegistry();
  const samples = await scrape(registry);
  const status = readFileSync("/proc/self/status", "utf8");
  const kB = (field: string) => {
    const line = status.split("\n").find((l) => l.startsWith(`${field}:`)) ?? "";
    return Number(line.split(/\s+/)[1]) * 1024;
  };
  const near = (actual: number, expected: number, what: string) =>
    assert.ok(Math.abs(actual - expected) <= expected * 0.1, `${what}: ${actual} vs ${expected}`);
  const vsz = Number(spawnSync("ps", ["-o", "vsz=", "-p", String(process.pid)], { encoding: "utf8" }).stdout);
  near(sample(samples, "process_virtual_memory_bytes"), vsz * 1024, "virtual memory against ps");
  near(sample(samples, "process_heap_bytes"), kB("VmData"), "data segment");
  near(sample(samples, "process_resident_memory_bytes"), process.memoryUsage.rss(), "resident memory");
  for (const name of ["process_virtual_memory_bytes", "process_heap_bytes"])
    assert.equal(sample(samples, name) % 1024, 0, `${name}: kB from /proc, in bytes`);
  const heap = process.memoryUsage();
  near(sample(samples, "nodejs_heap_size_total_bytes"), heap.heapTotal, "V8 heap size");
  near(sample(samples, "nodejs_heap_size_used_bytes"), heap.heapUsed, "V8 heap used");
  near(sample(samples, "nodejs_external_memory_bytes"), heap.external, "external memory");
});

test("process_start_time_seconds: when the process started, in whole Unix seconds", async () => {
  const start = sample(await scrape(processRegistry()), "process_start_time_seconds");
  assert.ok(Number.isInteger(start), String(start));
  assert.ok(Math.abs(start - (Date.now() / 1000 - process.uptime())) <= 1, String(start));
});

test("CPU and event-loop counters follow their cumulative readings, scrape after scrape", async () => {
  const registry = processRegistry();
  for (let round = 0; round < 3; round++) {
    const until = process.cpuUsage().user + 20_000;
    while (process.cpuUsage().user < until) {
      // burn 20 ms of CPU so the counters move between scrapes
    }
    // A turn of the loop, so it has some active time to report (none before the first).
    await new Promise((resolve) => setImmediate(resolve));
    const before = process.cpuUsage();
    const activeBefore = performance.eventLoopUtilization().active / 1000;
    const samples = await scrape(registry);
    const after = process.cpuUsage();
    const activeAfter = performance.eventLoopUtilization().active / 1000;
    const within = (name: string, low: number, high: number) => {
      const value = sample(samples, name);
      assert.ok(
        value >= low - 1e-9 && value <= high + 1e-9,
        `round ${round} ${name}: ${value} not in [${low}, ${high}]`,
      );
    };
    within("process_cpu_user_seconds_total", before.user / 1e6, after.user / 1e6);
    within("process_cpu_system_seconds_total", before.system / 1e6, after.system / 1e6);
    within(
      "process_cpu_seconds_total",
      (before.user + before.system) / 1e6,
      (after.user + after.system) / 1e6,
    );
    assert.ok(activeBefore > 0, `round ${round}: ${activeBefore} s active`);
    within("nodejs_eventloop_active_seconds_total", activeBefore, activeAfter);
  }
});

test("event-loop lag: the delays since the previous scrape, in seconds", async () => {
  const registry = processRegistry();
  const lag = (samples: Map<string, number>, stat: string) =>
    sample(samples, `nodejs_eventloop_lag_${stat}_seconds`);
  // The monitor measures from its previous tick (a scrape resets it): let it tick before and after the block.
  let samples = await scrape(registry);
  for (let attempt = 0; lag(samples, "max") < 0.15; attempt++) {
    assert.ok(attempt < 20, "a 200 ms block was never measured");
    await delay(25);
    const blockedAt = Date.now();
    while (Date.now() - blockedAt < 200) {
      // block the event loop for 200 ms
    }
    await delay(25);
    samples = await scrape(registry);
  }
  const [min, p50, p90, p99, max] = ["min", "p50", "p90", "p99", "max"].map((s) => lag(samples, s)) as [
    number,
    number,
    number,
    number,
    number,
  ];
  assert.ok(max < 10, `max ${max}: seconds, not nanoseconds`);
  assert.ok(min <= p50 && p50 <= p90 && p90 <= p99 && p99 <= max * 1.01, String([min, p50, p90, p99, max]));
  const mean = lag(samples, "mean");
  assert.ok(mean >= min && mean <= max, `mean ${mean}`);
  assert.equal(sample(samples, "nodejs_eventloop_lag_seconds"), mean, "the unqualified gauge is the mean");
  const stddev = lag(samples, "stddev");
  assert.ok(stddev > 0 && stddev < max, `stddev ${stddev}`);
  // The next scrape reports only what came after this one: not the block.
  assert.ok(!(lag(await scrape(registry), "max") >= 0.15), "the block is reported once");
});

test("nodejs_active_resources counts what keeps the loop alive by type, and drops a type that is gone", async () => {
  const registry = processRegistry();
  const key = 'nodejs_active_resources{type="Timeout"}';
  const timers = [setInterval(() => {}, 60_000), setInterval(() => {}, 60_000)];
  try {
    assert.equal((await scrape(registry)).get(key), 2);
  } finally {
    for (const timer of timers) clearInterval(timer);
  }
  assert.equal((await scrape(registry)).get(key), undefined);
});

test("heap spaces by V8's space name without its _space suffix; nodejs_version_info names this Node", async () => {
  const samples = await scrape(processRegistry());
  for (const space of ["new", "old", "code", "large_object"]) {
    const total = sample(samples, `nodejs_heap_space_size_total_bytes{space="${space}"}`);
    const used = sample(samples, `nodejs_heap_space_size_used_bytes{space="${space}"}`);
    const available = sample(samples, `nodejs_heap_space_size_available_bytes{space="${space}"}`);
    assert.ok(used <= total || space.includes("large"), `${space}: used ${used} of ${total}`);
    assert.ok(available >= 0, `${space}: available ${available}`);
  }
  assert.ok(sample(samples, 'nodejs_heap_space_size_total_bytes{space="old"}') > 0);
  assert.ok(sample(samples, 'nodejs_heap_space_size_used_bytes{space="old"}') > 0);
  const [major, minor, patch] = process.versions.node.split(".");
  assert.equal(
    samples.get(
      `nodejs_version_info{version="${process.version}",major="${major}",minor="${minor}",patch="${patch}"}`,
    ),
    1,
  );
});

test("nodejs_gc_duration_seconds: each collection by kind, in seconds", async () => {
  const registry = processRegistry();
  setFlagsFromString("--expose-gc");
  const gc = runInNewContext("gc") as (options?: { type: "major" | "minor" }) => void;
  gc();
  gc({ type: "minor" });
  const count = (samples: Map<string, number>, kind: string) =>
    samples.get(`nodejs_gc_duration_seconds_count{kind="${kind}"}`) ?? 0;
  const deadline = Date.now() + 10_000;
  let samples = await scrape(registry);
  while (count(samples, "major") === 0 || count(samples, "minor") === 0) {
    assert.ok(Date.now() < deadline, "the collections were not observed");
    await delay(5);
    samples = await scrape(registry);
  }
  for (const kind of ["major", "minor"]) {
    const sum = sample(samples, `nodejs_gc_duration_seconds_sum{kind="${kind}"}`);
    assert.ok(sum > 0 && sum < count(samples, kind), `${kind}: ${sum} s over ${count(samples, kind)}`);
    // Buckets from a millisecond (a minor collection) to seconds (a major one of a large heap).
    const bounds = [...samples.keys()]
      .filter((key) => key.startsWith("nodejs_gc_duration_seconds_bucket{") && key.includes(`kind="${kind}"`))
      .map((key) => /le="([^"]+)"/.exec(key)?.[1]);
    assert.deepEqual(bounds, ["0.001", "0.01", "0.1", "1", "2", "5", "+Inf"], kind);
  }
});

test("each process and runtime family's HELP is a sentence of its own that names its unit", async () => {
  const text = await processRegistry().metrics();
  const helps = new Map(
    text
      .split("\n")
      .filter((line) => line.startsWith("# HELP "))
      .map((line) => {
        const [, , name, ...words] = line.split(" ");
        return [name as string, words.join(" ")];
      }),
  );
  assert.equal(helps.size, 27, [...helps.keys()].join(", "));
  for (const [name, help] of helps) {
    assert.match(help, /^[A-Z0-9][^\n]*[a-z)]\.$/, `${name}: "${help}"`);
    if (/_seconds(_total)?$/.test(name)) assert.match(help, /, in seconds\b/, `${name}: "${help}"`);
    if (/_bytes$/.test(name)) assert.match(help, /, in bytes\b/, `${name}: "${help}"`);
  }
});

test("nodejs_gc_duration_seconds: V8's incremental marking of a growing old space counts as kind incremental", async () => {
  const registry = processRegistry();
  const key = 'nodejs_gc_duration_seconds_count{kind="incremental"}';
  const deadline = Date.now() + 10_000;
  let kept: { i: number; s: string }[] = [];
  // Objects that stay alive fill the old space until V8 starts marking it incrementally.
  while (((await scrape(registry)).get(key) ?? 0) === 0) {
    assert.ok(Date.now() < deadline, "no incremental marking observed");
    for (let i = 0; i < 100_000; i++) kept.push({ i, s: `x${i}` });
    if (kept.length > 3_000_000) kept = [];
    await new Promise((resolve) => setImmediate(resolve));
  }
  assert.ok(kept.length > 0);
});

test("/proc unreadable at a scrape: it still renders, the families read from it have no reading, the others theirs", async (t) => {
  const fromProc = [
    "process_virtual_memory_bytes",
    "process_heap_bytes",
    "process_open_fds",
    "process_max_fds",
  ];
  const withProc = await scrape(processRegistry());
  for (const name of fromProc) sample(withProc, name);
  const registry = processRegistry();
  const noProc = (): never => {
    throw Object.assign(new Error("ENOENT: no such file or directory, open '/proc/self/status'"), {
      code: "ENOENT",
    });
  };
  t.after(() => {
    mock.restoreAll();
    syncBuiltinESMExports();
  });
  mock.method(fs, "readFileSync", noProc);
  mock.method(fs, "readdirSync", noProc);
  syncBuiltinESMExports();
  const text = await registry.metrics();
  mock.restoreAll();
  syncBuiltinESMExports();
  const samples = parseExposition(text).samples;
  // Never set, so the client library writes its initial 0 (or nothing): no figure is made up.
  for (const name of fromProc) assert.equal(samples.get(name) ?? 0, 0, name);
  for (const name of [
    "process_resident_memory_bytes",
    "process_cpu_seconds_total",
    "nodejs_heap_size_used_bytes",
  ])
    sample(samples, name);
});

test("where there is no /proc at all (macOS, say) the families read from it are not there: no made-up 0", async (t) => {
  t.after(() => {
    mock.restoreAll();
    syncBuiltinESMExports();
  });
  mock.method(fs, "existsSync", (path: string) => !String(path).startsWith("/proc/"));
  syncBuiltinESMExports();
  const registry = processRegistry();
  mock.restoreAll();
  syncBuiltinESMExports();
  const text = await registry.metrics();
  for (const name of [
    "process_virtual_memory_bytes",
    "process_heap_bytes",
    "process_open_fds",
    "process_max_fds",
  ])
    assert.ok(!text.includes(name), `${name} is there`);
  for (const name of [
    "process_resident_memory_bytes",
    "process_cpu_seconds_total",
    "nodejs_heap_size_used_bytes",
  ])
    sample(parseExposition(text).samples, name);
});
