// What tracing.joinAcrossShards costs a shard, in this process without an
// apiserver: widgets of the fleet's shape (bench/lib/fleet.ts, about 3.4 KB as
// the API serves them) as watch-event lines, through the collector of shard 0
// of 3 with tracing on, as the list/watch loop hands them over.
//
// - Heap per directory entry: N objects of other shards read with
//   joinAcrossShards (each a line parsed, projected and entered in tracing's
//   directory of join targets), live heap after a full collection before and
//   after, divided by N; once for widgets as the fleet has them (no owner, no
//   source) and once with a controller ownerReference, a source label and
//   `tracing.parent: owner` (an entry that also names its owner and source).
//   Beside it, what the shard keeps per object of its own (store entry, series,
//   trace record), and per object of another shard without joinAcrossShards
//   (nothing: the control), measured the same way.
// - CPU per watch event (MODIFIED, status rewritten, Ready flipped now and
//   then): another shard's event without joinAcrossShards (its type, uid and
//   resourceVersion read from the text, nothing parsed: what the list/watch
//   loop does), with it (JSON.parse of the line, projection, directory
//   update), and one of the shard's own (JSON.parse and the whole ingest:
//   projection, series, store, tracing through the OpenTelemetry SDK into an
//   in-memory exporter). Median of --rounds rounds of --events events each.
//
//   node --expose-gc bench/join-directory.ts [--objects 50000] [--events 20000] [--rounds 5] [--out FILE]
import { randomUUID } from "node:crypto";
import { writeFileSync } from "node:fs";
import { cpus, loadavg } from "node:os";
import { parseArgs } from "node:util";
import { InMemorySpanExporter, SimpleSpanProcessor } from "@opentelemetry/sdk-trace";
import { ownsUid } from "../src/core/shard.ts";
import { peekStrings } from "../src/kube/json-peek.ts";
import { silentLogger } from "../src/log.ts";
import { createTracing } from "../src/tracing/sdk-setup.ts";
import type { StateTracer } from "../src/tracing/state-tracer.ts";
import { offlineCollector } from "../test/support/collector.ts";
import { widgetBody, widgetStatus } from "./lib/fleet.ts";

const { values: flags } = parseArgs({
  options: {
    objects: { type: "string", default: "50000" },
    events: { type: "string", default: "20000" },
    rounds: { type: "string", default: "5" },
    out: { type: "string" },
  },
});
const objects = Number(flags.objects);
const eventsPerRound = Number(flags.events);
const rounds = Number(flags.rounds);

const gc = (globalThis as { gc?: () => void }).gc;
if (!gc) {
  console.error("run with node --expose-gc");
  process.exit(2);
}

function liveHeapBytes(): number {
  gc?.();
  gc?.();
  return process.memoryUsage().heapUsed;
}

const shard0 = (uid: string) => ownsUid({ shard: 0, total: 3 }, uid);
const epoch = Date.parse("2026-01-01T00:30:00Z");
const ownerUid = randomUUID();

interface Widget {
  uid: string;
  name: string;
  namespace: string;
  index: number;
}

function widgets(count: number, keep: (uid: string) => boolean): Widget[] {
  const out: Widget[] = [];
  for (let index = 0; out.length < count; index++) {
    const uid = randomUUID();
    if (!keep(uid)) continue;
    out.push({
      uid,
      name: `widget-${index}`,
      namespace: `bench${String(index % 50).padStart(2, "0")}`,
      index,
    });
  }
  return out;
}

const fields = (names: readonly string[]) =>
  Object.fromEntries([[".", {}], ...names.map((n) => [`f:${n}`, {}])]);

/** What the apiserver records of the widget's two writers (its create, and its status writes). */
function managedFields(labels: Record<string, string>, time: string) {
  const condition = fields([
    "lastTransitionTime",
    "message",
    "observedGeneration",
    "reason",
    "status",
    "type",
  ]);
  return [
    {
      manager: "kubectl-client-side-apply",
      operation: "Update",
      apiVersion: "example.com/v1",
      time: "2026-01-01T00:00:00Z",
      fieldsType: "FieldsV1",
      fieldsV1: {
        "f:metadata": {
          "f:annotations": fields(["kubectl.kubernetes.io/last-applied-configuration"]),
          "f:labels": fields(Object.keys(labels)),
        },
        "f:spec": fields(["image", "payload", "size"]),
      },
    },
    {
      manager: "widget-controller",
      operation: "Update",
      apiVersion: "example.com/v1",
      time,
      fieldsType: "FieldsV1",
      fieldsV1: {
        "f:status": {
          ...fields(["lastHeartbeatTime", "observedGeneration", "phase", "replicas"]),
          "f:conditions": Object.fromEntries([
            [".", {}],
            ...["Ready", "Available", "Progressing", "Degraded"].map((t) => [`k:{"type":"${t}"}`, condition]),
          ]),
        },
      },
      subresource: "status",
    },
  ];
}

