// Schema → detected status shape, for every CRD of the compatibility corpus
// (test/fixtures/crds-shapes), and the same decisions learned from objects
// where the schema leaves them open.
import assert from "node:assert/strict";
import { test } from "node:test";
import { shapeInfoLabels, shapeLogFields } from "../../src/core/detect/describe.ts";
import {
  addSample,
  decideWithSamples,
  defaultSampleLimits,
  detectShapes,
  noSamples,
  type Samples,
} from "../../src/core/detect/learn.ts";
import { detectVersions } from "../../src/core/detect/schema.ts";
import type { DetectedShape } from "../../src/core/detect/shape.ts";
import { type ShapeSummary, summarize, withoutConditions } from "../support/shape-summary.ts";
import { type CorpusName, corpusNames, loadCorpusCrd } from "../support/shapes-corpus.ts";

interface Expected {
  summary: ShapeSummary;
  /** Each must match one warning; no other warnings. */
  warnings?: RegExp[];
  /** Each must appear in the reasons (log fields). */
  reasons?: RegExp[];
}

const base = {
  basis: "schema",
  times: "lastTransitionTime",
  generation: "status status.observedGeneration",
  phase: "-",
  run: false,
  states: "-",
  suspend: "-",
} as const;
const learnedReadiness = /no type enum in the schema: learned from the condition types objects carry/;

const expected: Record<`${CorpusName} ${string}`, Expected> = {
  "rollouts v1": {
    summary: {
      ...base,
      conditions: "status.rollout.conditions",
      generation: "nested status.rollout.observedGeneration",
      ready: "? (pending)",
      learning: true,
    },
    // status.components[].conditions describe the components: lists are not entered.
    reasons: [
      /not under a deprecated field; also found: status\.deprecated\.conditions/,
      /beside the conditions at status\.rollout\.conditions/,
    ],
  },
  "beacons v1": {
    summary: {
      ...base,
      conditions: "status.conditions",
      times: "first seen",
      ready: "? (pending)",
      learning: true,
    },
    warnings: [/carry no lastTransitionTime: times count from when the exporter first saw a status/],
  },
  "runs v1": {
    summary: {
      ...base,
      conditions: "status.conditions",
      ready: "Succeeded (schema)",
      run: true,
      learning: false,
    },
    reasons: [/the type enum declares Succeeded and not Ready/, /its readiness condition is Succeeded/],
  },
  "runs v1alpha1": {
    summary: { ...base, conditions: "status.conditions", ready: "? (pending)", learning: true },
    reasons: [learnedReadiness],
  },
  "pools v1": {
    summary: { ...base, conditions: "status.conditions", ready: "Available (schema)", learning: false },
    reasons: [/the type enum declares Available and not Ready or Succeeded/],
  },
  "exports v1": {
    summary: {
      ...base,
      ...withoutConditions,
      phase: "status.phase [New,FailedValidation,InProgress,Completed,PartiallyFailed,Failed,Deleting]",
      ready: "- (none)",
      run: true,
      learning: false,
    },
    reasons: [
      /no conditions; the phase status\.phase decides/,
      /phase Completed ends a run/,
      /a string enum; status\.phase is the conventional place; also found: status\.verdict/,
    ],
  },
  "chores v1": {
    summary: {
      ...base,
      ...withoutConditions,
      phase: "status.phase []",
      ready: "- (none)",
      learning: true,
    },
    warnings: [/no status subresource: every status write bumps metadata\.generation/],
    reasons: [/a string without enum/],
  },
  "blobs v1": {
    summary: {
      ...base,
      basis: "none",
      ...withoutConditions,
      ready: "- (none)",
      learning: true,
    },
    warnings: [
      /status is open \(x-kubernetes-preserve-unknown-fields\): paths are learned from the first objects seen/,
    ],
  },
  "tickets v1": {
    summary: {
      ...base,
      conditions: "status.conditions",
      generation: "conditions",
      ready: "? (pending)",
      learning: true,
    },
    reasons: [/only on each condition/],
  },
  "mirrors v1": {
    summary: {
      ...base,
      conditions: "status.conditions",
      generation: "nested status.summary.observedGeneration",
      ready: "? (pending)",
      suspend: "spec.suspend",
      learning: true,
    },
    reasons: [/the only observedGeneration in status/],
  },
  "deliveries v1": {
    summary: {
      ...base,
      ...withoutConditions,
      ready: "- (states)",
      states: "status.health.status=Healthy status.sync.status=Synced",
      learning: false,
    },
    warnings: [/no status subresource/],
    reasons: [
      /no conditions; ready when health Healthy and sync Synced/,
      /status\.conditions: entries lack a string type and status/,
    ],
  },
};

