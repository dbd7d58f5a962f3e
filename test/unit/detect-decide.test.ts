// The decision from evidence, on hand-made evidence: each criterion that
// ranks condition lists, observedGeneration fields and phases, the readiness
// rule, run-to-completion, the warnings and whether learning goes on, each
// with the reason it gives. Whole CRDs are in detect-corpus.test.ts.
import assert from "node:assert/strict";
import { test } from "node:test";
import type { DecisionInput } from "../../src/core/detect/decide.ts";
import type {
  ConditionArrayEvidence,
  FieldPath,
  ShapeEvidence,
  StringFieldEvidence,
} from "../../src/core/detect/shape.ts";
import { wellKnownStates } from "../../src/core/detect/shape.ts";
import { conditionList, decideOn, stringField } from "../support/evidence.ts";

const conditions = conditionList;
const field = stringField;
const decide = decideOn;

const chosenConditions = (...arrays: ConditionArrayEvidence[]) => {
  const shape = decide({ conditionArrays: arrays });
  return [shape.conditions?.path.join("."), shape.conditions?.why];
};

test("condition lists: each criterion in turn, and the reason names the one that decided", () => {
  assert.deepEqual(chosenConditions(conditions(["status", "conditions"])), [
    "status.conditions",
    "the only list of conditions in status",
  ]);
  assert.deepEqual(
    chosenConditions(conditions(["status", "a", "conditions"]), conditions(["status", "conditions"])),
    ["status.conditions", "status.conditions is the conventional place; also found: status.a.conditions"],
  );
  assert.deepEqual(
    chosenConditions(conditions(["status", "list"]), conditions(["status", "a", "conditions"])),
    ["status.a.conditions", "a list named conditions; also found: status.list"],
  );
  assert.deepEqual(
    chosenConditions(
      conditions(["status", "deprecated", "conditions"]),
      conditions(["status", "b", "c", "conditions"]),
    ),
    ["status.b.c.conditions", "not under a deprecated field; also found: status.deprecated.conditions"],
  );
  assert.deepEqual(
    chosenConditions(
      conditions(["status", "LegacyThing", "conditions"]),
      conditions(["status", "x", "y", "conditions"]),
    ),
    ["status.x.y.conditions", "not under a deprecated field; also found: status.LegacyThing.conditions"],
    "legacy, in any case",
  );
  assert.deepEqual(
    chosenConditions(
      conditions(["status", "b", "c", "conditions"]),
      conditions(["status", "z", "conditions"]),
    ),
    ["status.z.conditions", "the shallowest; also found: status.b.c.conditions"],
  );
  assert.deepEqual(
    chosenConditions(
      conditions(["status", "a", "conditions"], { lastTransitionTime: false }),
      conditions(["status", "b", "conditions"], { lastTransitionTime: true, observedGeneration: true }),
    ),
    [
      "status.b.conditions",
      "entries with lastTransitionTime and observedGeneration; also found: status.a.conditions",
    ],
  );
  assert.deepEqual(
    chosenConditions(
      conditions(["status", "a", "conditions"], { lastTransitionTime: true, observedGeneration: false }),
      conditions(["status", "b", "conditions"], { lastTransitionTime: true, observedGeneration: true }),
    ),
    [
      "status.b.conditions",
      "entries with lastTransitionTime and observedGeneration; also found: status.a.conditions",
    ],
    "observedGeneration counts too",
  );
  assert.deepEqual(
    chosenConditions(
      conditions(["status", "c", "conditions"]),
      conditions(["status", "a", "conditions"]),
      conditions(["status", "b", "conditions"]),
    ),
    ["status.a.conditions", "first by name; also found: status.b.conditions, status.c.conditions"],
  );
});

test("the same evidence in any order gives the same choice", () => {
  const arrays = [
    conditions(["status", "b", "conditions"]),
    conditions(["status", "conditions"]),
    conditions(["status", "a", "conditions"]),
  ];
  const forward = decide({ conditionArrays: arrays });
  const backward = decide({ conditionArrays: [...arrays].reverse() });
  assert.deepEqual(forward, backward);
  assert.deepEqual(forward.conditions?.others, [
    ["status", "a", "conditions"],
    ["status", "b", "conditions"],
  ]);
});

