// A detected shape as info-series labels (what was decided, values only) and
// as start-up log fields (the labels plus why, warnings and notes only when
// there are some).
import assert from "node:assert/strict";
import { test } from "node:test";
import type { DecisionInput } from "../../src/core/detect/decide.ts";
import { shapeInfoLabels, shapeLogFields } from "../../src/core/detect/describe.ts";
import type { ConditionArrayEvidence, ShapeEvidence } from "../../src/core/detect/shape.ts";
import { conditionList, decideOn } from "../support/evidence.ts";

const conditions = (more: Partial<ConditionArrayEvidence> = {}) =>
  conditionList(["status", "x", "conditions"], more);

const shape = (evidence: Partial<ShapeEvidence>, more: Partial<DecisionInput> = {}) =>
  decideOn(evidence, { version: "v1beta1", ...more });

test("labels of a kind with conditions, a phase and a suspend switch", () => {
  assert.deepEqual(
    shapeInfoLabels(
      shape({
        conditionArrays: [conditions({ observedGeneration: true })],
        generationFields: [["status", "x", "observedGeneration"]],
        phaseFields: [
          { path: ["status", "phase"], declaredValues: ["Running", "Succeeded"], observedValues: [] },
        ],
        suspendPath: ["spec", "suspend"],
      }),
    ),
    {
      version: "v1beta1",
      basis: "schema",
      conditions_path: "status.x.conditions",
      observed_generation_path: "status.x.observedGeneration",
      phase_path: "status.phase",
      state_paths: "",
      ready_condition: "Ready",
      readiness_source: "schema",
      run_to_completion: "true",
      condition_times: "lastTransitionTime",
      suspend_path: "spec.suspend",
    },
  );
});

test("labels of a kind without conditions or phase: empty values, none as the source", () => {
  assert.deepEqual(shapeInfoLabels(shape({}, { basis: "none" })), {
    version: "v1beta1",
    basis: "none",
    conditions_path: "",
    observed_generation_path: "",
    phase_path: "",
    state_paths: "",
    ready_condition: "",
    readiness_source: "none",
    run_to_completion: "false",
    condition_times: "",
    suspend_path: "",
  });
});

test("labels say per-condition observedGeneration, first-seen times, pending readiness and state rules", () => {
  const perCondition = shapeInfoLabels(
    shape({
      conditionArrays: [
        conditions({ observedGeneration: true, lastTransitionTime: false, declaredTypes: undefined }),
      ],
    }),
  );
  assert.equal(perCondition.observed_generation_path, "status.x.conditions[].observedGeneration");
  assert.equal(perCondition.condition_times, "first_seen");
  assert.equal(perCondition.readiness_source, "pending");
  assert.equal(perCondition.ready_condition, "");

  const states = shapeInfoLabels(
    shape({
      stateFields: [
        { path: ["status", "health", "status"], declaredValues: undefined, observedValues: [] },
        { path: ["status", "sync", "status"], declaredValues: undefined, observedValues: [] },
      ],
    }),
  );
  assert.equal(states.state_paths, "status.health.status,status.sync.status");
  assert.equal(states.ready_condition, "health=Healthy,sync=Synced");
  assert.equal(states.readiness_source, "states");
});

test("log fields: the labels, every why, learning, and warnings and notes only when there are some", () => {
  const quiet = shape({
    conditionArrays: [conditions({ path: ["status", "conditions"] })],
    generationFields: [["status", "observedGeneration"]],
  });
  assert.deepEqual(shapeLogFields(quiet), {
    ...shapeInfoLabels(quiet),
    conditionsWhy: "the only list of conditions in status",
    observedGenerationWhy: "status.observedGeneration",
    readinessWhy: "the type enum declares Ready",
    runToCompletionWhy: "no Succeeded condition, completed phase or completion time",
    learning: false,
  });

  const noisy = shape(
    {
      phaseFields: [{ path: ["status", "phase"], declaredValues: undefined, observedValues: [] }],
      notes: ["status.conditions: entries lack a string type and status, not conditions"],
    },
    { statusSubresource: false },
  );
  assert.deepEqual(shapeLogFields(noisy), {
    ...shapeInfoLabels(noisy),
    observedGenerationWhy: "no observedGeneration in status or on conditions",
    phaseWhy: "a string without enum, the only phase-like field",
    readinessWhy: "no conditions; the phase status.phase decides",
    runToCompletionWhy: "no Succeeded condition, completed phase or completion time",
    learning: true,
    warnings: ["no status subresource: every status write bumps metadata.generation"],
    notes: ["status.conditions: entries lack a string type and status, not conditions"],
  });
});

test("state fields name the ready rule only when readiness comes from them", () => {
  const labels = shapeInfoLabels(
    shape({
      conditionArrays: [conditions({ declaredTypes: ["Synced"] })],
      stateFields: [{ path: ["status", "health", "status"], declaredValues: undefined, observedValues: [] }],
    }),
  );
  assert.equal(labels.readiness_source, "schema", "conditions decide, though none is a readiness type");
  assert.equal(labels.ready_condition, "");
  assert.equal(labels.state_paths, "status.health.status");
});

test("conditions without observedGeneration anywhere give no observedGeneration path", () => {
  const labels = shapeInfoLabels(shape({ conditionArrays: [conditions({ observedGeneration: false })] }));
  assert.equal(labels.conditions_path, "status.x.conditions");
  assert.equal(labels.observed_generation_path, "");
});
