// The readiness model's state-field rules at their edges: which field is read,
// the exact failedAfter boundary, the earliest of several due times, a field
// with ready values gating Current, and isReady with and without gating fields.
import assert from "node:assert/strict";
import { test } from "node:test";
import {
  defaultReadinessRules,
  isReady,
  judge,
  type ReadinessRules,
  stateOf,
} from "../../src/core/judge/readiness.ts";
import { defaultProjectionSettings, projectObject } from "../../src/core/project/project.ts";
import type { ObjectState, StateValue } from "../../src/core/state.ts";
import { cond, widget } from "../support/objects.ts";

const value = (name: string, v: string, since = 1_000): StateValue => ({
  name,
  value: v,
  since,
  sinceSource: "first_seen",
});
const withStates = (states: StateValue[], conditions = [cond("Ready", "True")]): ObjectState => ({
  ...projectObject(widget({ status: { conditions } }), defaultProjectionSettings),
  states,
});
const rules = (
  states: ReadinessRules["states"],
  overrides: Partial<ReadinessRules> = {},
): ReadinessRules => ({
  ...defaultReadinessRules,
  failedAfterSeconds: 300,
  states,
  ...overrides,
});
const noReadyCondition = { readyCondition: undefined };

test("stateOf reads the named field among several", () => {
  const s = withStates([value("sync", "Synced"), value("health", "Degraded")]);
  assert.equal(stateOf(s, "health"), "Degraded");
  assert.equal(stateOf(s, "sync"), "Synced");
  assert.equal(stateOf(s, "other"), undefined);
});

test("a failed value turns Failed exactly failedAfter after it began", () => {
  const r = rules([{ name: "health", ready: [], failed: ["Degraded"] }]);
  const s = withStates([value("health", "Degraded", 1_000)]);
  assert.deepEqual([judge(s, r, 1_299).result, judge(s, r, 1_299).failsAt], ["InProgress", 1_300]);
  assert.deepEqual([judge(s, r, 1_300).result, judge(s, r, 1_300).by], ["Failed", "failed_after"]);
});

test("with several failed values the earliest due time is the one reported, in either order", () => {
  const early = value("health", "Degraded", 1_000);
  const late = value("sync", "Error", 1_100);
  const r = rules([
    { name: "health", ready: [], failed: ["Degraded"] },
    { name: "sync", ready: [], failed: ["Error"] },
  ]);
  assert.equal(judge(withStates([early, late]), r, 1_050).failsAt, 1_300);
  assert.equal(judge(withStates([late, early]), rules([...r.states].reverse()), 1_050).failsAt, 1_300);
  const same = rules([
    { name: "sync", ready: [], failed: ["Error"] },
    { name: "health", ready: [], failed: ["Degraded"] },
  ]);
  assert.equal(
    judge(withStates([early, late]), same, 1_050).state?.name,
    "health",
    "the earliest, whatever the rule order",
  );
  assert.equal(
    judge(withStates([value("health", "Degraded", 1_100), late]), same, 1_150).state?.name,
    "sync",
    "equal due times: the first field",
  );
});

test("a field with ready values gates Current; one without ready values does not", () => {
  const gating = rules([{ name: "health", ready: ["Healthy"], failed: [] }], noReadyCondition);
  assert.equal(judge(withStates([value("health", "Progressing")], []), gating, 2_000).result, "InProgress");
  assert.equal(judge(withStates([value("health", "Healthy")], []), gating, 2_000).result, "Current");
  const informative = rules([{ name: "health", ready: [], failed: [] }], noReadyCondition);
  assert.equal(judge(withStates([value("health", "Progressing")], []), informative, 2_000).by, "observed");
});

test("isReady: the ready condition and every gating field; fields without ready values do not count", () => {
  const r = rules([
    { name: "health", ready: ["Healthy"], failed: [] },
    { name: "note", ready: [], failed: [] },
  ]);
  assert.equal(isReady(withStates([value("health", "Healthy"), value("note", "x")]), r), true);
  assert.equal(isReady(withStates([value("health", "Progressing"), value("note", "x")]), r), false);
  assert.equal(
    isReady(withStates([value("note", "x")]), r),
    false,
    "a gating field that is missing is not ready",
  );
  assert.equal(isReady(withStates([value("health", "Healthy")], [cond("Ready", "False")]), r), false);
});

test("a missing gating field is not ready even when its ready list holds an empty string", () => {
  // The config accepts "" as a value; a field is never projected as "", so only a missing one could match it.
  const r = rules([{ name: "health", ready: ["", "Healthy"], failed: [] }]);
  const missing = withStates([]);
  assert.equal(isReady(missing, r), false);
  assert.equal(judge(missing, r, 2_000).result, "InProgress", "judge agrees");
  assert.equal(isReady(withStates([value("health", "Healthy")]), r), true);
});
