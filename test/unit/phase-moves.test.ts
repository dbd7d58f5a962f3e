// cr_phase_illegal_transitions_total: phase moves the configured
// phaseTransitions table does not allow are counted per namespace and move;
// allowed moves, first sight and a kind without a table count nothing.
import assert from "node:assert/strict";
import { test } from "node:test";
import { type OfflineCollector, offlineCollector } from "../support/collector.ts";
import { widget } from "../support/objects.ts";

const table = { Pending: ["Running"], Running: ["Succeeded", "Failed"] };

/** Applies the phases in turn to one object (w1 in ns1 unless given). */
function walk(c: OfflineCollector, phases: string[], name = "w1", namespace = "ns1"): void {
  for (const [i, phase] of phases.entries()) {
    c.collector.ingest(
      i === 0 ? "ADDED" : "MODIFIED",
      widget({ name, namespace, resourceVersion: String(i + 1), status: { phase } }),
    );
  }
}

async function counted(c: OfflineCollector): Promise<string[]> {
  const { values } = await c.metrics.kinds.phaseIllegalTransitions.get();
  return values
    .map(({ labels, value }) => {
      const l = labels as Record<string, string>;
      return `${l.namespace} ${l.from}→${l.to} ${value}`;
    })
    .sort();
}

test("moves outside phaseTransitions are counted by namespace, from and to; allowed ones are not", async () => {
  const c = offlineCollector({ phaseTransitions: table });
  walk(c, ["Pending", "Running", "Succeeded"]);
  assert.deepEqual(await counted(c), [], "every move allowed");
  walk(c, ["Running", "Pending", "Running", "Pending"], "w2");
  walk(c, ["Succeeded", "Running"], "w3", "ns2");
  assert.deepEqual(await counted(c), ["ns1 Running→Pending 2", "ns2 Succeeded→Running 1"]);
});

test("the phase an object has at first sight is not a move", async () => {
  const c = offlineCollector({ phaseTransitions: table });
  // Failed is nowhere in the table as a source, and Failed at first sight is no move at all.
  walk(c, ["Failed"]);
  assert.deepEqual(await counted(c), []);
});

test("a phase that appears or goes away is not a move", async () => {
  const c = offlineCollector({ phaseTransitions: table });
  c.collector.ingest("ADDED", widget({ resourceVersion: "1", status: {} }));
  c.collector.ingest("MODIFIED", widget({ resourceVersion: "2", status: { phase: "Succeeded" } }));
  c.collector.ingest("MODIFIED", widget({ resourceVersion: "3", status: {} }));
  assert.deepEqual(await counted(c), []);
});

test("without a phaseTransitions table nothing is checked", async () => {
  const c = offlineCollector();
  walk(c, ["Succeeded", "Pending"]);
  assert.deepEqual(await counted(c), []);
});