test("condition types: the declared enum as is, else the types seen, sorted", () => {
  const declared = decide({
    conditionArrays: [conditions(["status", "conditions"], { declaredTypes: ["Z", "A"] })],
  });
  assert.deepEqual([declared.conditions?.types, declared.conditions?.typesDeclared], [["Z", "A"], true]);
  const seen = decide({
    conditionArrays: [
      conditions(["status", "conditions"], { declaredTypes: undefined, observedTypes: ["Z", "A"] }),
    ],
  });
  assert.deepEqual([seen.conditions?.types, seen.conditions?.typesDeclared], [["A", "Z"], false]);
  assert.equal(decide({}).conditions, undefined);
});

test("observedGeneration: status's own, else beside the conditions, else the shallowest, else per condition, else none", () => {
  const generation = (fields: FieldPath[], arrays: ConditionArrayEvidence[] = []) =>
    decide({ generationFields: fields, conditionArrays: arrays }).observedGeneration;
  assert.deepEqual(
    generation([
      ["status", "x", "observedGeneration"],
      ["status", "observedGeneration"],
    ]),
    {
      source: "status",
      path: ["status", "observedGeneration"],
      why: "status.observedGeneration",
    },
  );
  assert.deepEqual(
    generation(
      [
        ["status", "a", "observedGeneration"],
        ["status", "r", "s", "observedGeneration"],
      ],
      [conditions(["status", "r", "s", "conditions"])],
    ),
    {
      source: "nested",
      path: ["status", "r", "s", "observedGeneration"],
      why: "beside the conditions at status.r.s.conditions",
    },
  );
  assert.deepEqual(
    generation([
      ["status", "b", "c", "observedGeneration"],
      ["status", "deprecated", "observedGeneration"],
      ["status", "z", "observedGeneration"],
      ["status", "a", "observedGeneration"],
    ]),
    {
      source: "nested",
      path: ["status", "a", "observedGeneration"],
      why: "deeper in status; first by name; also found: status.z.observedGeneration, status.b.c.observedGeneration, status.deprecated.observedGeneration",
    },
  );
  assert.deepEqual(generation([["status", "q", "observedGeneration"]]), {
    source: "nested",
    path: ["status", "q", "observedGeneration"],
    why: "the only observedGeneration in status",
  });
  assert.deepEqual(generation([], [conditions(["status", "conditions"], { observedGeneration: true })]), {
    source: "conditions",
    path: undefined,
    why: "only on each condition (no object-level field)",
  });
  assert.deepEqual(generation([], [conditions(["status", "conditions"])]), {
    source: "none",
    path: undefined,
    why: "no observedGeneration in status or on conditions",
  });
  assert.equal(generation([]).source, "none");
});

test("nested observedGeneration: the reason names the rule that decided, a deprecated field losing even when shallower", () => {
  const generation = (...fields: FieldPath[]) => decide({ generationFields: fields }).observedGeneration;
  assert.deepEqual(
    generation(["status", "deprecated", "observedGeneration"], ["status", "a", "b", "observedGeneration"]),
    {
      source: "nested",
      path: ["status", "a", "b", "observedGeneration"],
      why: "deeper in status; not under a deprecated field; also found: status.deprecated.observedGeneration",
    },
  );
  assert.deepEqual(
    generation(["status", "b", "c", "observedGeneration"], ["status", "z", "observedGeneration"]),
    {
      source: "nested",
      path: ["status", "z", "observedGeneration"],
      why: "deeper in status; the shallowest; also found: status.b.c.observedGeneration",
    },
  );
});

