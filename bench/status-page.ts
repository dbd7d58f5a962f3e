// The status page at fleet size, served the way the exporter serves it: N
// widgets (default 50,000) recorded from a real apiserver (the benchmark
// fleet's objects, about 3.4 KB each as served) and ingested through the real
// pipeline (ResourceCollector → applyChange → the store), a tenth of them
// then flipping Ready so their transition rings fill, and the page and its API
// mounted on the real HTTP server (createApp + statusRoutes over the store's
// ViewSource) on a loopback port. Measured: the first screen (GET /, the
// not-Ready page of 100 with the summary) and the API answers, time to first
// byte and to last byte, bytes; heap bytes per object of the store and of the
// transition ring.
//
//   npm run bench:status-page -- [objects=50000] [--recorded 200] [--rounds 9] [--out FILE]
//
// Starts a test control plane for a few seconds to record the objects, then stops it. Prints the
// result as JSON (and writes it to --out).

import { mkdirSync, writeFileSync } from "node:fs";
import { cpus, loadavg } from "node:os";
import { dirname } from "node:path";
import { monitorEventLoopDelay } from "node:perf_hooks";
import { parseArgs } from "node:util";
import { storeViewSource } from "../src/collectors/view-source.ts";
import { defaultStatusPage } from "../src/config/status-page.ts";
import { newKindLearning } from "../src/core/change/label-bounds.ts";
import { applyChange } from "../src/core/change/object-update.ts";
import { ringCaps, type TransitionRecord } from "../src/core/change/transition-ring.ts";
import { silentLogger } from "../src/log.ts";
import { createApp, listen } from "../src/server/http.ts";
import { statusRoutes } from "../src/server/status-routes.ts";
import { ControlPlane, installCrd } from "../test/cluster/index.ts";
import { offlineCollector } from "../test/support/collector.ts";
import { createNamespaces, type Fleet, growFleet } from "./lib/fleet.ts";

const gc = (globalThis as { gc?: () => void }).gc;
if (!gc) throw new Error("run with node --expose-gc");
const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    recorded: { type: "string", default: "200" },
    rounds: { type: "string", default: "9" },
    out: { type: "string" },
  },
});
const objects = Number(positionals[0] ?? 50_000);
const recordedCount = Number(values.recorded);
const rounds = Number(values.rounds);
const log = (line: string): void => void process.stderr.write(`status-page bench: ${line}\n`);

function heapAfterGc(): number {
  gc?.();
  gc?.();
  return process.memoryUsage().heapUsed;
}

interface RawWidget {
  metadata: { name: string; namespace: string; uid: string; resourceVersion: string };
  status: { conditions: { type: string; status: string; lastTransitionTime: string; reason: string }[] };
}

async function recordObjects(): Promise<RawWidget[]> {
  const plane = await ControlPlane.start();
  try {
    await installCrd(plane.admin.rest, "widgets");
    const fleet: Fleet = { namespaces: await createNamespaces(plane), objects: [], createSeconds: {} };
    await growFleet(plane.admin.rest, fleet, recordedCount, log);
    const list = await plane.admin.rest.get<{ items: RawWidget[] }>("/apis/example.com/v1/widgets", {
      query: { limit: recordedCount },
    });
    return list.items;
  } finally {
    await plane.stop();
  }
}

/** Object i: recorded object i mod n under its own name, namespace and uid. */
function clone(recorded: readonly RawWidget[], i: number): RawWidget {
  const object = structuredClone(recorded[i % recorded.length] as RawWidget);
  object.metadata.name = `widget-${String(i).padStart(6, "0")}`;
  object.metadata.namespace = `bench${String(i % 50).padStart(2, "0")}`;
  object.metadata.uid = `00000000-0000-4000-8000-${String(i).padStart(12, "0")}`;
  object.metadata.resourceVersion = String(1_000_000 + i);
  return object;
}