/** A watch event's line, as the apiserver writes it. `joined`: with a controller owner and a source label. */
function line(
  w: Widget,
  type: "ADDED" | "MODIFIED",
  resourceVersion: number,
  flip: number,
  joined: boolean,
): string {
  const body = widgetBody(w.namespace, w.name, w.index);
  const metadata = {
    ...body.metadata,
    labels: {
      ...body.metadata.labels,
      ...(joined && {
        "kustomize.toolkit.fluxcd.io/name": "apps",
        "kustomize.toolkit.fluxcd.io/namespace": w.namespace,
      }),
    },
    namespace: w.namespace,
    uid: w.uid,
    resourceVersion: String(resourceVersion),
    generation: 1,
    creationTimestamp: "2026-01-01T00:00:00Z",
    managedFields: managedFields(body.metadata.labels, new Date(epoch + resourceVersion).toISOString()),
    ...(joined && {
      ownerReferences: [
        {
          apiVersion: "example.com/v1",
          kind: "WidgetSet",
          name: "set",
          uid: ownerUid,
          controller: true,
          blockOwnerDeletion: true,
        },
      ],
    }),
  };
  const object = { ...body, metadata, status: widgetStatus(w.index, 1, flip, epoch + resourceVersion) };
  return JSON.stringify({ type, object });
}

const joinedTracing = {
  parent: "owner" as const,
  source: {
    group: "kustomize.toolkit.fluxcd.io",
    kind: "Kustomization",
    ref: {
      name: { fromLabel: "kustomize.toolkit.fluxcd.io/name" },
      namespace: { fromLabel: "kustomize.toolkit.fluxcd.io/namespace" },
    },
  },
};

function tracing(): { tracer: StateTracer; exporter: InMemorySpanExporter } {
  const exporter = new InMemorySpanExporter();
  const tracer = createTracing({
    cluster: "bench",
    destination: { spanProcessors: [new SimpleSpanProcessor({ exporter })] },
    sampling: { kind: "always_on" },
    env: {},
    logger: silentLogger,
  });
  return { tracer, exporter };
}

/** Shard 0 of 3's collector for widgets, tracing on; `across`: tracing.joinAcrossShards. */
function shardCollector(tracer: StateTracer, across: boolean, joined: boolean) {
  return offlineCollector({
    tracer,
    owns: shard0,
    sharded: () => true,
    joins: { traceContextAnnotation: "opentelemetry.io/trace-context", acrossShards: across },
    ...(joined && { tracing: joinedTracing as never }),
  }).collector;
}

/** Live heap per object after `count` objects' ADDED lines went through the collector. */
function heapPerObject(
  keep: (uid: string) => boolean,
  joined: boolean,
  count: number,
  across = true,
): number {
  const { tracer } = tracing();
  const collector = shardCollector(tracer, across, joined);
  const fleet = widgets(count, keep);
  const before = liveHeapBytes();
  for (const w of fleet) {
    const event = JSON.parse(line(w, "ADDED", 1, 0, joined)) as { type: "ADDED"; object: unknown };
    collector.ingest(event.type, event.object);
  }
  const after = liveHeapBytes();
  // Kept reachable until measured.
  if (collector.store.size < 0 || fleet.length < 0) console.log("");
  return (after - before) / count;
}

const cpuMicros = () => {
  const u = process.cpuUsage();
  return u.user + u.system;
};
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] as number;

const turn = () => new Promise((resolve) => setImmediate(resolve));

/**
 * CPU µs per event: `handle` applied to each line of a round (the lines are
 * built before the clock starts), and the turn of the event loop after it, in
 * which the SDK hands the spans ended to the exporter.
 */
async function perEvent(
  lines: string[][],
  handle: (line: string) => void,
  between: () => void,
): Promise<number> {
  const samples: number[] = [];
  for (const round of lines) {
    between();
    const start = cpuMicros();
    for (const l of round) handle(l);
    await turn();
    samples.push((cpuMicros() - start) / round.length);
  }
  return median(samples);
}

