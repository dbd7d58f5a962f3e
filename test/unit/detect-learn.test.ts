// Learning a status shape from objects, on its own: what one object shows,
// how evidence is merged (open status: paths and values; declared status:
// values only), the bounds, and the basis a decision names.
import assert from "node:assert/strict";
import { test } from "node:test";
import {
  addSample,
  decideWithSamples,
  detectShapes,
  mergeEvidence,
  noSamples,
  type SampleLimits,
  type Samples,
  samplingDone,
} from "../../src/core/detect/learn.ts";
import type { VersionDetection } from "../../src/core/detect/schema.ts";
import { emptyEvidence, type ShapeEvidence } from "../../src/core/detect/shape.ts";
import { completionTimeNames } from "../support/status-words.ts";

const limits: SampleLimits = { maxSamples: 3, maxDepth: 6, maxValues: 4, maxPaths: 3 };
const evidenceOf = (object: unknown, l: SampleLimits = limits): ShapeEvidence =>
  addSample(noSamples, object, l).evidence;

test("one object: conditions, generations, phases, completion times, well-known states and the suspend switch", () => {
  const evidence = evidenceOf({
    spec: { suspend: "yes", paused: true },
    status: {
      observedGeneration: 2,
      phase: "Running",
      deploymentState: "",
      completionTime: "2026-01-01T00:00:00Z",
      startTime: "2026-01-01T00:00:00Z",
      conditions: [
        { type: "Ready", status: "True", lastTransitionTime: "2026-01-01T00:00:00Z" },
        { type: "Synced", status: "False", observedGeneration: 2 },
      ],
      health: { status: "Healthy", phase: "Deep" },
      sync: { status: "" },
      rollout: {
        completionTime: "2026-01-01T00:00:00Z",
        observedGeneration: 1.5,
        conditions: [{ type: "Ready", status: "True", lastTransitionTime: "" }],
      },
    },
  });
  assert.deepEqual(evidence, {
    conditionArrays: [
      {
        path: ["status", "conditions"],
        declaredTypes: undefined,
        observedTypes: ["Ready", "Synced"],
        lastTransitionTime: true,
        observedGeneration: true,
      },
      {
        path: ["status", "rollout", "conditions"],
        declaredTypes: undefined,
        observedTypes: ["Ready"],
        lastTransitionTime: false,
        observedGeneration: false,
      },
    ],
    generationFields: [["status", "observedGeneration"]],
    phaseFields: [
      { path: ["status", "phase"], declaredValues: undefined, observedValues: ["Running"] },
      { path: ["status", "deploymentState"], declaredValues: undefined, observedValues: [] },
    ],
    stateFields: [
      { path: ["status", "health", "status"], declaredValues: undefined, observedValues: ["Healthy"] },
      { path: ["status", "sync", "status"], declaredValues: undefined, observedValues: [] },
    ],
    completionFields: [["status", "completionTime"]],
    suspendPath: ["spec", "paused"],
    notes: [],
  });
});

test("every completion-time name counts when it is a string directly under status", () => {
  for (const name of completionTimeNames) {
    assert.deepEqual(evidenceOf({ status: { [name]: "2026-01-01T00:00:00Z" } }).completionFields, [
      ["status", name],
    ]);
    assert.deepEqual(evidenceOf({ status: { [name]: 5 } }).completionFields, [], `${name} as a number`);
  }
  assert.deepEqual(evidenceOf({ status: { startTime: "2026-01-01T00:00:00Z" } }).completionFields, []);
});

test("conditions have transition times only when an entry carries a non-empty string one", () => {
  const times = (...entries: unknown[]) =>
    evidenceOf({ status: { conditions: entries } }).conditionArrays[0]?.lastTransitionTime;
  assert.equal(times({ type: "Ready", status: "True" }), false, "absent");
  assert.equal(times({ type: "Ready", status: "True", lastTransitionTime: 5 }), false, "a number");
  assert.equal(times({ type: "Ready", status: "True", lastTransitionTime: "" }), false, "empty");
  assert.equal(
    times({ type: "A", status: "True" }, { type: "B", status: "True", lastTransitionTime: "t" }),
    true,
  );
});