/** The same object with Ready flipped, as the next watch event would bring it. */
function flipped(object: RawWidget, now: number): RawWidget {
  const next = structuredClone(object);
  next.metadata.resourceVersion = `${object.metadata.resourceVersion}-1`;
  for (const c of next.status.conditions) {
    if (c.type !== "Ready") continue;
    c.status = c.status === "True" ? "False" : "True";
    c.reason = c.status === "True" ? "Succeeded" : "ReplicaUnavailable";
    c.lastTransitionTime = `${new Date(now * 1000).toISOString().slice(0, 19)}Z`;
  }
  return next;
}

interface Timed {
  path: string;
  status: number;
  bytes: number;
  /** Medians over the rounds. */
  firstByteMs: number;
  lastByteMs: number;
  maxLastByteMs: number;
  /**
   * The longest the event loop was held up while the request was served
   * (max over the rounds, perf_hooks.monitorEventLoopDelay at 1 ms): what
   * /metrics, the probes and, in sidecar mode, the API proxy waited meanwhile.
   */
  maxLoopStallMs: number;
}

async function timed(base: string, path: string): Promise<Timed> {
  const first: number[] = [];
  const last: number[] = [];
  let bytes = 0;
  let status = 0;
  let stallNs = 0;
  for (let round = -3; round < rounds; round++) {
    const delay = monitorEventLoopDelay({ resolution: 1 });
    delay.enable();
    const started = performance.now();
    const response = await fetch(`${base}${path}`, { headers: { "Accept-Encoding": "identity" } });
    const headers = performance.now();
    const body = await response.arrayBuffer();
    const done = performance.now();
    delay.disable();
    // Three warm-up rounds are not counted.
    if (round < 0) continue;
    stallNs = Math.max(stallNs, delay.max);
    first.push(headers - started);
    last.push(done - started);
    bytes = body.byteLength;
    status = response.status;
  }
  const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] as number;
  const round1 = (ms: number): number => Math.round(ms * 10) / 10;
  return {
    path,
    status,
    bytes,
    firstByteMs: round1(median(first)),
    lastByteMs: round1(median(last)),
    maxLastByteMs: round1(Math.max(...last)),
    maxLoopStallMs: round1(stallNs / 1e6),
  };
}

log(`recording ${recordedCount} objects of the benchmark fleet from a test control plane`);
const recorded = await recordObjects();
const meanBytes = recorded.reduce((n, o) => n + JSON.stringify(o).length, 0) / recorded.length;
const now = Date.now() / 1000;
const c = offlineCollector({ now, phases: ["Pending", "Provisioning", "Running", "Failed"] });

log(`ingesting ${objects} objects through the pipeline`);
const before = heapAfterGc();
const ingestStarted = performance.now();
for (let i = 0; i < objects; i++) c.collector.ingest("ADDED", clone(recorded, i));
const ingestSeconds = (performance.now() - ingestStarted) / 1000;
const afterIngest = heapAfterGc();
// A tenth of the fleet flips Ready once: their rings get one entry each.
const flippedCount = Math.floor(objects / 10);
for (let i = 5; i < objects; i += 10) c.collector.ingest("MODIFIED", flipped(clone(recorded, i), now));
const afterFlips = heapAfterGc();

// The ring on its own, as applyChange builds it from a recorded object's Ready flips. For the
// worst case every flip brings its own long reason and message (cut to ringCaps on the way in).
const settings = { ...c.collector.settings.kind, render: undefined };
const learning = newKindLearning({ phaseEnum: [], maxReasons: 20 });
function ringOf(index: number, changes: number): readonly TransitionRecord[] {
  let current = clone(recorded, index);
  let entry = applyChange(undefined, current, settings, learning, now).entry;
  for (let k = 0; k < changes; k++) {
    current = flipped(current, now + k);
    for (const cond of current.status.conditions) {
      if (cond.type !== "Ready") continue;
      cond.reason = `Reason${index}x${k}${"r".repeat(80)}`;
      (cond as { message?: string }).message = `object ${index} change ${k}: ${"m".repeat(300)}`;
    }
    entry = applyChange(entry, current, settings, learning, now + k).entry;
  }
  return entry.ring;
}
function ringBytes(changes: number): number {
  const samples = 5_000;
  const keep: (readonly TransitionRecord[])[] = [];
  const start = heapAfterGc();
  for (let i = 0; i < samples; i++) keep.push(ringOf(i, changes));
  const end = heapAfterGc();
  if (keep.some((r) => r.length !== Math.min(changes, ringCaps.capacity)))
    throw new Error("a ring does not hold the changes made");
  return (end - start) / samples;
}
/**
 * What the ring field itself costs an entry: entries built the way applyChange builds them (an object
 * literal of the entry's fields, spread, then `series`), with and without the field, from a real entry.
 */
