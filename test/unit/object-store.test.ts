// ObjectStore: entries by uid, one uid per namespace/name, and the running
// count of rendered series (the resource's series gauge and the series cap
// read it) kept right through replace, delete and clear.
import assert from "node:assert/strict";
import { test } from "node:test";
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { ObjectStore } from "../../src/collectors/object-store.ts";
import type { ObjectEntry } from "../../src/core/entry.ts";

/** Only what the store reads: the name and the series count (undefined: not rendered). */
const entry = (name: string, series: number | undefined, namespace = "ns1") =>
  ({
    state: { namespace, name },
    series: series === undefined ? undefined : { open: "", slots: 0, tails: [], count: series },
  }) as unknown as ObjectEntry;

test("the series count follows adds, replacements, unrendered entries and deletes", () => {
  const store = new ObjectStore();
  store.set("u1", entry("a", 5));
  store.set("u2", entry("b", 3));
  assert.equal(store.series, 8);
  store.set("u1", entry("a", 7));
  assert.equal(store.series, 10, "a replacement counts its difference");
  store.set("u2", entry("b", undefined));
  assert.equal(store.series, 7, "an entry left out by the cap counts 0");
  assert.equal(store.delete("u1")?.state.name, "a");
  assert.equal(store.series, 0);
  assert.equal(store.delete("u1"), undefined, "deleting an unknown uid changes nothing");
  assert.equal(store.series, 0);
  assert.equal(store.size, 1);
  store.set("u3", entry("c", 4));
  store.clear();
  assert.deepEqual([store.size, store.series], [0, 0]);
  store.set("u4", entry("d", 2));
  assert.equal(store.series, 2, "counting starts again from 0 after clear");
});

test("previousHolder names the other uid holding the same namespace/name, never the same uid", () => {
  const store = new ObjectStore();
  store.set("old", entry("w", 1));
  assert.equal(store.previousHolder({ namespace: "ns1", name: "w" }, "new"), "old");
  assert.equal(store.previousHolder({ namespace: "ns1", name: "w" }, "old"), undefined);
  assert.equal(
    store.previousHolder({ namespace: "ns2", name: "w" }, "new"),
    undefined,
    "names are per namespace",
  );
  store.delete("old");
  assert.equal(store.previousHolder({ namespace: "ns1", name: "w" }, "new"), undefined, "deleted: no holder");
  store.set("new", entry("w", 1));
  assert.equal(store.previousHolder({ namespace: "ns1", name: "w" }, "x"), "new");
  store.clear();
  assert.equal(store.previousHolder({ namespace: "ns1", name: "w" }, "x"), undefined, "clear forgets names");
});

test("a namespace whose last object went leaves nothing behind in the names", () => {
  setFlagsFromString("--expose-gc");
  const gc = runInNewContext("gc") as () => void;
  const store = new ObjectStore();
  const namespaces = 20_000;
  const heapAfterAll = (round: number): number => {
    gc();
    const before = process.memoryUsage().heapUsed;
    for (let i = 0; i < namespaces; i++) store.set(`u${i}`, entry("w", 1, `ns-${round}-${i}`));
    for (let i = 0; i < namespaces; i++) store.delete(`u${i}`);
    gc();
    return (process.memoryUsage().heapUsed - before) / namespaces;
  };
  heapAfterAll(1);
  // A map of names kept per namespace gone would be over 100 bytes each.
  const perNamespace = heapAfterAll(2);
  assert.ok(perNamespace < 40, `${perNamespace.toFixed(1)} B per namespace gone`);
  assert.equal(store.size, 0);
});
