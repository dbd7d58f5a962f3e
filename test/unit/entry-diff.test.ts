// What differs between two observations of one object: each render input is
// told apart on its own (so exactly its families are rendered again), and the
// label sources are compared so held label values are kept.
import assert from "node:assert/strict";
import { test } from "node:test";
import { changedInputs } from "../../src/core/change/entry-diff.ts";
import { newKindLearning, sameReasons, sameStates } from "../../src/core/change/label-bounds.ts";
import { applyChange } from "../../src/core/change/object-update.ts";
import type { ObjectEntry } from "../../src/core/entry.ts";
import { defaultReadinessRules } from "../../src/core/judge/readiness.ts";
import { defaultProjectionSettings } from "../../src/core/project/project.ts";
import { type Input, inputBit } from "../../src/core/series/catalog.ts";
import type { ConditionState, ObjectState } from "../../src/core/state.ts";
import { kindSettings } from "../support/kind-settings.ts";
import { cond, t, widget } from "../support/objects.ts";

const kind = kindSettings(
  {
    projection: {
      ...defaultProjectionSettings,
      extraLabels: [{ key: "app", name: "app", from: "label" }],
      states: [{ name: "health", path: ["status", "health", "status"] }],
    },
    readiness: defaultReadinessRules,
    generationSource: "status",
  },
  ["app"],
);
const learning = newKindLearning({ phaseEnum: [], maxReasons: 20 });

const base: ObjectEntry = applyChange(
  undefined,
  widget({
    generation: 2,
    labels: { app: "shop" },
    status: {
      observedGeneration: 1,
      phase: "Running",
      health: { status: "Healthy" },
      conditions: [
        cond("Ready", "True", "2026-01-01T00:01:00Z", { reason: "Up", observedGeneration: 1 }),
        cond("Synced", "False", "2026-01-01T00:02:00Z", { reason: "Behind", observedGeneration: 1 }),
      ],
    },
  }),
  kind,
  learning,
  t("2026-01-01T01:00:00Z"),
).entry;

const withState = (change: Partial<ObjectState>): ObjectEntry => ({
  ...base,
  state: { ...base.state, ...change },
});
const withCondition = (i: number, change: Partial<ConditionState>): ObjectEntry =>
  withState({
    conditions: base.state.conditions.map((c, j) => (j === i ? { ...c, ...change } : c)),
  });
const bits = (...names: Input[]): number => names.reduce((mask, name) => mask | inputBit[name], 0);
const conditionBits = bits("conditionStatus", "conditionTime", "conditionReason", "conditionGeneration");

test("no previous entry: everything changed", () => {
  assert.equal(changedInputs(undefined, base), -1);
});

test("the same entry: nothing changed", () => {
  assert.equal(changedInputs(base, base), 0);
  assert.equal(changedInputs(base, { ...base, state: { ...base.state } }), 0);
});

test("each input is told apart on its own", () => {
  const cases: [string, ObjectEntry, number][] = [
    ["an extra label value", withState({ extraLabels: { app: "cart" } }), bits("identity")],
    ["a condition status", withCondition(1, { status: "True" }), bits("conditionStatus")],
    ["a condition time", withCondition(1, { since: 5 }), bits("conditionTime")],
    ["a condition reason", withCondition(1, { reason: "Other" }), bits("conditionReason")],
    [
      "a condition's observedGeneration",
      withCondition(1, { observedGeneration: 2 }),
      bits("conditionGeneration"),
    ],
    ["generation", withState({ generation: 3 }), bits("generation")],
    ["observedGeneration", withState({ observedGeneration: 2 }), bits("observedGeneration")],
    ["lag", { ...base, lag: 7 }, bits("lag")],
    ["requestedAt", { ...base, memory: { ...base.memory, requestedAt: 9 } }, bits("requestedAt")],
    ["phase", withState({ phase: "Failed" }), bits("phase")],
    [
      "a state value",
      withState({
        states: [{ ...(base.state.states[0] as ObjectState["states"][number]), value: "Degraded" }],
      }),
      bits("states"),
    ],
    ["summary", { ...base, summary: "Failed" }, bits("summary")],
    ["deletion", withState({ deletionTimestamp: 1 }), bits("deletion")],
    ["heartbeat", withState({ heartbeat: 1 }), bits("heartbeat")],
    ["suspended", withState({ suspended: true }), bits("suspended")],
    ["status writes", { ...base, counters: { ...base.counters, statusUpdates: 1 } }, bits("statusWrites")],
    ["no-op writes", { ...base, counters: { ...base.counters, noopUpdates: 1 } }, bits("noopWrites")],
    [
      "generation changes",
      { ...base, counters: { ...base.counters, generationChanges: 1 } },
      bits("generationChanges"),
    ],
    [
      "condition transitions",
      { ...base, counters: { ...base.counters, transitions: new Map([["Ready\u0000False", 1]]) } },
      bits("conditionTransitions"),
    ],
  ];
  for (const [what, next, expected] of cases) assert.equal(changedInputs(base, next), expected, what);
});

