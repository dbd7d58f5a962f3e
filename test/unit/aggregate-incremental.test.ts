// Aggregate mode keeps its per-namespace counts incrementally: each change
// takes the object's old contribution out and puts the new one in, a delete
// takes it out, a count at 0 disappears. Over random event sequences the
// counts must equal those of a fresh collector given only the objects alive at
// the end.
import assert from "node:assert/strict";
import { test } from "node:test";
import fc from "fast-check";
import { offlineCollector, perObjectText } from "../support/collector.ts";
import { cond, widget } from "../support/objects.ts";

const event = fc.record({
  type: fc.constantFrom("ADDED", "MODIFIED", "MODIFIED", "DELETED"),
  object: fc.integer({ min: 0, max: 4 }),
  generation: fc.integer({ min: 1, max: 3 }),
  observedGeneration: fc.integer({ min: 1, max: 3 }),
  phase: fc.option(fc.constantFrom("Pending", "Running", "Failed"), { nil: undefined }),
  health: fc.option(fc.constantFrom("Healthy", "Degraded", "Progressing"), { nil: undefined }),
  suspend: fc.boolean(),
  conditions: fc.shuffledSubarray(["Ready", "Synced", "Stalled"]).chain((types) =>
    fc.tuple(
      ...types.map((type) =>
        fc
          .record({
            status: fc.constantFrom("True", "False", "Unknown"),
            at: fc.constantFrom("2026-01-01T00:01:00Z", "2026-01-01T00:58:00Z"),
          })
          .map(({ status, at }) => cond(type, status, at)),
      ),
    ),
  ),
});

// A state field and a suspend switch, so the state and suspended counts move too.
const aggregate = {
  mode: "aggregate",
  projection: {
    states: [{ name: "health", path: ["status", "health", "status"] }],
    suspendPath: ["spec", "suspend"],
  },
} as const;

const sortedLines = (text: string) => text.split("\n").filter(Boolean).sort();

test("aggregate counts after any event sequence equal the counts of the objects left", async () => {
  await fc.assert(
    fc.asyncProperty(fc.array(event, { minLength: 1, maxLength: 25 }), async (events) => {
      const incremental = offlineCollector(aggregate);
      const alive = new Map<number, Record<string, unknown>>();
      events.forEach((e, i) => {
        const raw = widget({
          name: `w${e.object}`,
          namespace: e.object % 2 === 0 ? "n0" : "n1",
          resourceVersion: String(i + 1),
          generation: e.generation,
          spec: { suspend: e.suspend },
          status: {
            observedGeneration: e.observedGeneration,
            ...(e.phase ? { phase: e.phase } : {}),
            ...(e.health ? { health: { status: e.health } } : {}),
            conditions: e.conditions,
          },
        });
        incremental.collector.ingest(e.type as "ADDED" | "MODIFIED" | "DELETED", raw);
        if (e.type === "DELETED") alive.delete(e.object);
        else alive.set(e.object, raw);
      });
      const fresh = offlineCollector(aggregate);
      for (const raw of alive.values()) fresh.collector.ingest("ADDED", raw);
      assert.deepEqual(
        sortedLines(await perObjectText(incremental)),
        sortedLines(await perObjectText(fresh)),
      );
    }),
    { numRuns: 200 },
  );
});