function reasons(shape: DetectedShape): string {
  return JSON.stringify(shapeLogFields(shape));
}

function check(shape: DetectedShape, want: Expected): void {
  assert.deepEqual(summarize(shape), want.summary);
  const warnings = want.warnings ?? [];
  assert.equal(shape.warnings.length, warnings.length, `warnings: ${JSON.stringify(shape.warnings)}`);
  for (const pattern of warnings) {
    assert.ok(
      shape.warnings.some((w) => pattern.test(w)),
      `no warning matches ${pattern}: ${JSON.stringify(shape.warnings)}`,
    );
  }
  for (const pattern of want.reasons ?? []) assert.match(reasons(shape), pattern);
}

test("every corpus CRD version has an expectation", () => {
  const versions = corpusNames.flatMap((name) =>
    detectShapes(loadCorpusCrd(name)).map((s) => `${name} ${s.version}`),
  );
  assert.deepEqual(versions.sort(), Object.keys(expected).sort());
});

for (const name of corpusNames) {
  for (const shape of detectShapes(loadCorpusCrd(name))) {
    const key = `${name} ${shape.version}` as const;
    test(`corpus ${key}: detected from the schema`, () => {
      const want = expected[key];
      assert.ok(want, `no expectation for ${key}`);
      check(shape, want);
    });
  }
}

// --- learning from objects -------------------------------------------------

const at = "2026-01-01T00:00:00Z";
const condition = (type: string, status = "True", extra: Record<string, unknown> = {}) => ({
  type,
  status,
  reason: "Test",
  lastTransitionTime: at,
  ...extra,
});
const object = (status: unknown, spec: Record<string, unknown> = {}) => ({
  metadata: { name: "o", uid: "u", generation: 1 },
  spec,
  status,
});

function detection(name: CorpusName, version = "v1") {
  const found = detectVersions(loadCorpusCrd(name)).find((v) => v.version === version);
  assert.ok(found, `${name} has no version ${version}`);
  return found;
}

function learn(objects: unknown[], limits = defaultSampleLimits): Samples {
  return objects.reduce<Samples>((samples, o) => addSample(samples, o, limits), noSamples);
}

test("runs v1alpha1 (no type enum): Succeeded learned from the condition types objects carry", () => {
  const samples = learn([object({ conditions: [condition("Succeeded", "Unknown")] })]);
  const shape = decideWithSamples(detection("runs", "v1alpha1"), samples);
  assert.equal(summarize(shape).ready, "Succeeded (observed)");
  assert.equal(shape.runToCompletion.value, true);
  assert.equal(shape.basis, "schema+samples");
  assert.equal(shape.learning, false, "nothing left to learn once the readiness condition is known");
});

test("Ready wins over Succeeded and Available whatever order objects come in", () => {
  const objects = [
    object({ conditions: [condition("Available")] }),
    object({ conditions: [condition("Succeeded")] }),
    object({ conditions: [condition("Ready", "False"), condition("Reconciling")] }),
  ];
  const forward = decideWithSamples(detection("runs", "v1alpha1"), learn(objects));
  const backward = decideWithSamples(detection("runs", "v1alpha1"), learn([...objects].reverse()));
  assert.equal(forward.readiness.condition, "Ready");
  assert.deepEqual(backward, forward);
  assert.deepEqual(forward.conditions?.types, ["Available", "Ready", "Reconciling", "Succeeded"]);
});

test("no readiness type among the learned ones: pending until the sample bound, then none with a warning", () => {
  const limits = { ...defaultSampleLimits, maxSamples: 2 };
  const one = learn([object({ conditions: [condition("Established"), condition("Offered")] })], limits);
  const pending = decideWithSamples(detection("runs", "v1alpha1"), one, limits);
  assert.equal(summarize(pending).ready, "? (pending)");
  assert.deepEqual(pending.warnings, []);
  const done = addSample(one, object({ conditions: [condition("Established")] }), limits);
  const decided = decideWithSamples(detection("runs", "v1alpha1"), done, limits);
  assert.equal(summarize(decided).ready, "- (observed)");
  assert.equal(decided.learning, false);
  assert.match(
    decided.warnings.join("\n"),
    /no readiness condition: objects carry none of Ready, Succeeded, Available \(only Established, Offered\)/,
  );
});

