// What a CRD version's schema says about status, on small hand-written
// schemas: which fields count as evidence (and which are set aside), where the
// walk stops, and how open, undeclared and subresource status are read. The
// corpus of whole CRDs is in detect-corpus.test.ts.
import assert from "node:assert/strict";
import { test } from "node:test";
import { detectVersion, detectVersions } from "../../src/core/detect/schema.ts";
import { completionTimeNames, lifecycleWords } from "../support/status-words.ts";

type Json = Record<string, unknown>;
const str = (extra: Json = {}): Json => ({ type: "string", ...extra });
const obj = (properties: Json, extra: Json = {}): Json => ({ type: "object", properties, ...extra });
const conditionList = (item: Json = {}): Json => ({
  type: "array",
  items: obj({ type: str(), status: str(), ...item }),
});

/** A version whose status schema is `status` (and spec `spec`, when given). */
function version(status: Json | undefined, more: Json = {}, spec?: Json): Json {
  const properties: Json = {};
  if (spec) properties.spec = spec;
  if (status) properties.status = status;
  return {
    name: "v1",
    served: true,
    storage: true,
    subresources: { status: {} },
    schema: { openAPIV3Schema: obj(properties) },
    ...more,
  };
}

const evidence = (status: Json) => {
  const detected = detectVersion(version(status));
  assert.ok(detected);
  return detected.evidence;
};

test("a list of objects with string type and status is a list of conditions, with what its entries declare", () => {
  const { conditionArrays, notes } = evidence(
    obj({
      conditions: conditionList({
        type: str({ enum: ["Ready", 7, "Synced"] }),
        lastTransitionTime: str(),
        observedGeneration: { type: "integer" },
      }),
      other: conditionList(),
    }),
  );
  assert.deepEqual(conditionArrays, [
    {
      path: ["status", "conditions"],
      declaredTypes: ["Ready", "Synced"],
      observedTypes: [],
      lastTransitionTime: true,
      observedGeneration: true,
    },
    {
      path: ["status", "other"],
      declaredTypes: undefined,
      observedTypes: [],
      lastTransitionTime: false,
      observedGeneration: false,
    },
  ]);
  assert.deepEqual(notes, []);
});

test("a list named conditions whose entries lack a string type or status is set aside with a note", () => {
  for (const item of [
    obj({ type: str() }),
    obj({ status: str() }),
    obj({ type: { type: "integer" }, status: str() }),
    obj({ type: str(), status: { type: "boolean" } }),
    { type: "string" },
  ]) {
    const { conditionArrays, notes } = evidence(obj({ conditions: { type: "array", items: item } }));
    assert.deepEqual(conditionArrays, [], JSON.stringify(item));
    assert.deepEqual(notes, ["status.conditions: entries lack a string type and status, not conditions"]);
  }
  const other = evidence(obj({ entries: { type: "array", items: obj({ type: str() }) } }));
  assert.deepEqual(other.notes, [], "only a list named conditions is worth a note");
  assert.deepEqual(evidence(obj({ conditions: { type: "array" } })).conditionArrays, [], "no items");
});

test("an enum of types with no string in it declares nothing", () => {
  const { conditionArrays } = evidence(obj({ conditions: conditionList({ type: str({ enum: [1, 2] }) }) }));
  assert.equal(conditionArrays[0]?.declaredTypes, undefined);
  const empty = evidence(obj({ conditions: conditionList({ type: str({ enum: [] }) }) }));
  assert.equal(empty.conditionArrays[0]?.declaredTypes, undefined);
  const notList = evidence(obj({ conditions: conditionList({ type: str({ enum: "Ready" }) }) }));
  assert.equal(notList.conditionArrays[0]?.declaredTypes, undefined);
});

test("lists are not entered: conditions inside list entries describe the entries", () => {
  const { conditionArrays, generationFields } = evidence(
    obj({
      components: {
        type: "array",
        items: obj({ conditions: conditionList(), observedGeneration: { type: "integer" } }),
      },
    }),
  );
  assert.deepEqual(conditionArrays, []);
  assert.deepEqual(generationFields, []);
});

test("observedGeneration counts when it is a number, at any depth outside lists", () => {
  const { generationFields } = evidence(
    obj({
      observedGeneration: { type: "integer" },
      rollout: obj({ observedGeneration: { type: "number" } }),
      text: obj({ observedGeneration: str() }),
      untyped: obj({ observedGeneration: {} }),
    }),
  );
  assert.deepEqual(generationFields, [
    ["status", "observedGeneration"],
    ["status", "rollout", "observedGeneration"],
  ]);
});

