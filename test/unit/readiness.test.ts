// The one readiness model (core/judge/readiness.ts) and the kstatus-like summary
// built on it: a table of objects × rules → result and when it changes next.
import assert from "node:assert/strict";
import { test } from "node:test";
import {
  defaultReadinessRules,
  desiredStatus,
  isReady,
  isReconciled,
  isSettled,
  judge,
  type ReadinessRules,
  summarizeStatus,
} from "../../src/core/judge/readiness.ts";
import { defaultProjectionSettings, projectObject } from "../../src/core/project/project.ts";
import { cond, t, type WidgetInit, widget } from "../support/objects.ts";

const p = (init: WidgetInit) => projectObject(widget(init), defaultProjectionSettings);
const at = "2026-01-01T00:10:00Z";
const rules = (overrides: Partial<ReadinessRules> = {}): ReadinessRules => ({
  ...defaultReadinessRules,
  ...overrides,
});
const ready = rules();
const available = rules({ readyCondition: "Available" });
const succeeded = rules({ readyCondition: "Succeeded", phases: { runToCompletion: true, overrides: {} } });
const phaseOnly = rules({ readyCondition: undefined });
const phaseOnlyRuns = rules({ readyCondition: undefined, phases: { runToCompletion: true, overrides: {} } });

// [name, object, rules, result, changesAt]
const cases: [string, WidgetInit, ReadinessRules, string, number | undefined][] = [
  ["no status at all", {}, ready, "Unknown", undefined],
  [
    "Ready=True, caught up",
    { status: { observedGeneration: 1, conditions: [cond("Ready", "True")] } },
    ready,
    "Current",
    undefined,
  ],
  [
    "generation not observed",
    { generation: 2, status: { observedGeneration: 1, conditions: [cond("Ready", "True")] } },
    ready,
    "InProgress",
    undefined,
  ],
  [
    "Ready's own observedGeneration is stale",
    {
      generation: 2,
      status: {
        observedGeneration: 2,
        conditions: [cond("Ready", "True", undefined, { observedGeneration: 1 })],
      },
    },
    ready,
    "InProgress",
    undefined,
  ],
  [
    // Ready=True and recent: nothing but the Stalled rule can make this Failed.
    "Stalled=True with Ready=True",
    { status: { conditions: [cond("Stalled", "True"), cond("Ready", "True", "2026-01-01T00:09:00Z")] } },
    ready,
    "Failed",
    undefined,
  ],
  [
    "Reconciling=True",
    { status: { conditions: [cond("Reconciling", "True"), cond("Ready", "True")] } },
    ready,
    "InProgress",
    undefined,
  ],
  [
    "another stalled condition name",
    { status: { conditions: [cond("Stuck", "True"), cond("Ready", "True")] } },
    rules({ stalledCondition: "Stuck" }),
    "Failed",
    undefined,
  ],
  [
    "Ready=False, recently",
    { status: { conditions: [cond("Ready", "False", "2026-01-01T00:08:00Z")] } },
    ready,
    "InProgress",
    t("2026-01-01T00:13:00Z"),
  ],
  [
    "Ready=False for longer than failedAfter",
    { status: { conditions: [cond("Ready", "False", "2026-01-01T00:01:00Z")] } },
    ready,
    "Failed",
    undefined,
  ],
  [
    "Ready=False with a shorter failedAfter",
    { status: { conditions: [cond("Ready", "False", "2026-01-01T00:08:00Z")] } },
    rules({ failedAfterSeconds: 60 }),
    "Failed",
    undefined,
  ],
  ["Ready=Unknown", { status: { conditions: [cond("Ready", "Unknown")] } }, ready, "InProgress", undefined],
  [
    "no Ready condition on the object, generation observed",
    { status: { observedGeneration: 1, phase: "Running" } },
    ready,
    "Current",
    undefined,
  ],
  [
    "terminating wins",
    { deletionTimestamp: at, status: { conditions: [cond("Ready", "True")] } },
    ready,
    "Terminating",
    undefined,
  ],
  // Readiness beyond Ready: the rules name the condition, Ready means nothing then.
  [
    "Available: Ready=True does not count",
    { status: { conditions: [cond("Ready", "True"), cond("Available", "False", "2026-01-01T00:01:00Z")] } },
    available,
    "Failed",
    undefined,
  ],
  [
    "Available=True with Ready=False",
    { status: { conditions: [cond("Ready", "False"), cond("Available", "True")] } },
    available,
    "Current",
    undefined,
  ],
  [
    "Succeeded=Unknown: the run is running",
    { status: { conditions: [cond("Succeeded", "Unknown", "2026-01-01T00:01:00Z")] } },
    succeeded,
    "InProgress",
    undefined,
  ],
  [
    "Succeeded=False: the run failed, at once (no failedAfter)",
    { status: { conditions: [cond("Succeeded", "False", "2026-01-01T00:09:59Z")] } },
    succeeded,
    "Failed",
    undefined,
  ],
  [
    "Succeeded=True",
    { status: { conditions: [cond("Succeeded", "True")] } },
    succeeded,
    "Current",
    undefined,
  ],
  // Phase-only kinds: the default table, and unknown phases stay Unknown.
  ["phase Completed", { status: { phase: "Completed" } }, phaseOnly, "Current", undefined],
  ["phase Failed", { status: { phase: "Failed" } }, phaseOnly, "Failed", undefined],
  ["phase PartiallyFailed", { status: { phase: "PartiallyFailed" } }, phaseOnly, "Failed", undefined],
  ["phase InProgress of a run", { status: { phase: "InProgress" } }, phaseOnlyRuns, "InProgress", undefined],
  ["phase Running of a long-running kind", { status: { phase: "Running" } }, phaseOnly, "Unknown", undefined],
  [
    "an unknown phase is never Current",
    { status: { phase: "Hibernating" } },
    phaseOnly,
    "Unknown",
    undefined,
  ],
  [
    "no readiness condition, no phase: observed",
    { status: { observedGeneration: 1, conditions: [cond("Synced", "True")] } },
    phaseOnly,
    "Current",
    undefined,
  ],
  [
    "a phase with a readiness condition: the condition decides",
    { status: { phase: "Failed", conditions: [cond("Ready", "True")] } },
    ready,
    "Current",
    undefined,
  ],
  [
    "phaseResults decide whatever the conditions say",
    { status: { phase: "Degraded", conditions: [cond("Ready", "True")] } },
    rules({ phases: { runToCompletion: false, overrides: { Degraded: "Failed" } } }),
    "Failed",
    undefined,
  ],
  [
    "phaseResults map an unknown phase",
    { status: { phase: "Hibernating" } },
    rules({
      readyCondition: undefined,
      phases: { runToCompletion: false, overrides: { Hibernating: "Current" } },
    }),
    "Current",
    undefined,
  ],
  [
    "a phase that is not listed falls through to the ready condition",
    { status: { phase: "Running", conditions: [cond("Ready", "False", "2026-01-01T00:08:00Z")] } },
    rules({ phases: { runToCompletion: false, overrides: { Degraded: "Failed" } } }),
    "InProgress",
    t("2026-01-01T00:13:00Z"),
  ],
  [
    "the phase does not decide before the generation is observed",
    { generation: 2, status: { observedGeneration: 1, phase: "Failed" } },
    phaseOnly,
    "InProgress",
    undefined,
  ],
];

