// The transition ring kept in each store entry: fed by applyChange's own
// transitions, empty at first sight, unchanged by replays and no-op writes,
// carried through the clock-driven refresh and a re-render.
import assert from "node:assert/strict";
import { test } from "node:test";
import { newKindLearning } from "../../src/core/change/label-bounds.ts";
import {
  applyChange,
  type KindSettings,
  refreshSummary,
  rerender,
} from "../../src/core/change/object-update.ts";
import { emptyRing, ringCaps } from "../../src/core/change/transition-ring.ts";
import type { ObjectEntry } from "../../src/core/entry.ts";
import { defaultReadinessRules } from "../../src/core/judge/readiness.ts";
import { defaultProjectionSettings } from "../../src/core/project/project.ts";
import { cond, t, widget } from "../support/objects.ts";

const kind: KindSettings = {
  projection: defaultProjectionSettings,
  readiness: defaultReadinessRules,
  generationSource: "status",
  phaseTransitions: undefined,
  render: undefined,
};
const learning = newKindLearning({ phaseEnum: [], maxReasons: 20 });

function ready(rv: number, status: "True" | "False", at: string, message = ""): unknown {
  return widget({
    resourceVersion: String(rv),
    status: {
      observedGeneration: 1,
      conditions: [cond("Ready", status, at, { reason: status === "True" ? "Ok" : "Broken", message })],
    },
  });
}

test("first sight leaves the ring empty (the shared empty ring)", () => {
  const { entry } = applyChange(undefined, ready(1, "False", "2026-01-01T00:00:00Z"), kind, learning, 100);
  assert.equal(entry.ring, emptyRing);
});

test("a condition flip is recorded with its reason and capped message; a replay or no-op write is not", () => {
  let entry: ObjectEntry = applyChange(
    undefined,
    ready(1, "True", "2026-01-01T00:00:00Z"),
    kind,
    learning,
    t("2026-01-01T00:00:01Z"),
  ).entry;
  entry = applyChange(
    entry,
    ready(2, "False", "2026-01-01T00:01:00Z", "x".repeat(500)),
    kind,
    learning,
    t("2026-01-01T00:01:01Z"),
  ).entry;
  assert.deepEqual(entry.ring, [
    {
      at: t("2026-01-01T00:01:00Z"),
      what: "condition",
      type: "Ready",
      from: "True",
      to: "False",
      reason: "Broken",
      message: `${"x".repeat(ringCaps.messageChars - 3)}...`,
    },
  ]);
  const ring = entry.ring;
  // The same resourceVersion again (a relist) and a write that changes only the message.
  entry = applyChange(entry, ready(2, "False", "2026-01-01T00:01:00Z"), kind, learning, 200).entry;
  entry = applyChange(entry, ready(3, "False", "2026-01-01T00:01:00Z", "other"), kind, learning, 200).entry;
  assert.equal(entry.ring, ring);
  assert.equal(refreshSummary(entry, kind, t("2026-01-02T00:00:00Z")).ring, ring);
  assert.equal(rerender(entry, kind).ring, ring);
});

test("the ring keeps the newest ringCaps.capacity changes", () => {
  let entry = applyChange(undefined, ready(1, "True", "2026-01-01T00:00:00Z"), kind, learning, 0).entry;
  for (let i = 1; i <= 20; i++) {
    const at = `2026-01-01T00:${String(i).padStart(2, "0")}:00Z`;
    entry = applyChange(entry, ready(1 + i, i % 2 ? "False" : "True", at), kind, learning, t(at)).entry;
  }
  assert.equal(entry.ring.length, ringCaps.capacity);
  assert.equal(entry.ring.at(-1)?.at, t("2026-01-01T00:20:00Z"));
  assert.equal(entry.ring[0]?.at, t(`2026-01-01T00:${21 - ringCaps.capacity}:00Z`));
});
