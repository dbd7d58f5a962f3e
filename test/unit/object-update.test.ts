// applyChange and its siblings (core/change/object-update.ts) beyond the rendered
// text: what counts as nothing changed (a replay, a metadata-only write), the
// clock-driven refresh that re-renders only when the summary moves, and the
// shape the cost formulas read for objects without a generation or a phase,
// the label values of illegal phase moves, and what a kind without series holds.
import assert from "node:assert/strict";
import { test } from "node:test";
import { changedInputs } from "../../src/core/change/entry-diff.ts";
import { newKindLearning } from "../../src/core/change/label-bounds.ts";
import { applyChange, refreshSummary, shapeOf, shapeOfState } from "../../src/core/change/object-update.ts";
import { projectObject } from "../../src/core/project/project.ts";
import { inputBit, objectFamilies } from "../../src/core/series/catalog.ts";
import { kindSettings } from "../support/kind-settings.ts";
import { cond, t, widget } from "../support/objects.ts";
import { allLines, slotLines } from "../support/series.ts";

const kind = kindSettings();
const NOW = t("2026-01-01T01:00:00Z");
const learning = () => newKindLearning({ phaseEnum: [], maxReasons: 20 });

test("the same resourceVersion again is a replay: the entry itself, nothing changed, nothing to trace", () => {
  const l = learning();
  const raw = widget({ status: { conditions: [cond("Ready", "False")] } });
  const first = applyChange(undefined, raw, kind, l, NOW);
  assert.equal(first.changed, true, "first sight is a change (created)");
  const replay = applyChange(
    first.entry,
    widget({ status: { conditions: [cond("Ready", "True")] } }),
    kind,
    l,
    NOW,
  );
  assert.equal(
    replay.entry,
    first.entry,
    "a relist replaying resourceVersion 1 changes nothing, whatever it says",
  );
  assert.equal(replay.changed, false);
  assert.deepEqual(replay.transitions, []);
  assert.equal(replay.trace, undefined);
});

test("objects without a resourceVersion are compared version by version, never taken for a replay", () => {
  const l = learning();
  const bare = (status: string) =>
    widget({ resourceVersion: "", status: { conditions: [cond("Ready", status)] } });
  const first = applyChange(undefined, bare("False"), kind, l, NOW).entry;
  const next = applyChange(first, bare("True"), kind, l, NOW);
  assert.equal(next.changed, true);
  assert.equal(next.entry.state.conditions[0]?.status, "True");
});

test("a write that only changed labels is no change: no transitions, observations or trace", () => {
  const l = learning();
  const status = { observedGeneration: 1, conditions: [cond("Ready", "True")] };
  const first = applyChange(undefined, widget({ status }), kind, l, NOW).entry;
  const relabelled = applyChange(
    first,
    widget({ resourceVersion: "2", labels: { a: "b" }, status }),
    kind,
    l,
    NOW,
  );
  assert.deepEqual(relabelled.transitions, []);
  assert.equal(relabelled.changed, false);
  assert.equal(relabelled.trace, undefined);
  assert.deepEqual(relabelled.observations, {
    stateDurations: [],
    reconcile: undefined,
    timeToReadySeconds: undefined,
  });
  assert.equal(relabelled.entry.state.resourceVersion, "2", "the entry still moves to the new version");
});

test("an object first seen by a watch event (not the first list) dates a bare condition from first sight", () => {
  const raw = widget({ status: { conditions: [{ type: "Ready", status: "False" }] } });
  const { entry } = applyChange(undefined, raw, kind, learning(), NOW);
  assert.equal(entry.state.conditions[0]?.sinceSource, "first_seen");
  const listed = applyChange(undefined, raw, kind, learning(), NOW, true).entry;
  assert.equal(listed.state.conditions[0]?.sinceSource, "exporter_start");
});

test("refreshSummary returns the entry itself until the summary is due to change, then re-renders it", () => {
  const l = learning();
  const raw = widget({ status: { conditions: [cond("Ready", "False", "2026-01-01T00:58:00Z")] } });
  const { entry } = applyChange(undefined, raw, kind, l, NOW);
  assert.equal(entry.summary, "InProgress");
  assert.equal(entry.changesAt, t("2026-01-01T01:03:00Z"));
  assert.equal(refreshSummary(entry, kind, NOW + 60), entry, "not due: nothing to re-render");
  const due = refreshSummary(entry, kind, t("2026-01-01T01:03:00Z"));
  assert.notEqual(due, entry);
  assert.equal(due.summary, "Failed");
  assert.equal(due.changesAt, undefined);
  assert.match(allLines(due.series).join(""), /cr_status\{[^}]*result="Failed"\} 1/);
});

test("cost formulas hold for an object without metadata.generation, observedGeneration or phase", () => {
  const raw = widget({
    status: { conditions: [cond("Ready", "True", undefined, { observedGeneration: 1 })] },
  });
  delete (raw.metadata as Record<string, unknown>).generation;
  const { entry } = applyChange(undefined, raw, kind, learning(), NOW);
  const shape = shapeOf(entry);
  assert.equal(shape.generation, false);
  assert.equal(shape.phase, false);
  assert.equal(
    shape.conditionsWithGeneration,
    0,
    "a condition's observedGeneration needs a generation to compare",
  );
  for (const family of objectFamilies) {
    const text = slotLines(entry.series, family.slot);
    const lines = text === "" ? 0 : text.trimEnd().split("\n").length;
    assert.equal(family.cost.series(shape), lines, `cr_${family.suffix}`);
  }
});