async function cpuPerEvent(): Promise<{
  foreignPeek: number;
  foreignIndexed: number;
  own: number;
  spansPerOwnEvent: number;
}> {
  const population = Math.min(objects, 10_000);
  const mine = widgets(population, shard0);
  const others = widgets(population, (uid) => !shard0(uid));
  const { tracer, exporter } = tracing();
  const collector = shardCollector(tracer, true, false);
  // Listed first: every object known, as after a list.
  for (const w of [...mine, ...others]) {
    const event = JSON.parse(line(w, "ADDED", 1, 0, false)) as { object: unknown };
    collector.ingest("ADDED", event.object);
  }
  await turn();
  exporter.reset();
  let rv = 2;
  const roundsOf = (ws: Widget[]) =>
    Array.from({ length: rounds + 1 }, (_, r) =>
      Array.from({ length: eventsPerRound }, (_, i) => {
        const w = ws[(r * eventsPerRound + i) % ws.length] as Widget;
        return line(w, "MODIFIED", rv++, Math.floor((r * eventsPerRound + i) / ws.length) + 1, false);
      }),
    );
  const apply = (l: string) => {
    const event = JSON.parse(l) as { type: "MODIFIED"; object: unknown };
    collector.ingest(event.type, event.object);
  };
  // What the list/watch loop does with another shard's line without joinAcrossShards (list-watch.ts #foreignEvent).
  const peek = (l: string) => {
    const type = peekStrings(l, [], ["type"])?.get("type");
    const meta = peekStrings(l, ["object", "metadata"], ["resourceVersion", "uid"]);
    const uid = meta?.get("uid");
    if (type === undefined || uid === undefined || shard0(uid)) throw new Error("not another shard's line");
  };
  const drop = () => exporter.reset();
  const foreignLines = roundsOf(others);
  // The first round of each warms up and is not counted.
  const foreignPeek = await perEvent(foreignLines.slice(1), peek, drop);
  await perEvent(foreignLines.slice(0, 1), apply, drop);
  const foreignIndexed = await perEvent(foreignLines.slice(1), apply, drop);
  const ownLines = roundsOf(mine);
  let spans = 0;
  await perEvent(ownLines.slice(0, 1), apply, drop);
  const own = await perEvent(ownLines.slice(1), apply, () => {
    spans += exporter.getFinishedSpans().length;
    exporter.reset();
  });
  spans += exporter.getFinishedSpans().length;
  return { foreignPeek, foreignIndexed, own, spansPerOwnEvent: spans / (rounds * eventsPerRound) };
}

const load = () => loadavg().map((x) => x.toFixed(2));
const loadBefore = load();
const started = new Date().toISOString();
const lineBytes = line(widgets(1, () => true)[0] as Widget, "MODIFIED", 2, 1, false).length;
const entryPlain = heapPerObject((uid) => !shard0(uid), false, objects);
const entryJoined = heapPerObject((uid) => !shard0(uid), true, objects);
const foreignWithout = heapPerObject((uid) => !shard0(uid), false, Math.min(objects, 20_000), false);
const ownObject = heapPerObject(shard0, false, Math.min(objects, 20_000));
const cpu = await cpuPerEvent();
const result = {
  startedAt: started,
  cpus: `${cpus().length} × ${cpus()[0]?.model ?? "?"}`,
  node: process.version,
  objects,
  eventsPerRound,
  rounds,
  watchLineBytes: lineBytes,
  heapBytesPerEntry: { plain: Math.round(entryPlain), ownerAndSource: Math.round(entryJoined) },
  heapBytesPerOwnObject: Math.round(ownObject),
  heapBytesPerForeignObjectWithoutJoins: Math.round(foreignWithout),
  cpuMicrosPerEvent: {
    foreignWithoutJoins: Number(cpu.foreignPeek.toFixed(2)),
    foreignWithJoins: Number(cpu.foreignIndexed.toFixed(2)),
    own: Number(cpu.own.toFixed(2)),
  },
  spansPerOwnEvent: Number(cpu.spansPerOwnEvent.toFixed(3)),
  loadAverage: { before: loadBefore, after: load() },
};
console.log(JSON.stringify(result, null, 2));
if (flags.out) writeFileSync(flags.out, `${JSON.stringify(result, null, 2)}\n`);