test("the schema's enum is not overruled by objects", () => {
  const samples = learn([object({ conditions: [condition("Ready")] })]);
  assert.equal(decideWithSamples(detection("pools"), samples).readiness.condition, "Available");
});

test("a declared schema is authoritative: objects add values, not fields", () => {
  const samples = learn([
    object({
      observedGeneration: 1,
      conditions: [condition("Ready")],
      // The API server prunes fields the schema does not declare; were they there, they would not count.
      extra: { conditions: [condition("Other")] },
      phase: "Running",
    }),
  ]);
  const shape = decideWithSamples(detection("beacons"), samples);
  assert.equal(
    summarize(shape).times,
    "first seen",
    "samples must not add lastTransitionTime the schema lacks",
  );
  assert.equal(summarize(shape).conditions, "status.conditions");
  assert.equal(shape.conditions?.others.length, 0);
  assert.equal(shape.phase, undefined);
  assert.equal(shape.readiness.condition, "Ready");
});

test("chores (phase without enum): phase values and run-to-completion learned from objects", () => {
  const shape = decideWithSamples(
    detection("chores"),
    learn([object({ phase: "Running" }), object({ phase: "Succeeded" }), object({ phase: "Running" })]),
  );
  assert.equal(summarize(shape).phase, "status.phase [Running,Succeeded]");
  assert.equal(shape.runToCompletion.value, true);
  assert.match(shape.runToCompletion.why, /phase Succeeded ends a run/);
});

test("blobs (open status): every decision learned from objects, by the same rules as a schema", () => {
  const samples = learn([
    object({
      observedGeneration: 3,
      phase: "Active",
      conditions: [condition("Ready", "True", { observedGeneration: 3 })],
      history: [{ type: "Upgrade", status: "Done" }],
      completionTime: at,
    }),
    object({ conditions: [condition("Ready", "False")], notes: "free text" }, { suspend: false }),
  ]);
  const shape = decideWithSamples(detection("blobs"), samples);
  assert.deepEqual(summarize(shape), {
    basis: "samples",
    conditions: "status.conditions",
    times: "lastTransitionTime",
    generation: "status status.observedGeneration",
    phase: "status.phase [Active]",
    ready: "Ready (observed)",
    run: true,
    states: "-",
    suspend: "spec.suspend",
    learning: true,
  });
  assert.match(
    shape.conditions?.why ?? "",
    /status\.conditions is the conventional place; also found: status\.history/,
  );
  assert.match(shape.runToCompletion.why, /status\.completionTime records when it finished/);
  assert.ok(shape.warnings.some((w) => /paths are learned from the first objects seen/.test(w)));
});

test("an open status with the rollouts shape gives the decisions the rollouts schema gives", () => {
  const rollout = {
    rollout: {
      observedGeneration: 2,
      conditions: [condition("Ready", "True", { observedGeneration: 2, message: "" })],
    },
    components: [{ name: "db", conditions: [condition("Ready")] }],
  };
  const fromObjects = summarize(decideWithSamples(detection("blobs"), learn([object(rollout)])));
  const fromSchema = summarize(decideWithSamples(detection("rollouts"), learn([object(rollout)])));
  for (const aspect of ["conditions", "times", "generation", "phase", "ready", "run"] as const) {
    assert.equal(fromObjects[aspect], fromSchema[aspect], aspect);
  }
  assert.equal(fromSchema.ready, "Ready (observed)");
});

test("learning is bounded: objects after maxSamples change nothing", () => {
  const limits = { ...defaultSampleLimits, maxSamples: 3 };
  const full = learn(
    [1, 2, 3].map(() => object({ conditions: [condition("Available")] })),
    limits,
  );
  assert.equal(full.seen, 3);
  assert.equal(addSample(full, object({ conditions: [condition("Ready")] }), limits), full);
  const shape = decideWithSamples(detection("blobs"), full, limits);
  assert.equal(shape.readiness.condition, "Available");
  assert.equal(shape.learning, false);
  assert.ok(!shape.warnings.some((w) => /learned from the first objects/.test(w)));
});

