// The collector's one copy per resource of the series text objects share:
// the text every reader sees is unchanged, only label-only families are held,
// the table is bounded, and equal texts really become one string (measured on
// the heap: 20,000 objects' own copies against the held one).
import assert from "node:assert/strict";
import { test } from "node:test";
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { SharedTexts } from "../../../src/collectors/shared-texts.ts";
import { type HeldLabels, noHeldLabels } from "../../../src/core/change/label-bounds.ts";
import { objectFamilies, slotOf } from "../../../src/core/series/catalog.ts";
import { type ObjectSeries, slotTails } from "../../../src/core/series/render.ts";
import type { ObjectState } from "../../../src/core/state.ts";

/** A series with its own (flat, unshared) copy of each text. */
function series(texts: Partial<Record<keyof typeof slotOf, string>>): ObjectSeries {
  let slots = 0;
  const tails: string[] = [];
  for (const f of objectFamilies) {
    const text = texts[f.key];
    if (text === undefined) continue;
    // Concatenated at run time and flattened: a fresh string, as rendering makes one.
    const own = `${text.slice(0, 1)}${text.slice(1)}`;
    Number(own);
    slots |= 1 << f.slot;
    tails.push(own);
  }
  return { open: "{}", slots, tails, count: 1 };
}

const ready =
  ',type="Ready",status="True"} 1\n,type="Synced",status="True"} 1\n,type="Stalled",status="False"} 1';

test("texts are unchanged; only the shared-text families are held, each distinct text once", () => {
  const interner = new SharedTexts();
  const a = series({ condition: ready, phase: ',phase="Running"} 1', generation: "} 3" });
  const b = series({ condition: ready, phase: ',phase="Failed"} 1', generation: "} 3" });
  const before = [[...a.tails], [...b.tails]];
  interner.series(a);
  interner.series(b);
  interner.series(undefined);
  assert.deepEqual([a.tails, b.tails], before);
  // cr_condition once, two phases; cr_metadata_generation (a per-object number) not at all.
  assert.equal(interner.size, 3);
  assert.equal(objectFamilies.find((f) => f.key === "generation")?.sharedText, false);
});

test("past its bound, new texts are left as rendered and the table does not grow", () => {
  const interner = new SharedTexts(2);
  const all = ["A", "B", "C", "D"].map((p) => series({ phase: `,phase="${p}"} 1` }));
  for (const s of all) interner.series(s);
  assert.equal(interner.size, 2);
  assert.deepEqual(
    all.map((s) => slotTails(s, slotOf.phase)),
    ['phase="A"', 'phase="B"', 'phase="C"', 'phase="D"'].map((p) => `,${p}} 1`),
  );
});

test("equal texts of many objects are held as one string", () => {
  setFlagsFromString("--expose-gc");
  const gc = runInNewContext("gc") as () => void;
  const objects = 20_000;
  const heapAfter = (intern: boolean): number => {
    gc();
    const before = process.memoryUsage().heapUsed;
    const interner = new SharedTexts();
    const kept: ObjectSeries[] = [];
    for (let i = 0; i < objects; i++) {
      const s = series({ condition: ready });
      if (intern) interner.series(s);
      kept.push(s);
    }
    gc();
    const grown = process.memoryUsage().heapUsed - before;
    assert.equal(kept.length, objects);
    return grown;
  };
  const own = heapAfter(false);
  const shared = heapAfter(true);
  // Each own copy is about 100 bytes (measured: 70-100 saved per object); the series objects and arrays cost the same either way.
  assert.ok(own - shared > objects * 50, `own copies ${own} B, shared ${shared} B`);
});

test("a state's namespace, phase, condition types and reasons are held once each, their values unchanged", () => {
  const interner = new SharedTexts();
  const state = (namespace: string) => ({
    namespace,
    phase: "Provisioning",
    conditions: [
      { type: "Progressing", reason: "ReconciliationSucceeded" },
      { type: "Ready", reason: "ReconciliationSucceeded" },
    ],
  });
  const states = [state("team-payments"), state("team-payments"), state("team-search")];
  const before = structuredClone(states);
  for (const s of states) interner.state(s as unknown as ObjectState);
  assert.deepEqual(states, before);
  // Two namespaces, one phase, two types, one reason.
  assert.equal(interner.size, 6);
});

test("the phase and reasons an entry holds are held once each, their values unchanged; the frozen empty labels pass", () => {
  const interner = new SharedTexts();
  const held = () => ({
    phase: "Provisioning",
    reasons: ["ReconciliationSucceeded", "", "ReconciliationSucceeded"],
    states: [],
  });
  const all = [held(), held()];
  interner.labels(all[0] as HeldLabels);
  interner.labels(all[1] as HeldLabels);
  interner.labels(noHeldLabels);
  assert.deepEqual(all, [held(), held()]);
  // The phase, the reason and "" (a condition without reason).
  assert.equal(interner.size, 3);
});
