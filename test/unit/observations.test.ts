import assert from "node:assert/strict";
import { test } from "node:test";
import { newKindLearning } from "../../src/core/label-bounds.ts";
import { applyChange, type KindSettings, type ObjectEntry } from "../../src/core/object-update.ts";
import { defaultProjectionSettings } from "../../src/core/project.ts";
import { defaultReadinessRules } from "../../src/core/readiness.ts";
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