test("phase: status.phase, then status.state, then a name like phase or state, then by name", () => {
  const phase = (...fields: StringFieldEvidence[]) => {
    const p = decide({ phaseFields: fields }).phase;
    return [p?.path.join("."), p?.why];
  };
  assert.deepEqual(phase(field(["status", "phase"], { declaredValues: ["A"] })), [
    "status.phase",
    "a string enum, the only phase-like field",
  ]);
  assert.deepEqual(phase(field(["status", "state"]), field(["status", "phase"])), [
    "status.phase",
    "a string without enum; status.phase is the conventional place; also found: status.state",
  ]);
  assert.deepEqual(phase(field(["status", "currentPhase"]), field(["status", "state"])), [
    "status.state",
    "a string without enum; status.state comes next; also found: status.currentPhase",
  ]);
  assert.deepEqual(phase(field(["status", "verdict"]), field(["status", "buildState"])), [
    "status.buildState",
    "a string without enum; named like a phase or state; also found: status.verdict",
  ]);
  assert.deepEqual(phase(field(["status", "verdict"]), field(["status", "outcome"])), [
    "status.outcome",
    "a string without enum; first by name; also found: status.verdict",
  ]);
  assert.deepEqual(
    phase(field(["status", "verdict"]), field(["status", "outcome"]), field(["status", "result"])),
    ["status.outcome", "a string without enum; first by name; also found: status.result, status.verdict"],
  );
  assert.equal(decide({}).phase, undefined);
});

test("phase values: the declared enum as is, else the values seen, sorted", () => {
  const declared = decide({
    phaseFields: [field(["status", "phase"], { declaredValues: ["Z", "A"] })],
  }).phase;
  assert.deepEqual([declared?.values, declared?.valuesDeclared], [["Z", "A"], true]);
  const seen = decide({ phaseFields: [field(["status", "phase"], { observedValues: ["Z", "A"] })] }).phase;
  assert.deepEqual([seen?.values, seen?.valuesDeclared], [["A", "Z"], false]);
});

test("well-known state fields: their documented values unless the schema declares some", () => {
  const { states, readiness } = decide({
    stateFields: [
      field(["status", "sync", "status"], { declaredValues: ["Synced", "OutOfSync"] }),
      field(["status", "health", "status"]),
      field(["status", "other", "status"]),
    ],
  });
  assert.deepEqual(states, [
    {
      name: "health",
      path: ["status", "health", "status"],
      values: wellKnownStates[0].values,
      readyValue: "Healthy",
      failedValues: ["Degraded"],
    },
    {
      name: "sync",
      path: ["status", "sync", "status"],
      values: ["Synced", "OutOfSync"],
      readyValue: "Synced",
      failedValues: [],
    },
  ]);
  assert.deepEqual(readiness, {
    condition: undefined,
    source: "states",
    pending: false,
    why: "no conditions; ready when health Healthy and sync Synced",
  });
});

test("readiness condition: the first of Ready, Succeeded, Available, saying which were not there", () => {
  const readiness = (types: string[], declared = true) =>
    decide({
      conditionArrays: [
        conditions(["status", "conditions"], {
          declaredTypes: declared ? types : undefined,
          observedTypes: declared ? [] : types,
        }),
      ],
    }).readiness;
  assert.deepEqual(readiness(["Available", "Ready"]), {
    condition: "Ready",
    source: "schema",
    pending: false,
    why: "the type enum declares Ready",
  });
  assert.deepEqual(
    readiness(["Available", "Succeeded"]).why,
    "the type enum declares Succeeded and not Ready",
  );
  assert.deepEqual(readiness(["Available"], false), {
    condition: "Available",
    source: "observed",
    pending: false,
    why: "objects carry Available and not Ready or Succeeded",
  });
});