test("shapeOfState: a sampled object that lags has a request time (first sight), one caught up has none", () => {
  const settings = { source: "status" as const, readyCondition: "Ready" };
  const lagging = projectObject(
    widget({ generation: 2, status: { observedGeneration: 1 } }),
    kind.projection,
  );
  const caughtUp = projectObject(
    widget({ generation: 2, status: { observedGeneration: 2 } }),
    kind.projection,
  );
  assert.equal(shapeOfState(lagging, settings, NOW).requestedAtKnown, true);
  assert.equal(shapeOfState(caughtUp, settings, NOW).requestedAtKnown, false);
  assert.equal(shapeOfState(caughtUp, settings, NOW).lagKnown, true);
});

test("changedInputs names exactly the inputs a write changed, so nothing else is re-rendered", () => {
  const base = { observedGeneration: 1, phase: "Running", conditions: [cond("Ready", "False")] };
  const cases: [string, Record<string, unknown>, Record<string, unknown>, string[]][] = [
    [
      "a new message only",
      {},
      { status: { ...base, conditions: [cond("Ready", "False", undefined, { message: "still waiting" })] } },
      ["statusWrites"],
    ],
    [
      "a new reason only",
      {},
      { status: { ...base, conditions: [cond("Ready", "False", undefined, { reason: "Other" })] } },
      ["conditionReason", "statusWrites"],
    ],
    ["a label that is not an exported label", {}, { labels: { team: "a" }, status: base }, []],
    ["the phase only", {}, { status: { ...base, phase: "Failed" } }, ["phase", "statusWrites"]],
    [
      "a condition's observedGeneration only",
      {},
      { status: { ...base, conditions: [cond("Ready", "False", undefined, { observedGeneration: 1 })] } },
      ["conditionGeneration", "statusWrites"],
    ],
    [
      "Ready flips",
      {},
      { status: { ...base, conditions: [cond("Ready", "True")] } },
      ["conditionStatus", "summary", "statusWrites", "conditionTransitions"],
    ],
  ];
  for (const [name, before, after, expected] of cases) {
    const l = learning();
    const first = applyChange(undefined, widget({ status: base, ...before }), kind, l, NOW).entry;
    const next = applyChange(first, widget({ resourceVersion: "2", ...after }), kind, l, NOW).entry;
    const changed = changedInputs(first, next);
    const names = Object.entries(inputBit)
      .filter(([, bit]) => changed & bit)
      .map(([input]) => input);
    assert.deepEqual(names.sort(), [...expected].sort(), name);
  }
});

test("a condition that disappears counts no transition: it has no new status to count under", () => {
  const l = learning();
  const status = (conditions: unknown[]) => ({ observedGeneration: 1, conditions });
  const first = applyChange(undefined, widget({ status: status([cond("Ready", "False")]) }), kind, l, NOW);
  const flipped = applyChange(
    first.entry,
    widget({ resourceVersion: "2", status: status([cond("Ready", "True")]) }),
    kind,
    l,
    NOW,
  ).entry;
  assert.deepEqual([...(flipped.counters.transitions ?? [])], [["Ready\u0000True", 1]]);
  const removed = applyChange(flipped, widget({ resourceVersion: "3", status: status([]) }), kind, l, NOW);
  assert.ok(
    removed.transitions.some((t) => t.kind === "condition" && t.to === undefined),
    "the removal is a transition",
  );
  assert.equal(
    removed.entry.counters.transitions,
    flipped.counters.transitions,
    "the counts are kept as they were",
  );
  assert.equal(changedInputs(flipped, removed.entry) & inputBit.conditionTransitions, 0);
});

test("an illegal phase move names phases of the table as themselves and a made-up phase as other", () => {
  const moves = kindSettings({ phaseTransitions: { Pending: ["Running"], Running: ["Succeeded"] } });
  const l = learning();
  const phased = (phase: string, resourceVersion: string) => widget({ resourceVersion, status: { phase } });
  const pending = applyChange(undefined, phased("Pending", "1"), moves, l, NOW).entry;
  const madeUp = applyChange(pending, phased("Exploding", "2"), moves, l, NOW);
  assert.deepEqual(madeUp.illegalPhaseMoves, [{ from: "Pending", to: "other" }]);
  const back = applyChange(madeUp.entry, phased("Succeeded", "3"), moves, l, NOW);
  assert.deepEqual(
    back.illegalPhaseMoves,
    [{ from: "other", to: "Succeeded" }],
    "a target only is named too",
  );
});

test("a kind whose series are not rendered holds no condition reasons, leaving their places to kinds that render", () => {
  const l = learning();
  const raw = widget({ status: { conditions: [cond("Ready", "False", undefined, { reason: "Waiting" })] } });
  const { entry } = applyChange(undefined, raw, kindSettings({ render: undefined }), l, NOW);
  assert.deepEqual(entry.labels.reasons, []);
  assert.equal(l.reasons.size, 0);
});
