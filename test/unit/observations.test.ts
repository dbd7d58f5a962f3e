import assert from "node:assert/strict";
import { test } from "node:test";
import { newKindLearning } from "../../src/core/change/label-bounds.ts";
import { applyChange, type KindSettings } from "../../src/core/change/object-update.ts";
import { noObservations, type ObservationInput, observe } from "../../src/core/change/observations.ts";
import type { ObjectEntry } from "../../src/core/entry.ts";
import { defaultReadinessRules, isReconciled } from "../../src/core/judge/readiness.ts";
import { defaultProjectionSettings, projectObject } from "../../src/core/project/project.ts";
import type { ObjectState, Transition } from "../../src/core/state.ts";
import { cond, t, type WidgetInit, widget } from "../support/objects.ts";

const kind: KindSettings = {
  projection: defaultProjectionSettings,
  readiness: defaultReadinessRules,
  generationSource: "status",
  phaseTransitions: undefined,
  render: undefined,
};

/** The observations of each step, through the pure per-object pipeline. */
function run(steps: { init: WidgetInit; now: string }[]) {
  const learning = newKindLearning({ phaseEnum: [], maxReasons: 20 });
  let entry: ObjectEntry | undefined;
  const results = [];
  for (const step of steps) {
    const change = applyChange(entry, widget(step.init), kind, learning, t(step.now));
    results.push(change.observations);
    entry = change.entry;
  }
  return results;
}

test("create → Ready: time to ready and reconcile duration from the object's timestamps", () => {
  const [, second] = run([
    {
      init: {
        resourceVersion: "1",
        status: { conditions: [cond("Ready", "False", "2026-01-01T00:00:05Z")] },
      },
      now: "2026-01-01T00:00:06Z",
    },
    {
      init: {
        resourceVersion: "2",
        status: { observedGeneration: 1, conditions: [cond("Ready", "True", "2026-01-01T00:01:40Z")] },
      },
      now: "2026-01-01T00:01:41Z",
    },
  ]);
  assert.equal(second?.timeToReadySeconds, 100);
  assert.deepEqual(second?.reconcile, { generation: 1, seconds: 100 });
  assert.deepEqual(second?.stateDurations, [{ type: "Ready", status: "False", seconds: 95 }]);
});

test("spec change → observedGeneration catches up: reconcile measured from the spec write", () => {
  const spec = [
    { manager: "k", operation: "Update", time: "2026-01-01T01:00:00Z", fieldsV1: { "f:spec": {} } },
  ];
  const ready = cond("Ready", "True", "2026-01-01T00:01:00Z");
  const results = run([
    {
      init: { resourceVersion: "1", generation: 1, status: { observedGeneration: 1, conditions: [ready] } },
      now: "2026-01-01T00:59:00Z",
    },
    {
      init: {
        resourceVersion: "2",
        generation: 2,
        managedFields: spec,
        status: { observedGeneration: 1, conditions: [ready] },
      },
      now: "2026-01-01T01:00:01Z",
    },
    {
      init: {
        resourceVersion: "3",
        generation: 2,
        managedFields: spec,
        status: { observedGeneration: 2, conditions: [ready] },
      },
      now: "2026-01-01T01:00:30Z",
    },
  ]);
  // Ready stayed True (its transition time predates the bump), so the catch-up time is the observation time.
  assert.deepEqual(results[2]?.reconcile, { generation: 2, seconds: 30 });
  assert.equal(results[0]?.timeToReadySeconds, undefined, "first seen already Ready: not observed");
});

test("first seen already reconciled (exporter restart): nothing is observed", () => {
  const [only] = run([
    {
      init: { status: { observedGeneration: 1, conditions: [cond("Ready", "True")] } },
      now: "2026-01-01T02:00:00Z",
    },
  ]);
  assert.deepEqual(only, { stateDurations: [], reconcile: undefined, timeToReadySeconds: undefined });
});

test("a flap does not count as time to ready twice", () => {
  const results = run([
    {
      init: {
        resourceVersion: "1",
        status: { conditions: [cond("Ready", "False", "2026-01-01T00:00:01Z")] },
      },
      now: "2026-01-01T00:00:02Z",
    },
    {
      init: { resourceVersion: "2", status: { conditions: [cond("Ready", "True", "2026-01-01T00:00:10Z")] } },
      now: "2026-01-01T00:00:11Z",
    },
    {
      init: {
        resourceVersion: "3",
        status: { conditions: [cond("Ready", "False", "2026-01-01T00:00:20Z")] },
      },
      now: "2026-01-01T00:00:21Z",
    },
    {
      init: { resourceVersion: "4", status: { conditions: [cond("Ready", "True", "2026-01-01T00:00:30Z")] } },
      now: "2026-01-01T00:00:31Z",
    },
  ]);
  assert.equal(results[1]?.timeToReadySeconds, 10);
  assert.equal(results[3]?.timeToReadySeconds, undefined);
});

// observe() on its own: which transitions and state pairs give which observations.
const state = (init: WidgetInit): ObjectState => projectObject(widget(init), defaultProjectionSettings);
const created = "2026-01-01T00:00:00Z";
const notReady = state({ status: { observedGeneration: 1, conditions: [cond("Ready", "False", created)] } });
const readyAt = (at: string, extra: WidgetInit = {}): ObjectState =>
  state({
    ...extra,
    status: { observedGeneration: extra.generation ?? 1, conditions: [cond("Ready", "True", at)] },
  });