test("spec.suspend comes before spec.paused; no boolean switch, no suspend path", () => {
  assert.deepEqual(evidenceOf({ spec: { paused: false, suspend: false } }).suspendPath, ["spec", "suspend"]);
  assert.equal(evidenceOf({ spec: { suspend: "true" } }).suspendPath, undefined);
  assert.equal(evidenceOf({ status: {} }).suspendPath, undefined);
});

test("lists that are not conditions: a note for a non-empty `conditions`, nothing for others", () => {
  const evidence = evidenceOf({
    status: {
      conditions: [{ type: "Ready", status: "True" }, { type: "Odd" }],
      items: [{ name: "a" }],
      empty: [],
      nested: { conditions: [] },
      other: { conditions: ["x"] },
    },
  });
  assert.deepEqual(evidence.conditionArrays, []);
  assert.deepEqual(evidence.notes, [
    "status.conditions: entries lack a string type and status, not conditions",
    "status.other.conditions: entries lack a string type and status, not conditions",
  ]);
});

test("only the first maxValues entries of a list are looked at, and at most maxValues types kept", () => {
  const conditions = ["A", "B", "C", "D", "E"].map((type) => ({ type, status: "True" }));
  const evidence = evidenceOf({ status: { conditions: [...conditions, { odd: true }] } });
  assert.deepEqual(evidence.conditionArrays[0]?.observedTypes, ["A", "B", "C", "D"]);
  assert.deepEqual(
    evidenceOf({ status: { conditions: [...conditions.slice(0, 2), conditions[0]] } }).conditionArrays[0]
      ?.observedTypes,
    ["A", "B"],
  );
});

test("fields deeper than maxDepth under status are not looked at", () => {
  const at = (depth: number): Record<string, unknown> => {
    let node: Record<string, unknown> = { observedGeneration: 1 };
    for (let i = 0; i < depth; i++) node = { n: node };
    return { status: node };
  };
  const shallow = { ...limits, maxDepth: 2 };
  assert.deepEqual(evidenceOf(at(1), shallow).generationFields, [["status", "n", "observedGeneration"]]);
  assert.deepEqual(evidenceOf(at(2), shallow).generationFields, []);
});

test("addSample counts objects up to maxSamples; later objects and non-objects leave the samples as they are", () => {
  let samples: Samples = noSamples;
  const object = { status: { phase: "Running" } };
  for (let i = 0; i < 3; i++) {
    assert.equal(samplingDone(samples, limits), false);
    samples = addSample(samples, object, limits);
  }
  assert.equal(samples.seen, 3);
  assert.equal(samplingDone(samples, limits), true);
  assert.equal(addSample(samples, object, limits), samples);
  assert.equal(addSample(noSamples, null, limits), noSamples);
  assert.equal(addSample(noSamples, [object], limits), noSamples);
  assert.equal(addSample(noSamples, "object", limits), noSamples);
});

const arrays = (path: string[], types: string[], times = false, generations = false) => ({
  path,
  declaredTypes: undefined,
  observedTypes: types,
  lastTransitionTime: times,
  observedGeneration: generations,
});