test("a phase is a string directly under status, named like one or with lifecycle words in its enum", () => {
  const { phaseFields } = evidence(
    obj({
      phase: str(),
      deploymentState: str({ enum: ["A", "B"] }),
      verdict: str({ enum: ["Unknown", "completed"] }),
      outcome: str({ enum: ["Succeeded", "Failed"] }),
      color: str({ enum: ["Red", "Unknown"] }),
      free: str(),
      phaseCount: { type: "integer" },
      nested: obj({ phase: str() }),
    }),
  );
  assert.deepEqual(phaseFields, [
    { path: ["status", "phase"], declaredValues: undefined, observedValues: [] },
    { path: ["status", "deploymentState"], declaredValues: ["A", "B"], observedValues: [] },
    { path: ["status", "verdict"], declaredValues: ["Unknown", "completed"], observedValues: [] },
    { path: ["status", "outcome"], declaredValues: ["Succeeded", "Failed"], observedValues: [] },
  ]);
});

test("each lifecycle word in a string enum makes a phase, whatever its case; other words do not", () => {
  const phaseOf = (values: string[]) => evidence(obj({ outcome: str({ enum: values }) })).phaseFields;
  for (const word of lifecycleWords) {
    for (const value of [word, word.toUpperCase()]) {
      assert.deepEqual(
        phaseOf(["Unknown", value]),
        [{ path: ["status", "outcome"], declaredValues: ["Unknown", value], observedValues: [] }],
        value,
      );
    }
  }
  for (const value of ["Unknown", "", "Pendings", "Red"]) assert.deepEqual(phaseOf([value]), [], value);
  assert.deepEqual(evidence(obj({ outcome: str() })).phaseFields, [], "no enum and not named like a phase");
});

test("completion times count only directly under status; well-known state fields at their place", () => {
  const { completionFields, stateFields } = evidence(
    obj({
      completionTime: str({ format: "date-time" }),
      finishedAt: str(),
      stoppedAt: { type: "array", items: str() },
      run: obj({ completedAt: str() }),
      health: obj({ status: str({ enum: ["Healthy", "Degraded"] }) }),
      sync: obj({ status: str() }),
      other: obj({ status: str() }),
      operation: obj({ health: obj({ status: str() }) }),
    }),
  );
  assert.deepEqual(completionFields, [
    ["status", "completionTime"],
    ["status", "finishedAt"],
  ]);
  assert.deepEqual(stateFields, [
    { path: ["status", "health", "status"], declaredValues: ["Healthy", "Degraded"], observedValues: [] },
    { path: ["status", "sync", "status"], declaredValues: undefined, observedValues: [] },
  ]);
  for (const name of completionTimeNames) {
    assert.deepEqual(evidence(obj({ [name]: str() })).completionFields, [["status", name]], name);
  }
  assert.deepEqual(evidence(obj({ startTime: str(), completion: str() })).completionFields, []);
  const notString = evidence(obj({ health: obj({ status: { type: "integer" } }) }));
  assert.deepEqual(notString.stateFields, [], "a state field is a string");
});

test("the walk stops below a depth of eight and after 5000 fields, and says so once", () => {
  let deep: Json = obj({ observedGeneration: { type: "integer" } });
  for (let i = 0; i < 9; i++) deep = obj({ [`l${i}`]: deep });
  // status + 9 levels: the field sits at depth 11, past the bound.
  assert.deepEqual(evidence(deep).generationFields, []);
  let within: Json = obj({ observedGeneration: { type: "integer" } });
  for (let i = 0; i < 7; i++) within = obj({ [`l${i}`]: within });
  assert.equal(evidence(within).generationFields.length, 1, "at depth 9 (8 levels below status) it is read");

  const wide = (n: number): Json =>
    obj(Object.fromEntries(Array.from({ length: n }, (_, i) => [`f${String(i).padStart(5, "0")}`, str()])));
  const big = evidence(obj({ a: wide(3000), b: wide(3000), observedGeneration: { type: "integer" } }));
  assert.deepEqual(big.notes, ["schema walk stopped after 5000 fields under status"]);
  assert.deepEqual(big.generationFields, [], "fields past the bound are not read");
  const exactly = evidence(wide(5000));
  assert.deepEqual(exactly.notes, [], "5000 fields are all read");
  assert.deepEqual(evidence(wide(5001)).notes, ["schema walk stopped after 5000 fields under status"]);
});

test("entries that are not schemas are skipped", () => {
  const { phaseFields, generationFields } = evidence(
    obj({ phase: null, broken: [str()], observedGeneration: "integer", state: str() }),
  );
  assert.deepEqual(
    phaseFields.map((f) => f.path),
    [["status", "state"]],
  );
  assert.deepEqual(generationFields, []);
});

test("open status: status preserves unknown fields, or there is no status and the root is open or absent", () => {
  const open = (v: Json) => detectVersion(v)?.openStatus;
  const preserve = { "x-kubernetes-preserve-unknown-fields": true };
  assert.equal(open(version(obj({}, preserve))), true);
  assert.equal(open(version(obj({ phase: str() }))), false);
  assert.equal(open(version(undefined)), false, "a root schema without status");
  assert.equal(open({ name: "v1", schema: { openAPIV3Schema: { type: "object", ...preserve } } }), true);
  assert.equal(open({ name: "v1" }), true, "no schema at all");
  // Preserving unknown fields is not inherited: a declared status is pruned to what it declares.
  const openRoot = { type: "object", ...preserve, properties: { status: obj({ phase: str() }) } };
  assert.equal(
    open({ name: "v1", schema: { openAPIV3Schema: openRoot } }),
    false,
    "open root, declared status",
  );
  assert.equal(
    open(version(obj({}, { "x-kubernetes-preserve-unknown-fields": "true" }))),
    false,
    "only true",
  );
});