/** `reconciled` follows `next` unless given, as applyChange judges it. */
const input = (over: Partial<ObservationInput>): ObservationInput => {
  const given = {
    previous: undefined,
    next: notReady,
    transitions: [],
    requestedAt: undefined,
    readySeen: false,
    reconciledGeneration: undefined,
    readiness: defaultReadinessRules,
    now: t("2026-01-01T01:00:00Z"),
    ...over,
  };
  return { reconciled: isReconciled(given.next, given.readiness), ...given };
};
const conditionMove = (
  from: "True" | "False" | undefined,
  since: number | undefined,
  at: number,
): Transition => ({
  kind: "condition",
  type: "Ready",
  from,
  to: "True",
  at,
  since,
  reason: "",
  message: "",
});

test("a condition leaving a status observes how long it held it, when that is known and not negative", () => {
  const { stateDurations } = observe(
    input({
      transitions: [
        conditionMove("False", 100, 160),
        conditionMove("False", 200, 200),
        conditionMove("False", 300, 299),
        conditionMove(undefined, 100, 160),
        conditionMove("False", undefined, 160),
        { kind: "phase", from: "Pending", to: "Running", at: 160 },
      ],
    }),
  );
  assert.deepEqual(stateDurations, [
    { type: "Ready", status: "False", seconds: 60 },
    { type: "Ready", status: "False", seconds: 0 },
  ]);
});

test("a change that observes nothing gives the shared empty observations", () => {
  assert.equal(observe(input({})), noObservations);
  assert.equal(observe(input({ previous: notReady, next: notReady, requestedAt: 0 })), noObservations);
});

test("reconcile: from the requested generation to its reconciliation, only when this change reconciled it", () => {
  const requestedAt = t("2026-01-01T00:10:00Z");
  const done = readyAt("2026-01-01T00:10:40Z", { generation: 3 });
  const reconcile = (over: Partial<ObservationInput>) => observe(input({ requestedAt, ...over })).reconcile;
  assert.deepEqual(reconcile({ previous: notReady, next: done }), { generation: 3, seconds: 40 });
  assert.equal(reconcile({ previous: undefined, next: done }), undefined, "first sight: not seen happening");
  assert.equal(
    reconcile({ previous: notReady, next: done, requestedAt: undefined }),
    undefined,
    "unknown request",
  );
  assert.equal(
    reconcile({ previous: done, next: done, reconciledGeneration: 3 }),
    undefined,
    "already reconciled before",
  );
  assert.equal(
    reconcile({ previous: notReady, next: done, reconciledGeneration: 3 }),
    undefined,
    "reconciled again after a flap: the generation was counted already",
  );
  assert.deepEqual(
    reconcile({ previous: notReady, next: done, reconciledGeneration: 2 }),
    { generation: 3, seconds: 40 },
    "an older generation reconciled before",
  );
  assert.equal(reconcile({ previous: notReady, next: notReady }), undefined, "not reconciled yet");
});

test("reconcile ends at the ready condition's transition when it follows the request, else at now", () => {
  const requestedAt = t("2026-01-01T00:10:00Z");
  const now = t("2026-01-01T00:11:00Z");
  const seconds = (next: ObjectState, over: Partial<ObservationInput> = {}) =>
    observe(input({ previous: notReady, next, requestedAt, now, ...over })).reconcile?.seconds;
  assert.equal(seconds(readyAt("2026-01-01T00:10:40Z")), 40);
  assert.equal(seconds(readyAt("2026-01-01T00:10:00Z")), 0, "ready at the request itself");
  assert.equal(seconds(readyAt("2026-01-01T00:09:00Z")), 60, "ready from before the request: now");
  const withoutReadyCondition = { ...defaultReadinessRules, readyCondition: undefined };
  const lagging = state({
    generation: 2,
    status: { observedGeneration: 1, conditions: [cond("Ready", "True", created)] },
  });
  assert.equal(
    seconds(readyAt("2026-01-01T00:10:40Z", { generation: 2 }), {
      previous: lagging,
      readiness: withoutReadyCondition,
    }),
    60,
    "no ready condition: now",
  );
  assert.equal(seconds(readyAt("2026-01-01T00:09:00Z"), { now: requestedAt - 5 }), 0, "never negative");
});

test("time to ready: from creation to the first ready seen happening", () => {
  const now = t("2026-01-01T01:00:00Z");
  const ready = readyAt("2026-01-01T00:02:00Z");
  const ttr = (over: Partial<ObservationInput>) => observe(input({ now, ...over })).timeToReadySeconds;
  assert.equal(ttr({ previous: notReady, next: ready }), 120);
  assert.equal(
    ttr({ previous: notReady, next: ready, readySeen: true }),
    undefined,
    "it had been ready before",
  );
  assert.equal(ttr({ previous: undefined, next: ready }), undefined, "first sight");
  assert.equal(ttr({ previous: ready, next: ready }), undefined, "was ready already");
  assert.equal(ttr({ previous: notReady, next: notReady }), undefined, "not ready");
  const noCreation = { ...ready, creationTimestamp: undefined };
  assert.equal(ttr({ previous: notReady, next: noCreation }), undefined, "no creation time");
  const noTime = { ...ready, conditions: ready.conditions.map((c) => ({ ...c, since: undefined })) };
  assert.equal(ttr({ previous: notReady, next: noTime }), 3600, "no transition time: now");
  const early = { ...ready, creationTimestamp: t("2026-01-01T00:05:00Z") };
  assert.equal(ttr({ previous: notReady, next: early }), 0, "never negative");
});