for (const [name, init, r, result, changesAt] of cases) {
  test(`summarizeStatus: ${name} → ${result}`, () => {
    assert.deepEqual(summarizeStatus(p(init), r, t(at)), { result, changesAt });
  });
}

test("a condition without lastTransitionTime counts from its remembered time, else from now", () => {
  const state = p({ status: { conditions: [{ type: "Ready", status: "False" }] } });
  assert.equal(state.conditions[0]?.since, undefined, "a bare projection knows no time");
  assert.deepEqual(summarizeStatus(state, ready, t(at)), { result: "InProgress", changesAt: t(at) + 300 });
  const remembered = { ...state, conditions: state.conditions.map((c) => ({ ...c, since: t(at) - 301 })) };
  assert.deepEqual(summarizeStatus(remembered, ready, t(at)), { result: "Failed", changesAt: undefined });
});

test("failedAfter: InProgress until exactly failedAfter seconds after the transition, Failed from that second", () => {
  const since = t("2026-01-01T00:05:00Z");
  const state = p({ status: { conditions: [cond("Ready", "False", "2026-01-01T00:05:00Z")] } });
  const boundary = since + ready.failedAfterSeconds;
  assert.deepEqual(summarizeStatus(state, ready, boundary - 1), {
    result: "InProgress",
    changesAt: boundary,
  });
  assert.deepEqual(summarizeStatus(state, ready, boundary), { result: "Failed", changesAt: undefined });
  assert.equal(judge(state, ready, boundary).by, "failed_after");
  assert.equal(judge(state, ready, boundary - 1).by, "condition");
});