test("a condition added, removed or replaced by another type changes every condition input", () => {
  const [ready, synced] = base.state.conditions as [ConditionState, ConditionState];
  assert.equal(changedInputs(base, withState({ conditions: [ready] })), conditionBits, "removed");
  assert.equal(changedInputs(withState({ conditions: [ready] }), base), conditionBits, "added");
  assert.equal(changedInputs(base, withState({ conditions: [synced, ready] })), conditionBits, "reordered");
  assert.equal(
    changedInputs(base, withCondition(0, { type: "Stalled" })),
    conditionBits,
    "another type, the rest alike",
  );
});

test("a condition's changes are found at any position, and all of them together", () => {
  assert.equal(
    changedInputs(base, withCondition(0, { status: "False", reason: "Down" })),
    bits("conditionStatus", "conditionReason"),
  );
  assert.equal(
    changedInputs(
      base,
      withCondition(1, { status: "True", since: 5, reason: "Caught", observedGeneration: 2 }),
    ),
    conditionBits,
  );
});

test("extra labels: a new value is a new identity; the same values are not", () => {
  assert.equal(changedInputs(base, withState({ extraLabels: { app: "shop" } })), 0);
  assert.equal(changedInputs(base, withState({ extraLabels: { app: "" } })), bits("identity"));
});

test("sameStates: the same names and values in the same order", () => {
  const a = base.state;
  const health = a.states[0] as ObjectState["states"][number];
  const sync = { name: "sync", value: "Synced", since: 1, sinceSource: "first_seen" as const };
  const b = (states: ObjectState["states"]) => ({ ...a, states });
  assert.equal(sameStates(a, b([{ ...health, since: 99 }])), true, "times do not count");
  assert.equal(sameStates(a, b([{ ...health, value: "Degraded" }])), false);
  assert.equal(sameStates(a, b([{ ...health, name: "other" }])), false);
  assert.equal(sameStates(a, b([])), false);
  assert.equal(sameStates(b([]), b([])), true);
  assert.equal(sameStates(b([health, sync]), b([sync, health])), false);
  assert.equal(sameStates(b([health]), b([health, sync])), false);
});

test("sameReasons: the same types and reasons in the same order; statuses do not count", () => {
  const [ready, synced] = base.state.conditions as [ConditionState, ConditionState];
  assert.equal(sameReasons([ready, synced], [{ ...ready, status: "False", since: 1 }, synced]), true);
  assert.equal(sameReasons([ready, synced], [ready, { ...synced, reason: "Other" }]), false);
  assert.equal(sameReasons([ready, synced], [ready, { ...synced, type: "Other" }]), false);
  assert.equal(sameReasons([ready, synced], [synced, ready]), false);
  assert.equal(sameReasons([ready], [ready, synced]), false);
  assert.equal(sameReasons([ready, synced], [ready]), false);
  assert.equal(sameReasons([], []), true);
});
