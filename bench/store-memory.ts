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
import { slotTails } from "../src/core/series/render.ts";
import { widgetBody, widgetStatus } from "./lib/fleet.ts";
import { type OfflineExporter, offlineExporter } from "./lib/ours-internals.ts";
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

/**
 * A widget as the apiserver serves it: metadata filled in, a status; and, as
 * from a watch, parsed from its JSON text, so every string is the object's own
 * (JSON.parse shares only short ones), not a literal shared by all widgets.
 */
function served(w: Widget, index: number, resourceVersion: number, flip: number): unknown {
  return JSON.parse(JSON.stringify(apiObject(w, index, resourceVersion, flip)));
}

function apiObject(w: Widget, index: number, resourceVersion: number, flip: number): unknown {
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

async function renderedBytes(write: () => AsyncIterable<string>): Promise<number> {
  let bytes = 0;
  for await (const chunk of write()) bytes += chunk.length;
  return bytes;
}

/** The fleet's N widgets, kept reachable until the measurement ends. */
function fleetWidgets(): Widget[] {
  const widgets = Array.from({ length: objects }, (_, i) => ({
    body: widgetBody(`bench${String(i % 50).padStart(2, "0")}`, `widget-${i}`, i),
    uid: randomUUID(),
    generation: 1,
  }));
  kept.push(widgets);
  return widgets;
}

/** An exporter of `allow` (undefined: the default set) that has seen every widget ADDED, at resourceVersions 1..N. */
function listed(widgets: Widget[], allow: readonly string[] | undefined): OfflineExporter {
  const exporter = offlineExporter(["Pending", "Provisioning", "Running", "Failed"], allow);
  kept.push(exporter);
  for (let i = 0; i < objects; i++) exporter.ingest("ADDED", served(widgets[i] as Widget, i, i + 1, 0));
  return exporter;
}

async function measure(label: string, allow: readonly string[] | undefined) {
  const widgets = fleetWidgets();
  const before = flags.snapshot ? snapshotNow(`${label}-before`) : undefined;
  const base = liveHeapBytes();
  const exporter = listed(widgets, allow);
  let resourceVersion = objects + 1;
  const afterList = liveHeapBytes() - base;
  const afterListSnapshot = flags.snapshot ? snapshotNow(`${label}-listed`) : undefined;
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
  if (before && afterListSnapshot && after) {
    const perObject = (at: Map<string, number>, kind: string) =>
      ((at.get(kind) ?? 0) - (before.get(kind) ?? 0)) / objects;
    const kinds = [...new Set([...afterListSnapshot.keys(), ...after.keys()])]
      .map((kind) => [kind, perObject(afterListSnapshot, kind), perObject(after, kind)] as const)
      .filter(([, l, a]) => Math.abs(l) >= 8 || Math.abs(a) >= 8)
      .sort((a, b) => b[2] - a[2]);
    console.log("  B/object after the list, after churn: kind of heap object");
    for (const [kind, l, a] of kinds)
      console.log(`  ${l.toFixed(0).padStart(6)} ${a.toFixed(0).padStart(6)}  ${kind}`);
  }
  kept.length = 0;
}

/**
 * Heap bytes of a flat one-byte string (the stored tails are flattened): a
 * 16-byte header (map, hash, length) and the characters, rounded up to 8.
 */
const stringHeapBytes = (text: string): number => (text === "" ? 0 : Math.ceil((16 + text.length) / 8) * 8);

/**
 * What each default family costs per object: the heap its stored tails take
 * (computed from the strings, each distinct text once for the families whose
 * text objects share, so it does not move with the collector's timing) and
 * its bytes in /metrics, beside the object's fixed part (the live
 * heap per object with no family: state, counters, labels, store). Printed as
 * the table docs/sizing.md shows.
 */
async function perFamily(): Promise<void> {
  const widgets = fleetWidgets();
  const base = liveHeapBytes();
  const none = listed(widgets, ["cr_no_such_family"]);
  const fixed = (liveHeapBytes() - base) / objects;
  kept.splice(kept.indexOf(none), 1);
  const all = listed(widgets, undefined);
  const series = all.series();
  console.log(
    `fixed part (no family): ${fixed.toFixed(0)} B/object of live heap (state, counters, labels, store)`,
  );
  const open = series.reduce((n, s) => n + stringHeapBytes(s?.open ?? ""), 0) / objects;
  console.log(`object labels, kept once per object: ${open.toFixed(0)} B/object`);
  console.log("| family | stored tails (B/object) | /metrics (B/object) |");
  console.log("| --- | ---: | ---: |");
  let stored = 0;
  let exposed = 0;
  const widths = new Map<string, number>();
  for await (const chunk of all.write()) {
    for (const line of chunk.split("\n")) {
      const name = line.slice(0, line.indexOf("{"));
      if (name) widths.set(name, (widths.get(name) ?? 0) + line.length + 1);
    }
  }
  for (const family of objectFamilies.filter((f) => f.defaultSet)) {
    const texts = series.map((one) => (one ? slotTails(one, family.slot) : ""));
    // A shared-text family's equal texts are one string per resource (src/collectors/shared-texts.ts).
    const held = family.sharedText ? [...new Set(texts)] : texts;
    const tails = held.reduce((n, text) => n + stringHeapBytes(text), 0) / objects;
    const text = (widths.get(`cr_${family.suffix}`) ?? 0) / objects;
    stored += tails;
    exposed += text;
    console.log(`| \`cr_${family.suffix}\` | ${tails.toFixed(0)} | ${text.toFixed(0)} |`);
  }
  console.log(`| all of the default set | ${stored.toFixed(0)} | ${exposed.toFixed(0)} |`);
  kept.length = 0;
}

if (flags.families) await perFamily();
else {
  // One set per process when asked (--only equal|default): nothing of the other's run in the heap.
  if (flags.only !== "default") await measure("equal information", equalInformationFamilies);
  if (flags.only !== "equal") await measure("default set", undefined);
}