test("merging into an open status: paths and values are added, values and paths bounded", () => {
  const a: ShapeEvidence = {
    ...emptyEvidence,
    conditionArrays: [arrays(["status", "conditions"], ["Ready", "Synced"])],
    phaseFields: [{ path: ["status", "phase"], declaredValues: ["A"], observedValues: ["Running"] }],
    generationFields: [["status", "observedGeneration"]],
    notes: ["one"],
  };
  const b: ShapeEvidence = {
    conditionArrays: [
      arrays(["status", "conditions"], ["Ready", "Stalled", "X", "Y"], true, true),
      arrays(["status", "other"], ["Z"]),
    ],
    phaseFields: [
      { path: ["status", "phase"], declaredValues: ["B"], observedValues: ["Failed", "Running"] },
    ],
    stateFields: [
      { path: ["status", "health", "status"], declaredValues: undefined, observedValues: ["Healthy"] },
    ],
    generationFields: [
      ["status", "observedGeneration"],
      ["status", "a", "observedGeneration"],
    ],
    completionFields: [["status", "completionTime"]],
    suspendPath: ["spec", "suspend"],
    notes: ["one", "two"],
  };
  // Paths new to `a` come as `b` has them; the paths both have are merged.
  assert.deepEqual(mergeEvidence(a, b, limits), {
    ...b,
    conditionArrays: [
      {
        path: ["status", "conditions"],
        declaredTypes: undefined,
        observedTypes: ["Ready", "Synced", "Stalled", "X"],
        lastTransitionTime: true,
        observedGeneration: true,
      },
      arrays(["status", "other"], ["Z"]),
    ],
    phaseFields: [
      { path: ["status", "phase"], declaredValues: ["A"], observedValues: ["Running", "Failed"] },
    ],
  });
});

test("merging: what is already known is kept (the same value, not a copy); the first suspend path wins", () => {
  const a: ShapeEvidence = {
    ...emptyEvidence,
    conditionArrays: [arrays(["status", "conditions"], ["Ready"], true, true)],
    suspendPath: ["spec", "paused"],
    notes: ["one"],
  };
  const merged = mergeEvidence(
    a,
    {
      ...a,
      conditionArrays: [arrays(["status", "conditions"], ["Ready"])],
      suspendPath: ["spec", "suspend"],
    },
    limits,
  );
  assert.deepEqual(merged.conditionArrays, a.conditionArrays, "times and generations stay once seen");
  assert.equal(merged.conditionArrays[0]?.observedTypes, a.conditionArrays[0]?.observedTypes);
  assert.deepEqual(merged.suspendPath, ["spec", "paused"]);
  assert.equal(merged.notes, a.notes);
});

test("merging: new paths beyond maxPaths are dropped, notes too", () => {
  const paths = (n: number, prefix: string) =>
    Array.from({ length: n }, (_, i) => ["status", `${prefix}${i}`]);
  const b: ShapeEvidence = {
    ...emptyEvidence,
    conditionArrays: paths(4, "c").map((p) => arrays(p, ["Ready"])),
    phaseFields: paths(4, "p").map((path) => ({ path, declaredValues: undefined, observedValues: [] })),
    generationFields: paths(4, "g"),
    completionFields: paths(4, "t"),
    notes: ["1", "2", "3", "4"],
  };
  const merged = mergeEvidence(emptyEvidence, b, limits);
  assert.deepEqual(
    merged.conditionArrays.map((c) => c.path),
    paths(3, "c"),
  );
  assert.deepEqual(
    merged.phaseFields.map((c) => c.path),
    paths(3, "p"),
  );
  assert.deepEqual(merged.generationFields, paths(3, "g"));
  assert.deepEqual(merged.completionFields, paths(3, "t"));
  assert.deepEqual(merged.notes, ["1", "2", "3"]);
});