test("learning is bounded per object: depth, values per field and paths", () => {
  const limits = { maxSamples: 5, maxDepth: 2, maxValues: 3, maxPaths: 2 };
  let deep: Record<string, unknown> = { conditions: [condition("Ready")] };
  for (let i = 0; i < 5; i++) deep = { inner: deep };
  const many = Array.from({ length: 10 }, (_, i) => condition(`Type${i}`));
  const lists = Object.fromEntries(Array.from({ length: 5 }, (_, i) => [`list${i}`, [condition("X")]]));
  const samples = learn([object({ deep, conditions: many, ...lists })], limits);
  const paths = samples.evidence.conditionArrays.map((c) => c.path.join("."));
  assert.equal(paths.length, 2);
  assert.ok(!paths.some((p) => p.includes("inner")), "nothing deeper than maxDepth");
  const conditions = samples.evidence.conditionArrays.find((c) => c.path.join(".") === "status.conditions");
  assert.deepEqual(conditions?.observedTypes, ["Type0", "Type1", "Type2"]);
});

test("malformed objects are skipped without an error", () => {
  const junk = [
    null,
    "text",
    42,
    [],
    { status: "Ready" },
    { status: [] },
    { status: { conditions: "Ready", observedGeneration: "3", phase: 7 } },
    { status: { conditions: [null, { type: 1, status: true }] } },
    { status: { conditions: [{ type: "Ready" }] } },
    // A list counts as conditions only when every entry is one.
    { status: { items: [condition("Ready"), { type: "Ready", state: "on" }] } },
    { status: { observedGeneration: 1.5, phase: "" } },
    { spec: { suspend: "yes" }, status: { health: { status: 1 } } },
  ];
  const samples = learn(junk);
  const shape = decideWithSamples(detection("blobs"), samples);
  assert.equal(shape.conditions, undefined);
  assert.equal(shape.observedGeneration.source, "none");
  assert.equal(shape.suspendPath, undefined);
  assert.deepEqual(shape.states, []);
  assert.equal(summarize(shape).phase, "status.phase []", "an empty phase names the field, with no value");
  assert.match(shape.notes.join("\n"), /status\.conditions: entries lack a string type and status/);
});

test("deliveries: Argo CD-like state values learned from objects; readiness needs both", () => {
  const shape = decideWithSamples(
    detection("deliveries"),
    learn([object({ health: { status: "Degraded" }, sync: { status: "OutOfSync" } })]),
  );
  assert.deepEqual(
    shape.states.map((s) => [s.name, s.readyValue, s.values.length]),
    [
      ["health", "Healthy", 6],
      ["sync", "Synced", 3],
    ],
  );
  assert.equal(shape.readiness.source, "states");
});

test("info labels and log fields say what was detected and why", () => {
  const [runs] = detectShapes(loadCorpusCrd("runs"));
  assert.ok(runs);
  assert.deepEqual(shapeInfoLabels(runs), {
    version: "v1",
    basis: "schema",
    conditions_path: "status.conditions",
    observed_generation_path: "status.observedGeneration",
    phase_path: "",
    state_paths: "",
    ready_condition: "Succeeded",
    readiness_source: "schema",
    run_to_completion: "true",
    condition_times: "lastTransitionTime",
    suspend_path: "",
  });
  const [tickets] = detectShapes(loadCorpusCrd("tickets"));
  assert.ok(tickets);
  assert.equal(shapeInfoLabels(tickets).observed_generation_path, "status.conditions[].observedGeneration");
  assert.equal(shapeInfoLabels(tickets).readiness_source, "pending");
  const [deliveries] = detectShapes(loadCorpusCrd("deliveries"));
  assert.ok(deliveries);
  assert.equal(shapeInfoLabels(deliveries).ready_condition, "health=Healthy,sync=Synced");
  assert.equal(shapeInfoLabels(deliveries).state_paths, "status.health.status,status.sync.status");
  const fields = shapeLogFields(deliveries);
  assert.deepEqual(fields.warnings, ["no status subresource: every status write bumps metadata.generation"]);
  assert.equal(typeof fields.readinessWhy, "string");
});