test("Stalled=True decides alone: Failed by the stalled rule, before generation, reconciling and the ready condition", () => {
  const now = t(at);
  const stalledButReady = p({
    generation: 2,
    status: {
      observedGeneration: 1,
      conditions: [cond("Stalled", "True"), cond("Reconciling", "True"), cond("Ready", "True", at)],
    },
  });
  const j = judge(stalledButReady, ready, now);
  assert.equal(j.result, "Failed");
  assert.equal(j.by, "stalled");
  assert.equal(j.condition?.type, "Stalled");
  const notStalled = p({ status: { conditions: [cond("Stalled", "False"), cond("Ready", "True", at)] } });
  assert.equal(judge(notStalled, ready, now).result, "Current", "Stalled=False changes nothing");
});

test("isReconciled: the generation observed and Current, for a given generation", () => {
  const caughtUp = p({
    generation: 2,
    status: { observedGeneration: 2, conditions: [cond("Ready", "True")] },
  });
  assert.equal(isReconciled(caughtUp, ready), true);
  assert.equal(isReconciled(caughtUp, ready, 3), false, "a later generation is not observed");
  const behind = p({ generation: 2, status: { observedGeneration: 1, conditions: [cond("Ready", "True")] } });
  assert.equal(isReconciled(behind, ready), false);
  const notReady = p({
    generation: 2,
    status: { observedGeneration: 2, conditions: [cond("Ready", "False")] },
  });
  assert.equal(isReconciled(notReady, ready), false);
  assert.equal(isReconciled(p({ generation: 2, status: { observedGeneration: 2 } }), ready), true);
  const availableOnly = p({ status: { conditions: [cond("Ready", "False"), cond("Available", "True")] } });
  assert.equal(isReconciled(availableOnly, ready), false);
  assert.equal(isReconciled(availableOnly, available), true);
});

test("isSettled: reconciled, stalled, a Failed phase or a terminal condition — not failedAfter", () => {
  const now = t(at);
  const longFalse = p({ status: { conditions: [cond("Ready", "False", "2026-01-01T00:01:00Z")] } });
  assert.equal(judge(longFalse, ready, now).result, "Failed");
  assert.equal(isSettled(longFalse, ready), false, "Ready=False may still recover");
  assert.equal(isSettled(p({ status: { conditions: [cond("Stalled", "True")] } }), ready), true);
  assert.equal(isSettled(p({ status: { phase: "Failed" } }), phaseOnly), true);
  assert.equal(isSettled(p({ status: { conditions: [cond("Succeeded", "False")] } }), succeeded), true);
  assert.equal(isSettled(p({ status: { conditions: [cond("Ready", "True")] } }), ready), true);
});

