// What the exporter keeps per object, measured in this process without an
// apiserver: N widgets (the fleet's shape, bench/lib/fleet.ts) through the
// same ingest a watch event takes, for the equal-information and the default
// family sets. Reports the live heap per object after the initial list and
// after churn (status rewrites with a Ready flip now and then), the rendered
// series bytes per object beside it, and with --snapshot where the heap goes:
// two heap snapshots (before ingest, after churn) summed by kind of V8 object,
// the difference divided by N. Live bytes only (after a full GC): the runtime
// slack a real process adds on top is bench/run.ts's RSS.
//   node --expose-gc bench/store-memory.ts [--objects 10000] [--churn 50000] [--snapshot] [--only equal|default]
//   node --expose-gc bench/store-memory.ts --families   (the default set's families one at a time)
import { randomUUID } from "node:crypto";
import { readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { writeHeapSnapshot } from "node:v8";
import { objectFamilies } from "../src/core/series/catalog.ts";
import { widgetBody, widgetStatus } from "./lib/fleet.ts";
import { offlineExporter } from "./lib/ours-internals.ts";
import { equalInformationFamilies } from "./lib/subjects.ts";

const { values: flags } = parseArgs({
  options: {
    objects: { type: "string", default: "10000" },
    churn: { type: "string", default: "50000" },
    snapshot: { type: "boolean", default: false },
    only: { type: "string" },
    families: { type: "boolean", default: false },
  },
});
const objects = Number(flags.objects);
const churnEvents = Number(flags.churn);

const gc = (globalThis as { gc?: () => void }).gc;
if (!gc) {
  console.error("run with node --expose-gc");
  process.exit(2);
}

function liveHeapBytes(): number {
  // Twice: the first collection's finalizers free more for the second.
  gc?.();
  gc?.();
  return process.memoryUsage().heapUsed;
}

interface Widget {
  body: ReturnType<typeof widgetBody>;
  uid: string;
  generation: number;
}

/** A widget as the apiserver serves it: metadata filled in, a status. */
function served(w: Widget, index: number, resourceVersion: number, flip: number): unknown {
  return {
    ...w.body,
    metadata: {
      ...w.body.metadata,
      namespace: `bench${String(index % 50).padStart(2, "0")}`,
      uid: w.uid,
      resourceVersion: String(resourceVersion),
      generation: w.generation,
      creationTimestamp: "2026-01-01T00:00:00Z",
    },
    status: widgetStatus(index, w.generation, flip, Date.parse("2026-01-01T00:30:00Z") + resourceVersion),
  };
}

/** Summed self sizes of a heap snapshot by kind of node: strings, arrays, objects by constructor, … */
function heapByKind(file: string): Map<string, number> {
  const snapshot = JSON.parse(readFileSync(file, "utf8")) as {
    snapshot: { meta: { node_fields: string[]; node_types: [string[]] } };
    nodes: number[];
    strings: string[];
  };
  const fields = snapshot.snapshot.meta.node_fields;
  const types = snapshot.snapshot.meta.node_types[0];
  const stride = fields.length;
  const typeAt = fields.indexOf("type");
  const nameAt = fields.indexOf("name");
  const sizeAt = fields.indexOf("self_size");
  const out = new Map<string, number>();
  for (let i = 0; i < snapshot.nodes.length; i += stride) {
    const type = types[snapshot.nodes[i + typeAt] as number] as string;
    const size = snapshot.nodes[i + sizeAt] as number;
    const kind =
      type === "object" ? `object ${snapshot.strings[snapshot.nodes[i + nameAt] as number]}` : type;
    out.set(kind, (out.get(kind) ?? 0) + size);
  }
  return out;
}

function snapshotNow(label: string): Map<string, number> {
  const file = writeHeapSnapshot(join(tmpdir(), `store-memory-${process.pid}-${label}.heapsnapshot`));
  try {
    return heapByKind(file);
  } finally {
    rmSync(file, { force: true });
  }
}

/**
 * What each measurement keeps reachable to its end: V8 does not treat a local
 * no longer read as a root, so the widgets or the exporter would otherwise be
 * collected before the last snapshot and read as memory given back.
 */
const kept: unknown[] = [];

async function renderedBytes(write: () => AsyncIterable<Buffer>): Promise<number> {
  let bytes = 0;
  for await (const chunk of write()) bytes += chunk.length;
  return bytes;
}

async function measure(label: string, allow: readonly string[] | undefined) {
  const widgets: Widget[] = Array.from({ length: objects }, (_, i) => ({
    body: widgetBody(`bench${String(i % 50).padStart(2, "0")}`, `widget-${i}`, i),
    uid: randomUUID(),
    generation: 1,
  }));
  kept.push(widgets);
  const before = flags.snapshot ? snapshotNow(`${label}-before`) : undefined;
  const base = liveHeapBytes();
  const exporter = offlineExporter(["Pending", "Provisioning", "Running", "Failed"], allow);
  kept.push(exporter);
  let resourceVersion = 1;
  for (let i = 0; i < objects; i++)
    exporter.ingest("ADDED", served(widgets[i] as Widget, i, resourceVersion++, 0));
  const afterList = liveHeapBytes() - base;
  const listed = flags.snapshot ? snapshotNow(`${label}-listed`) : undefined;
  const rendered = await renderedBytes(exporter.write);
  for (let e = 0; e < churnEvents; e++) {
    const i = Math.floor(Math.random() * objects);
    exporter.ingest("MODIFIED", served(widgets[i] as Widget, i, resourceVersion++, e % 7 === 0 ? e : 0));
  }
  const afterChurn = liveHeapBytes() - base;
  const after = flags.snapshot ? snapshotNow(`${label}-after`) : undefined;
  console.log(
    `${label}: ${objects} objects, ${churnEvents} events: live heap ${(afterList / objects).toFixed(0)} B/object after the list, ${(afterChurn / objects).toFixed(0)} B/object after churn; rendered series ${(rendered / objects).toFixed(0)} B/object`,
  );
  if (before && listed && after) {
    const perObject = (at: Map<string, number>, kind: string) =>
      ((at.get(kind) ?? 0) - (before.get(kind) ?? 0)) / objects;
    const kinds = [...new Set([...listed.keys(), ...after.keys()])]
      .map((kind) => [kind, perObject(listed, kind), perObject(after, kind)] as const)
      .filter(([, l, a]) => Math.abs(l) >= 8 || Math.abs(a) >= 8)
      .sort((a, b) => b[2] - a[2]);
    console.log("  B/object after the list, after churn: kind of heap object");
    for (const [kind, l, a] of kinds)
      console.log(`  ${l.toFixed(0).padStart(6)} ${a.toFixed(0).padStart(6)}  ${kind}`);
  }
  kept.length = 0;
}

/** Live heap per object after the list with only `allow` exported (no churn). */
async function listedBytesPerObject(allow: readonly string[]): Promise<{ bytes: number; rendered: number }> {
  const widgets = Array.from({ length: objects }, (_, i) => ({
    body: widgetBody(`bench${String(i % 50).padStart(2, "0")}`, `widget-${i}`, i),
    uid: randomUUID(),
    generation: 1,
  }));
  kept.push(widgets);
  const base = liveHeapBytes();
  const exporter = offlineExporter(["Pending", "Provisioning", "Running", "Failed"], allow);
  kept.push(exporter);
  for (let i = 0; i < objects; i++) exporter.ingest("ADDED", served(widgets[i] as Widget, i, i + 1, 0));
  const bytes = (liveHeapBytes() - base) / objects;
  const rendered = (await renderedBytes(exporter.write)) / objects;
  kept.length = 0;
  return { bytes, rendered };
}

/**
 * The default set's families one at a time: the heap each adds per object to
 * an object with no family (its state, counters and labels), and its bytes
 * in /metrics. Printed as the table docs/sizing.md shows.
 */
async function perFamily(): Promise<void> {
  const none = await listedBytesPerObject(["cr_no_such_family"]);
  console.log(`no family: ${none.bytes.toFixed(0)} B/object (state, counters, labels, store)`);
  console.log("| family | heap per object (B) | /metrics per object (B) |");
  console.log("| --- | ---: | ---: |");
  for (const family of objectFamilies.filter((f) => f.defaultSet)) {
    const one = await listedBytesPerObject([`cr_${family.suffix}`]);
    console.log(
      `| \`cr_${family.suffix}\` | ${(one.bytes - none.bytes).toFixed(0)} | ${one.rendered.toFixed(0)} |`,
    );
  }
}

if (flags.families) await perFamily();
else {
  // One set per process when asked (--only equal|default): nothing of the other's run in the heap.
  if (flags.only !== "default") await measure("equal information", equalInformationFamilies);
  if (flags.only !== "equal") await measure("default set", undefined);
}