test("merging into a declared status: objects add values of declared fields only", () => {
  const schema: ShapeEvidence = {
    ...emptyEvidence,
    conditionArrays: [{ ...arrays(["status", "conditions"], []), declaredTypes: ["Ready"] }],
    stateFields: [{ path: ["status", "sync", "status"], declaredValues: undefined, observedValues: [] }],
  };
  const objects: ShapeEvidence = {
    conditionArrays: [
      { ...arrays(["status", "conditions"], ["Ready", "Extra"], true, true), declaredTypes: ["Other"] },
      arrays(["status", "pruned"], ["Ready"]),
    ],
    phaseFields: [{ path: ["status", "phase"], declaredValues: undefined, observedValues: ["Running"] }],
    stateFields: [
      { path: ["status", "sync", "status"], declaredValues: undefined, observedValues: ["Synced"] },
      { path: ["status", "health", "status"], declaredValues: undefined, observedValues: ["Healthy"] },
    ],
    generationFields: [["status", "observedGeneration"]],
    completionFields: [["status", "completionTime"]],
    suspendPath: ["spec", "suspend"],
    notes: [],
  };
  assert.deepEqual(mergeEvidence(schema, objects, limits, false), {
    ...emptyEvidence,
    conditionArrays: [
      {
        path: ["status", "conditions"],
        declaredTypes: ["Ready"],
        observedTypes: ["Ready", "Extra"],
        // Not declared: the API server prunes them, whatever an object in a test says.
        lastTransitionTime: false,
        observedGeneration: false,
      },
    ],
    stateFields: [
      { path: ["status", "sync", "status"], declaredValues: undefined, observedValues: ["Synced"] },
    ],
  });
});

const detection = (evidence: ShapeEvidence, o: Partial<VersionDetection> = {}): VersionDetection => ({
  version: "v1",
  served: true,
  storage: true,
  statusSubresource: true,
  openStatus: false,
  statusUndeclared: false,
  evidence,
  valueFields: [],
  ...o,
});

test("the basis names where the evidence came from: schema, samples, both, or none", () => {
  const declared: ShapeEvidence = {
    ...emptyEvidence,
    phaseFields: [{ path: ["status", "phase"], declaredValues: ["Running"], observedValues: [] }],
  };
  const one = addSample(noSamples, { status: { phase: "Running" } }, limits);
  assert.equal(decideWithSamples(detection(declared), noSamples, limits).basis, "schema");
  assert.equal(decideWithSamples(detection(declared), one, limits).basis, "schema+samples");
  assert.equal(
    decideWithSamples(detection(emptyEvidence, { openStatus: true }), one, limits).basis,
    "samples",
  );
  assert.equal(
    decideWithSamples(detection(emptyEvidence, { openStatus: true }), noSamples, limits).basis,
    "none",
  );
  // Objects of a kind whose schema declares no status carry none: they are no basis.
  assert.equal(
    decideWithSamples(detection(emptyEvidence, { statusUndeclared: true }), one, limits).basis,
    "none",
  );
  const each: ShapeEvidence[] = [
    { ...emptyEvidence, conditionArrays: [arrays(["status", "conditions"], ["Ready"])] },
    { ...emptyEvidence, generationFields: [["status", "observedGeneration"]] },
    {
      ...emptyEvidence,
      stateFields: [{ path: ["status", "sync", "status"], declaredValues: undefined, observedValues: [] }],
    },
  ];
  for (const evidence of each)
    assert.equal(decideWithSamples(detection(evidence), noSamples, limits).basis, "schema");
});

test("the decision is told whether sampling is done, by the limits given", () => {
  const open = detection(emptyEvidence, { openStatus: true });
  let samples = noSamples;
  for (let i = 0; i < 2; i++)
    samples = addSample(samples, { status: { conditions: [{ type: "Ready", status: "True" }] } }, limits);
  assert.equal(decideWithSamples(open, samples, limits).learning, true);
  samples = addSample(samples, { status: {} }, limits);
  assert.equal(decideWithSamples(open, samples, limits).learning, false);
});

test("detectShapes decides each served version from its schema alone; versions not served are left out", () => {
  const schema = {
    openAPIV3Schema: {
      type: "object",
      properties: {
        status: { type: "object", properties: { phase: { type: "string", enum: ["Running"] } } },
      },
    },
  };
  const shapes = detectShapes({
    spec: {
      versions: [
        { name: "v1", served: true, storage: true, schema },
        { name: "v1beta1", served: false, storage: false, schema },
        { name: "v2", served: true, storage: false, schema },
      ],
    },
  });
  assert.deepEqual(
    shapes.map((s) => [s.version, s.basis, s.phase?.values]),
    [
      ["v1", "schema", ["Running"]],
      ["v2", "schema", ["Running"]],
    ],
  );
});
