// Process and Node.js runtime metrics, instead of the client library's
// defaults: the same information under names that pass `promtool check
// metrics` (the library's nodejs_active_*_total gauges and its
// eventloop_utilization histogram/summary fail its lint). Values are read when
// the registry is rendered, i.e. once per scrape.
import { existsSync, readdirSync, readFileSync } from "node:fs";
import {
  constants,
  monitorEventLoopDelay,
  type PerformanceEntry,
  PerformanceObserver,
  performance,
} from "node:perf_hooks";
import { getHeapSpaceStatistics } from "node:v8";
import { Counter, Gauge, Histogram, type Registry } from "@prometheus-io/client";

function procStatusBytes(field: string): number | undefined {
  try {
    const match = new RegExp(`^${field}:\\s+(\\d+) kB$`, "m").exec(readFileSync("/proc/self/status", "utf8"));
    return match ? Number(match[1]) * 1024 : undefined;
    // Stryker disable next-line BlockStatement: a function without a return statement returns undefined all the same
  } catch {
    return undefined;
  }
}

function maxOpenFiles(): number | undefined {
  try {
    const match = /^Max open files\s+(\d+)/m.exec(readFileSync("/proc/self/limits", "utf8"));
    return match ? Number(match[1]) : undefined;
    // Stryker disable next-line BlockStatement: a function without a return statement returns undefined all the same
  } catch {
    return undefined;
  }
}

function openFiles(): number | undefined {
  try {
    return readdirSync("/proc/self/fd").length - 1; // the directory handle itself
    // Stryker disable next-line BlockStatement: a function without a return statement returns undefined all the same
  } catch {
    return undefined;
  }
}

const gcKinds: Record<number, string> = {
  [constants.NODE_PERFORMANCE_GC_MAJOR]: "major",
  [constants.NODE_PERFORMANCE_GC_MINOR]: "minor",
  [constants.NODE_PERFORMANCE_GC_INCREMENTAL]: "incremental",
  [constants.NODE_PERFORMANCE_GC_WEAKCB]: "weakcb",
};

/** A gauge read at collection time (undefined: not available here, not written). */
function sampled(registry: Registry, name: string, help: string, read: () => number | undefined): void {
  new Gauge({
    name,
    help,
    registers: [registry],
    collect() {
      const value = read();
      if (value !== undefined) this.set(value);
    },
  });
}

/** A counter that follows a cumulative reading (CPU seconds, event-loop active time). */
function following(registry: Registry, name: string, help: string, read: () => number): void {
  let last = 0;
  new Counter({
    name,
    help,
    registers: [registry],
    collect() {
      const now = read();
      if (now > last) this.inc(now - last);
      last = now;
    },
  });
}

function eventLoopLag(registry: Registry): void {
  // Stryker disable next-line ObjectLiteral: 10 ms is Node's default resolution, stated here to be read
  const histogram = monitorEventLoopDelay({ resolution: 10 });
  histogram.enable();
  const stats: [string, string, () => number][] = [
    ["min", "Minimum", () => histogram.min],
    ["max", "Maximum", () => histogram.max],
    ["mean", "Mean", () => histogram.mean],
    ["stddev", "Standard deviation of the", () => histogram.stddev],
    ["p50", "50th percentile", () => histogram.percentile(50)],
    ["p90", "90th percentile", () => histogram.percentile(90)],
    ["p99", "99th percentile", () => histogram.percentile(99)],
  ];
  // All statistics are read in one pass and the histogram is then reset, so
  // each scrape reports the delays since the previous one.
  let snapshot = new Map<string, number>();
  new Gauge({
    name: "nodejs_eventloop_lag_seconds",
    help: "Mean event-loop delay since the previous scrape, in seconds.",
    registers: [registry],
    collect() {
      snapshot = new Map(stats.map(([key, , read]) => [key, read() / 1e9]));
      histogram.reset();
      this.set(snapshot.get("mean") ?? 0);
    },
  });
  for (const [key, what] of stats) {
    sampled(
      registry,
      `nodejs_eventloop_lag_${key}_seconds`,
      `${what} event-loop delay since the previous scrape, in seconds.`,
      () => snapshot.get(key),
    );
  }
}

function cpuTime(registry: Registry): void {
  following(
    registry,
    "process_cpu_user_seconds_total",
    "User CPU time spent, in seconds.",
    () => process.cpuUsage().user / 1e6,
  );
  following(
    registry,
    "process_cpu_system_seconds_total",
    "System CPU time spent, in seconds.",
    () => process.cpuUsage().system / 1e6,
  );
  following(registry, "process_cpu_seconds_total", "User and system CPU time spent, in seconds.", () => {
    const usage = process.cpuUsage();
    return (usage.user + usage.system) / 1e6;
  });
}

function processStartTime(registry: Registry): void {
  const startSeconds = Math.round(Date.now() / 1000 - process.uptime());
  sampled(
    registry,
    "process_start_time_seconds",
    "Start time of the process since the Unix epoch, in seconds.",
    () => startSeconds,
  );
}