test("no readiness condition among the types: pending while objects may still tell, else said", () => {
  const readiness = (types: string[], declared: boolean, more: Partial<DecisionInput> = {}, phase = false) =>
    decide(
      {
        conditionArrays: [
          conditions(["status", "conditions"], {
            declaredTypes: declared ? types : undefined,
            observedTypes: declared ? [] : types,
          }),
        ],
        phaseFields: phase ? [field(["status", "phase"])] : [],
      },
      more,
    ).readiness;
  assert.deepEqual(readiness([], false), {
    condition: undefined,
    source: "observed",
    pending: true,
    why: "no type enum in the schema: learned from the condition types objects carry (Ready, then Succeeded, then Available)",
  });
  assert.deepEqual(readiness(["Synced", "Healthy"], false), {
    condition: undefined,
    source: "observed",
    pending: true,
    why: "objects carry none of Ready, Succeeded, Available (only Healthy, Synced)",
  });
  assert.equal(readiness(["Synced"], false, { samplingDone: true }).pending, false, "sampling over");
  assert.deepEqual(readiness(["Synced"], true, {}, true), {
    condition: undefined,
    source: "schema",
    pending: false,
    why: "the type enum declares none of Ready, Succeeded, Available (only Synced); the phase decides",
  });
  assert.equal(readiness([], true).pending, false, "an empty declared enum is final");
});

test("without conditions or states: the phase decides, or nothing does", () => {
  assert.deepEqual(decide({ phaseFields: [field(["status", "phase"])] }).readiness, {
    condition: undefined,
    source: "none",
    pending: false,
    why: "no conditions; the phase status.phase decides",
  });
  assert.deepEqual(decide({}).readiness, {
    condition: undefined,
    source: "none",
    pending: false,
    why: "no conditions and no phase",
  });
});

test("run to completion: a Succeeded readiness or condition, a completed phase, or a completion time", () => {
  const run = (evidence: Partial<ShapeEvidence>) => decide(evidence).runToCompletion;
  assert.deepEqual(
    run({ conditionArrays: [conditions(["status", "conditions"], { declaredTypes: ["Succeeded"] })] }),
    {
      value: true,
      why: "its readiness condition is Succeeded",
    },
  );
  assert.deepEqual(
    run({
      conditionArrays: [conditions(["status", "conditions"], { declaredTypes: ["Ready", "Succeeded"] })],
    }),
    { value: true, why: "it has a Succeeded condition" },
  );
  for (const done of ["Succeeded", "completed", "COMPLETE"]) {
    assert.deepEqual(
      run({ phaseFields: [field(["status", "phase"], { declaredValues: ["Running", done] })] }),
      {
        value: true,
        why: `phase ${done} ends a run`,
      },
    );
  }
  assert.deepEqual(
    run({
      completionFields: [
        ["status", "finishedAt"],
        ["status", "completionTime"],
      ],
    }),
    {
      value: true,
      why: "status.finishedAt records when it finished",
    },
  );
  assert.deepEqual(
    run({
      conditionArrays: [conditions(["status", "conditions"], { declaredTypes: ["Ready"] })],
      phaseFields: [field(["status", "phase"], { declaredValues: ["Running", "Done"] })],
    }),
    { value: false, why: "no Succeeded condition, completed phase or completion time" },
  );
});

