// Incremental rendering re-renders only the families whose inputs changed
// (object-update.ts changedInputs, the catalog's input lists) and keeps the
// text of the others. Over random histories of one object, every step's series
// must equal a render from scratch of the same entry: a family that misses a
// change keeps stale text, and this fails.
import assert from "node:assert/strict";
import { test } from "node:test";
import fc from "fast-check";
import { newKindLearning } from "../../src/core/change/label-bounds.ts";
import { applyChange, refreshSummary, rerender } from "../../src/core/change/object-update.ts";
import type { ObjectEntry } from "../../src/core/entry.ts";
import { defaultReadinessRules } from "../../src/core/judge/readiness.ts";
import { defaultProjectionSettings } from "../../src/core/project/project.ts";
import { kindSettings } from "../support/kind-settings.ts";
import { t, widget } from "../support/objects.ts";

const kind = kindSettings(
  {
    projection: {
      ...defaultProjectionSettings,
      heartbeatPath: ["status", "lastHeartbeatTime"],
      extraLabels: [{ key: "app", name: "app", from: "label" }],
    },
    readiness: { ...defaultReadinessRules, failedAfterSeconds: 120 },
    generationSource: "status_or_condition",
  },
  ["app"],
);

const times = ["2026-01-01T00:00:00Z", "2026-01-01T00:03:00Z", "2026-01-01T00:07:00Z"];
const condition = (type: string) =>
  fc.record(
    {
      type: fc.constant(type),
      status: fc.constantFrom("True", "False", "Unknown"),
      reason: fc.constantFrom("A", "B", "C", ""),
      lastTransitionTime: fc.constantFrom(...times),
      observedGeneration: fc.integer({ min: 1, max: 3 }),
    },
    { requiredKeys: ["type", "status"] },
  );
const version = fc.record({
  generation: fc.integer({ min: 1, max: 3 }),
  app: fc.constantFrom("x", "y"),
  deleting: fc.boolean(),
  status: fc.record(
    {
      observedGeneration: fc.integer({ min: 1, max: 3 }),
      phase: fc.constantFrom("Pending", "Running", "Failed", "Odd"),
      lastHeartbeatTime: fc.constantFrom(...times),
      // Types appear, go away and come back in another order.
      conditions: fc
        .shuffledSubarray(["Ready", "Stalled", "Reconciling", "Synced"])
        .chain((types) => fc.tuple(...types.map(condition))),
    },
    { requiredKeys: [] },
  ),
  // Seconds the clock moves before this version; a tick only re-judges the summary.
  advanceSeconds: fc.integer({ min: 0, max: 200 }),
  tick: fc.boolean(),
});

test("after every change, incremental series equal a render from scratch", () => {
  fc.assert(
    fc.property(fc.array(version, { minLength: 1, maxLength: 8 }), (history) => {
      const learning = newKindLearning({ phaseEnum: [], maxReasons: 2 });
      let now = t("2026-01-01T00:05:00Z");
      let entry: ObjectEntry | undefined;
      history.forEach((v, i) => {
        now += v.advanceSeconds;
        if (entry && v.tick) {
          entry = refreshSummary(entry, kind, now);
          assert.deepEqual(entry.series, rerender(entry, kind).series, `tick before step ${i}`);
        }
        const raw = widget({
          resourceVersion: String(i + 1),
          generation: v.generation,
          labels: { app: v.app },
          ...(v.deleting ? { deletionTimestamp: "2026-01-01T00:09:00Z" } : {}),
          status: v.status,
        });
        entry = applyChange(entry, raw, kind, learning, now).entry;
        assert.deepEqual(entry.series, rerender(entry, kind).series, `step ${i}`);
      });
    }),
    { numRuns: 400 },
  );
});