test("isSettled: Ready=False dated before 1970 (Go's zero time, year 1) may still recover too", () => {
  const zeroTime = p({ status: { conditions: [cond("Ready", "False", "0001-01-01T00:00:00Z")] } });
  assert.ok((zeroTime.conditions[0]?.since ?? 0) < 0, "a time before the epoch");
  assert.equal(isSettled(zeroTime, ready), false);
});

test("isReady: the ready condition in its desired status, or Current for kinds without one", () => {
  assert.equal(isReady(p({ generation: 2, status: { conditions: [cond("Ready", "True")] } }), ready), true);
  assert.equal(isReady(p({ status: { conditions: [cond("Available", "True")] } }), ready), false);
  assert.equal(isReady(p({ status: { conditions: [cond("Available", "True")] } }), available), true);
  assert.equal(isReady(p({ status: { phase: "Completed" } }), phaseOnly), true);
  assert.equal(isReady(p({ status: { phase: "Hibernating" } }), phaseOnly), false);
});

test("the default abnormal-true types want False; every other type wants True", () => {
  for (const type of ["Reconciling", "Progressing", "Stalled", "Degraded"])
    assert.equal(desiredStatus(ready, type), "False", type);
  for (const type of ["Ready", "Available", "Synced", "Succeeded"])
    assert.equal(desiredStatus(ready, type), "True", type);
  // As a readiness condition, Degraded=False is ready and Degraded=True is not.
  const degraded = rules({ readyCondition: "Degraded" });
  assert.equal(
    judge(p({ status: { conditions: [cond("Degraded", "False")] } }), degraded, t(at)).result,
    "Current",
  );
  assert.equal(isReady(p({ status: { conditions: [cond("Degraded", "True")] } }), degraded), false);
});

test("an object without metadata.generation has nothing to observe: its conditions decide", () => {
  const raw = widget({ status: { observedGeneration: 3, conditions: [cond("Ready", "True")] } });
  delete (raw.metadata as Record<string, unknown>).generation;
  const state = projectObject(raw, defaultProjectionSettings);
  assert.equal(state.generation, undefined);
  assert.deepEqual(summarizeStatus(state, ready, t(at)), { result: "Current", changesAt: undefined });
});

test("generations reported on conditions only: an object without the readiness condition has not reconciled its generation", () => {
  const og = (generation: number) => ({ observedGeneration: generation });
  const judged = (status: Record<string, unknown>, over: Partial<ReadinessRules> = {}) => {
    const j = judge(p({ generation: 2, status }), rules(over), t(at));
    return `${j.result} by ${j.by}`;
  };
  const issuing = cond("Issuing", "True", at, og(2));
  assert.equal(judged({ conditions: [issuing] }), "InProgress by generation", "Issuing written before Ready");
  assert.equal(
    judged({ conditions: [cond("Issuing", "True", at, og(1))] }),
    "InProgress by generation",
    "an older generation on the other condition",
  );
  assert.equal(
    judged({ conditions: [issuing, cond("Ready", "True", at, og(2))] }),
    "Current by condition",
    "Ready written for the generation",
  );
  assert.equal(
    judged({ conditions: [issuing, cond("Ready", "True", at, og(1))] }),
    "InProgress by generation",
    "Ready behind",
  );
  assert.equal(
    judged({ conditions: [cond("Issuing", "True", at)] }),
    "Current by observed",
    "no observedGeneration anywhere: taken at its word",
  );
  assert.equal(
    judged({ observedGeneration: 2, conditions: [issuing] }),
    "Current by observed",
    "status.observedGeneration says the generation is observed",
  );
  assert.equal(
    judged({ observedGeneration: 1, conditions: [issuing] }),
    "InProgress by generation",
    "status.observedGeneration behind",
  );
  assert.equal(
    judged({ conditions: [issuing] }, { readyCondition: undefined }),
    "Current by observed",
    "a kind without a readiness condition has none to wait for",
  );
});