test("warnings: undeclared status, open status while learning, no transition times, no readiness, nothing useful, no subresource", () => {
  assert.deepEqual(decide({}, { statusUndeclared: true, statusSubresource: false }).warnings, [
    "the schema declares no status: the API server drops any status written, nothing to read there",
  ]);
  assert.deepEqual(decide({}, { openStatus: true }).warnings, [
    "status is open (x-kubernetes-preserve-unknown-fields): paths are learned from the first objects seen",
  ]);
  assert.deepEqual(decide({}, { openStatus: true, samplingDone: true }).warnings, [
    "status has no conditions, observedGeneration, phase or known state field",
  ]);
  assert.deepEqual(decide({}).warnings, [
    "status has no conditions, observedGeneration, phase or known state field",
  ]);
  for (const useful of [
    { phaseFields: [field(["status", "phase"])] },
    { stateFields: [field(["status", "health", "status"])] },
    { generationFields: [["status", "observedGeneration"]] },
    { conditionArrays: [conditions(["status", "conditions"])] },
  ]) {
    assert.deepEqual(decide(useful).warnings, [], JSON.stringify(useful));
  }
  assert.deepEqual(
    decide({ conditionArrays: [conditions(["status", "x", "conditions"], { lastTransitionTime: false })] })
      .warnings,
    [
      "conditions at status.x.conditions carry no lastTransitionTime: times count from when the exporter first saw a status",
    ],
  );
  assert.deepEqual(
    decide({ conditionArrays: [conditions(["status", "conditions"], { declaredTypes: ["Synced"] })] })
      .warnings,
    [
      "no readiness condition: the type enum declares none of Ready, Succeeded, Available (only Synced); set readyCondition to choose one",
    ],
  );
  assert.deepEqual(
    decide({
      conditionArrays: [
        conditions(["status", "conditions"], { declaredTypes: undefined, observedTypes: ["Synced"] }),
      ],
    }).warnings,
    [],
    "no warning while the readiness condition may still be learned",
  );
  assert.deepEqual(
    decide({ generationFields: [["status", "observedGeneration"]] }, { statusSubresource: false }).warnings,
    ["no status subresource: every status write bumps metadata.generation"],
  );
});

test("a states-based readiness with conditions present gives no readiness warning", () => {
  // Conditions without a readiness type: the warning is about conditions, which states do not replace.
  const shape = decide({
    conditionArrays: [conditions(["status", "conditions"], { declaredTypes: ["Synced"] })],
    stateFields: [field(["status", "health", "status"])],
  });
  assert.equal(shape.readiness.source, "schema", "conditions come first");
  assert.equal(shape.warnings.length, 1);
});

test("learning goes on while sampling is not done and objects can still tell something", () => {
  const learning = (evidence: Partial<ShapeEvidence>, more: Partial<DecisionInput> = {}) =>
    decide(evidence, more).learning;
  assert.equal(learning({}, { openStatus: true }), true, "open status");
  assert.equal(learning({}, { openStatus: true, samplingDone: true }), false, "sampling done");
  assert.equal(
    learning({ conditionArrays: [conditions(["status", "conditions"], { declaredTypes: undefined })] }),
    true,
    "readiness pending",
  );
  assert.equal(learning({ phaseFields: [field(["status", "phase"])] }), true, "phase values not declared");
  assert.equal(learning({ phaseFields: [field(["status", "phase"], { declaredValues: ["A"] })] }), false);
  assert.equal(learning({ conditionArrays: [conditions(["status", "conditions"])] }), false, "all declared");
  assert.equal(learning({}), false);
});

test("what is passed through: version, basis, subresource, suspend path and notes", () => {
  const notes = ["a note"];
  const shape = decide(
    { suspendPath: ["spec", "paused"], notes },
    { version: "v2", basis: "schema+samples", statusSubresource: false },
  );
  assert.deepEqual(
    [shape.version, shape.basis, shape.statusSubresource, shape.suspendPath, shape.notes],
    ["v2", "schema+samples", false, ["spec", "paused"], ["a note"]],
  );
  assert.notEqual(shape.notes, notes, "a copy");
});

test("paths are compared whole: one that only begins like the conventional place is not it", () => {
  // A list at `status` itself starts like status.conditions but is not there.
  assert.deepEqual(chosenConditions(conditions(["status"]), conditions(["status", "a", "conditions"])), [
    "status.a.conditions",
    "a list named conditions; also found: status",
  ]);
  const phase = decide({ phaseFields: [field(["status"]), field(["status", "a", "state"])] }).phase;
  assert.deepEqual(phase?.path, ["status", "a", "state"], "status is not status.phase");
});

test("named like a phase or state means ending so, not containing it", () => {
  const phase = decide({
    phaseFields: [
      field(["status", "stateReason"]),
      field(["status", "outcome"]),
      field(["status", "phases", "x"]),
    ],
  }).phase;
  assert.deepEqual(phase?.path, ["status", "outcome"]);
  assert.match(phase?.why ?? "", /first by name/);
});