function ringFieldBytes(): number {
  const real = c.collector.store.values().next().value;
  if (!real) throw new Error("the store is empty");
  const { state, counters, memory, lag, summary, changesAt, ring } = real;
  const n = 200_000;
  const keep: unknown[] = new Array(n).fill(0);
  const measure = (withRing: boolean): number => {
    const start = heapAfterGc();
    for (let i = 0; i < n; i++) {
      const next = withRing
        ? { state, counters, memory, lag, summary, changesAt, ring }
        : { state, counters, memory, lag, summary, changesAt };
      keep[i] = { ...next, series: undefined };
    }
    const end = heapAfterGc();
    keep.fill(0);
    return (end - start) / n;
  };
  const without = measure(false);
  return measure(true) - without;
}
const ringField = ringFieldBytes();
const oneEntryRing = ringBytes(1);
const fullRing = ringBytes(ringCaps.capacity + 2);

log("serving the page and the API");
const source = storeViewSource({
  collectors: () => [c.collector],
  tracer: undefined,
  settings: () => defaultStatusPage,
  clock: () => now,
});
const app = createApp({
  sources: () => c.collector.sources,
  metrics: c.metrics,
  prefix: () => "cr_",
  readiness: () => ({ ready: true, resources: [], missing: [], crds: undefined, overLimit: undefined }),
  logger: silentLogger,
  routes: [statusRoutes({ source, settings: () => defaultStatusPage })],
});
const server = await listen(app, "127.0.0.1:0");
const someUid = "00000000-0000-4000-8000-000000000005";
const results: Timed[] = [];
// The machine is shared: the load around the timed requests goes into the report.
const loadBefore = loadavg()[0] as number;
try {
  for (const path of [
    "/",
    "/?notReady=",
    "/?namespace=bench07&reason=ReplicaUnavailable",
    "/api/v1/objects?notReady=true&limit=100",
    "/api/v1/objects?limit=500&sort=name",
    "/api/v1/summary",
    `/api/v1/objects/${someUid}`,
  ]) {
    results.push(await timed(server.url, path));
  }
} finally {
  await server.close();
}
const notReady = [...source.objects()].filter((v) => v.result !== "Current").length;

const report = JSON.stringify(
  {
    startedAt: new Date(now * 1000).toISOString(),
    objects,
    recordedObjects: recorded.length,
    meanObjectBytes: Math.round(meanBytes),
    notReady,
    ingestSeconds: Math.round(ingestSeconds * 10) / 10,
    heapBytesPerObject: {
      storeEntry: Math.round((afterIngest - before) / objects),
      // Everything one Ready flip adds to a stored entry: its ring's first entry, the transition counters,
      // the re-rendered series.
      oneFlipInStore: Math.round((afterFlips - afterIngest) / flippedCount),
      ringField: Math.round(ringField),
      ringOneEntry: Math.round(oneEntryRing),
      ringFullCappedText: Math.round(fullRing),
    },
    ringCaps,
    requests: results,
    machine: {
      cpus: cpus().length,
      loadAverage1mBeforeAfter: [loadBefore, loadavg()[0]],
      node: process.version,
    },
  },
  null,
  2,
);
console.log(report);
if (values.out) {
  mkdirSync(dirname(values.out), { recursive: true });
  writeFileSync(values.out, `${report}\n`);
}