/**
 * Whether this system has /proc (Linux). Where it has not, the families read
 * from it are not registered at all: an unlabelled gauge never set would be
 * written as 0, a figure made up.
 */
const hasProc = (): boolean => existsSync("/proc/self/status");

function processMemory(registry: Registry): void {
  sampled(registry, "process_resident_memory_bytes", "Resident memory size, in bytes.", () =>
    process.memoryUsage.rss(),
  );
  if (!hasProc()) return;
  sampled(registry, "process_virtual_memory_bytes", "Virtual memory size, in bytes.", () =>
    procStatusBytes("VmSize"),
  );
  sampled(registry, "process_heap_bytes", "Process heap (data segment) size, in bytes.", () =>
    procStatusBytes("VmData"),
  );
}

function fileDescriptors(registry: Registry): void {
  if (!hasProc()) return;
  sampled(registry, "process_open_fds", "Open file descriptors.", openFiles);
  sampled(registry, "process_max_fds", "Maximum number of open file descriptors.", maxOpenFiles);
}

function eventLoopActiveTime(registry: Registry): void {
  following(
    registry,
    "nodejs_eventloop_active_seconds_total",
    "Time the event loop was busy, in seconds (its rate is the event-loop utilization).",
    () => performance.eventLoopUtilization().active / 1000,
  );
}

function activeResources(registry: Registry): void {
  new Gauge({
    name: "nodejs_active_resources",
    help: "Resources keeping the event loop alive (handles and requests), by type.",
    labelNames: ["type"],
    registers: [registry],
    collect() {
      this.reset();
      const counts = new Map<string, number>();
      for (const type of process.getActiveResourcesInfo()) counts.set(type, (counts.get(type) ?? 0) + 1);
      for (const [type, count] of counts) this.set({ type }, count);
    },
  });
}

function heapSizes(registry: Registry): void {
  sampled(
    registry,
    "nodejs_heap_size_total_bytes",
    "V8 heap size, in bytes.",
    () => process.memoryUsage().heapTotal,
  );
  sampled(
    registry,
    "nodejs_heap_size_used_bytes",
    "V8 heap used, in bytes.",
    () => process.memoryUsage().heapUsed,
  );
  sampled(
    registry,
    "nodejs_external_memory_bytes",
    "Memory of C++ objects bound to JavaScript objects (Buffers among them), in bytes.",
    () => process.memoryUsage().external,
  );
}

function heapSpaces(registry: Registry): void {
  const spaces: [string, string, (s: ReturnType<typeof getHeapSpaceStatistics>[number]) => number][] = [
    ["total", "size", (s) => s.space_size],
    ["used", "used size", (s) => s.space_used_size],
    ["available", "available size", (s) => s.space_available_size],
  ];
  for (const [key, what, read] of spaces) {
    new Gauge({
      name: `nodejs_heap_space_size_${key}_bytes`,
      help: `V8 heap space ${what}, in bytes, by space.`,
      labelNames: ["space"],
      registers: [registry],
      collect() {
        for (const space of getHeapSpaceStatistics()) {
          // Stryker disable next-line Regex: V8's space names hold _space once, at their end (new_space, code_large_object_space)
          this.set({ space: space.space_name.replace(/_space$/, "") }, read(space));
        }
      },
    });
  }
}

function nodeVersion(registry: Registry): void {
  const [major, minor, patch] = process.versions.node.split(".");
  new Gauge({
    name: "nodejs_version_info",
    help: "1, labelled with the Node.js version.",
    labelNames: ["version", "major", "minor", "patch"],
    registers: [registry],
    // Stryker disable next-line StringLiteral: process.versions.node is always major.minor.patch, so ?? never takes its right side
  }).set({ version: process.version, major: major ?? "", minor: minor ?? "", patch: patch ?? "" }, 1);
}

function gcDurations(registry: Registry): void {
  const gc = new Histogram({
    name: "nodejs_gc_duration_seconds",
    help: "Garbage collection duration by kind (major, minor, incremental, weakcb), in seconds.",
    labelNames: ["kind"],
    buckets: [0.001, 0.01, 0.1, 1, 2, 5],
    registers: [registry],
  });
  const observer = new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) {
      const detail = (entry as PerformanceEntry & { detail?: { kind?: number } }).detail;
      // Stryker disable next-line OptionalChaining,UnaryOperator: every gc entry has a detail with its kind, so neither the ?. nor the fallback is ever taken
      const kind = gcKinds[detail?.kind ?? -1];
      if (kind) gc.observe({ kind }, entry.duration / 1000);
    }
  });
  observer.observe({ entryTypes: ["gc"] });
}

/** The families in their exposition order: process first, then the Node.js runtime. */
export function registerProcessMetrics(registry: Registry): void {
  cpuTime(registry);
  processStartTime(registry);
  processMemory(registry);
  fileDescriptors(registry);
  eventLoopLag(registry);
  eventLoopActiveTime(registry);
  activeResources(registry);
  heapSizes(registry);
  heapSpaces(registry);
  nodeVersion(registry);
  gcDurations(registry);
}
