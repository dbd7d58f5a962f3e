// A resource's series sources hand the /metrics writer what is already
// rendered, and yield when a chunk is ready to send: the writer then sends it
// at once (no growing buffer). A store yields besides after every
// objectsPerYield objects read without a chunk, so that a family few objects
// have does not hold the event loop for a whole pass over the store.
import assert from "node:assert/strict";
import { test } from "node:test";
import { objectsPerYield } from "../../../src/collectors/series-sources.ts";
import { aggregateFamilies, objectFamilies } from "../../../src/core/series/catalog.ts";
import { ChunkWriter } from "../../../src/metrics/chunks.ts";
import type { FamilyRef, SeriesSource } from "../../../src/metrics/writer.ts";
import { offlineCollector } from "../../support/collector.ts";
import { widget } from "../../support/objects.ts";
import { slotLines } from "../../support/series.ts";

/** Chunks taken at each yield of `source` for `family`, and all the text written. */
function drain(source: SeriesSource, family: FamilyRef, chunkBytes: number) {
  const out = new ChunkWriter(chunkBytes);
  const takenPerYield: number[] = [];
  const chunks: string[] = [];
  for (const _ of source.write(family, out)) {
    const taken = out.take();
    takenPerYield.push(taken.length);
    chunks.push(...taken);
  }
  chunks.push(...out.end());
  return { takenPerYield, text: chunks.join("") };
}

test("per-object series: written object by object, yielding only when a chunk filled", () => {
  const c = offlineCollector();
  for (const name of ["a", "b", "c"]) c.collector.ingest("ADDED", widget({ name }));
  const [source] = c.collector.sources;
  assert.ok(source);
  const entries = [...c.collector.store.values()];
  const slot = objectFamilies.find((f) => entries.every((e) => slotLines(e.series, f.slot) !== ""))?.slot;
  assert.ok(slot !== undefined && slot >= 0, "a family every object has series in");
  const texts = entries.map((e) => slotLines(e.series, slot));
  // The chunk fills with the third object's text, not before.
  const chunkBytes = (texts[0]?.length ?? 0) + (texts[1]?.length ?? 0) + 1;
  const { takenPerYield, text } = drain(source, { kind: "object", slot }, chunkBytes);
  assert.deepEqual(takenPerYield, [1]);
  assert.equal(text, texts.join(""));
});

test("per-object series: a family no object has still yields every objectsPerYield objects read, with nothing to take", () => {
  const c = offlineCollector();
  const objects = 2 * objectsPerYield + 1;
  for (let i = 0; i < objects; i++) c.collector.ingest("ADDED", widget({ name: `w${i}` }));
  const [source] = c.collector.sources;
  assert.ok(source);
  const entries = [...c.collector.store.values()];
  const slot = objectFamilies.find((f) => entries.every((e) => slotLines(e.series, f.slot) === ""))?.slot;
  assert.ok(slot !== undefined, "a family no widget has series in");
  const { takenPerYield, text } = drain(source, { kind: "object", slot }, 1 << 20);
  assert.deepEqual(takenPerYield, [0, 0]);
  assert.equal(text, "");
});

test("aggregate series: written in one go, yielding once when that filled a chunk, else not at all", () => {
  const c = offlineCollector({ mode: "aggregate" });
  for (const name of ["a", "b"]) c.collector.ingest("ADDED", widget({ name }));
  const [source] = c.collector.sources;
  assert.ok(source);
  const family: FamilyRef = {
    kind: "aggregate",
    index: aggregateFamilies.findIndex((f) => f.key === "aggregateObjects"),
  };
  const small = drain(source, family, 1);
  assert.deepEqual(small.takenPerYield, [1]);
  assert.match(small.text, /^cr_\w+\{group="example\.com",kind="Widget",namespace="ns1"\} 2\n$/);
  const large = drain(source, family, 1 << 20);
  assert.deepEqual(large.takenPerYield, []);
  assert.equal(large.text, small.text);
});