test("undeclared status: not open and no status properties (the API server prunes it)", () => {
  const undeclared = (v: Json) => detectVersion(v)?.statusUndeclared;
  assert.equal(undeclared(version(undefined)), true);
  assert.equal(undeclared(version({ type: "object" })), true);
  assert.equal(undeclared(version(obj({ phase: str() }))), false);
  assert.equal(undeclared(version(obj({}, { "x-kubernetes-preserve-unknown-fields": true }))), false);
  assert.equal(undeclared({ name: "v1" }), false, "no schema: open, not undeclared");
});

test("served, storage and the status subresource are read as the API gives them", () => {
  const flags = (v: Json) => {
    const d = detectVersion(v);
    return [d?.served, d?.storage, d?.statusSubresource];
  };
  assert.deepEqual(flags(version(obj({}))), [true, true, true]);
  assert.deepEqual(flags(version(obj({}), { served: "true", storage: 1, subresources: { scale: {} } })), [
    false,
    false,
    false,
  ]);
  for (const odd of [[], "yes", true, 1, null]) {
    assert.equal(
      flags(version(obj({}), { subresources: { status: odd } })).at(2),
      false,
      JSON.stringify(odd),
    );
  }
});

test("schema values that are not objects (null, a list, a string, true) declare nothing", () => {
  for (const odd of [null, [], "string", true]) {
    const label = JSON.stringify(odd);
    const [list] = evidence(
      obj({ conditions: conditionList({ lastTransitionTime: odd, observedGeneration: odd }) }),
    ).conditionArrays;
    assert.deepEqual([list?.lastTransitionTime, list?.observedGeneration], [false, false], label);
    const entries = { type: "array", items: obj({ type: odd, status: str() }) };
    assert.deepEqual(evidence(obj({ conditions: entries })).conditionArrays, [], label);
    assert.deepEqual(evidence(obj({ phase: odd, observedGeneration: odd })).phaseFields, [], label);
  }
});

test("spec.suspend, else spec.paused, when declared as a boolean", () => {
  const suspend = (spec: Json | undefined) => detectVersion(version(obj({}), {}, spec))?.evidence.suspendPath;
  assert.deepEqual(suspend(obj({ suspend: { type: "boolean" }, paused: { type: "boolean" } })), [
    "spec",
    "suspend",
  ]);
  assert.deepEqual(suspend(obj({ paused: { type: "boolean" } })), ["spec", "paused"]);
  assert.deepEqual(suspend(obj({ suspend: str(), paused: { type: "boolean" } })), ["spec", "paused"]);
  assert.equal(suspend(obj({ suspend: str() })), undefined);
  assert.equal(suspend(undefined), undefined);
});

test("every usable version of a CRD, in order; unnamed entries and odd containers are skipped", () => {
  const crd = {
    spec: { versions: [version(undefined), { served: true }, null, { ...version(undefined), name: "v2" }] },
  };
  assert.deepEqual(
    detectVersions(crd).map((v) => v.version),
    ["v1", "v2"],
  );
  for (const odd of [undefined, null, {}, { spec: {} }, { spec: { versions: {} } }, { spec: [] }]) {
    assert.deepEqual(detectVersions(odd), [], JSON.stringify(odd));
  }
  assert.equal(detectVersion({ name: 7 }), undefined);
  assert.equal(detectVersion("v1"), undefined);
});

test("numeric and date-time fields under status are values: candidates; observedGeneration, lists and other strings are not", () => {
  const detected = detectVersion(
    version(
      obj({
        observedGeneration: { type: "integer" },
        replicas: { type: "integer" },
        readyReplicas: { type: "integer", format: "int32" },
        ratio: { type: "number" },
        notAfter: str({ format: "date-time" }),
        message: str(),
        nested: obj({ count: { type: "integer" }, since: str({ format: "date-time" }) }),
        history: { type: "array", items: obj({ at: str({ format: "date-time" }), n: { type: "integer" } }) },
      }),
    ),
  );
  assert.deepEqual(
    detected?.valueFields.map((f) => `${f.path.join(".")}:${f.type}`),
    [
      "status.replicas:number",
      "status.readyReplicas:number",
      "status.ratio:number",
      "status.notAfter:timestamp",
      "status.nested.count:number",
      "status.nested.since:timestamp",
    ],
  );
});

test("at most 20 candidates are kept, in schema order", () => {
  const many = Object.fromEntries(Array.from({ length: 30 }, (_, i) => [`f${i}`, { type: "integer" }]));
  const fields = detectVersion(version(obj(many)))?.valueFields ?? [];
  assert.equal(fields.length, 20);
  assert.equal(fields.at(-1)?.path.join("."), "status.f19");
});
