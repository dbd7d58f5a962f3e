import assert from "node:assert/strict";
import { test } from "node:test";
import { isReconciled, summarizeStatus } from "../../src/core/kstatus.ts";
import { defaultProjectionSettings, projectObject } from "../../src/core/project.ts";
import { cond, t, type WidgetInit, widget } from "../support/objects.ts";

const settings = { readyCondition: "Ready", failedAfterSeconds: 300 };
const p = (init: WidgetInit) => projectObject(widget(init), defaultProjectionSettings);
const at = "2026-01-01T00:10:00Z";

const cases: [string, WidgetInit, number, string, number | undefined][] = [
  ["no status at all", {}, t(at), "Unknown", undefined],
  [
    "Ready=True, caught up",
    { status: { observedGeneration: 1, conditions: [cond("Ready", "True")] } },
    t(at),
    "Current",
    undefined,
  ],
  [
    "generation not observed",
    { generation: 2, status: { observedGeneration: 1, conditions: [cond("Ready", "True")] } },
    t(at),
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
    t(at),
    "InProgress",
    undefined,
  ],
  [
    "Stalled=True",
    { status: { conditions: [cond("Stalled", "True"), cond("Ready", "False")] } },
    t(at),
    "Failed",
    undefined,
  ],
  [
    "Reconciling=True",
    { status: { conditions: [cond("Reconciling", "True"), cond("Ready", "True")] } },
    t(at),
    "InProgress",
    undefined,
  ],
  [
    "Ready=False, recently",
    { status: { conditions: [cond("Ready", "False", "2026-01-01T00:08:00Z")] } },
    t(at),
    "InProgress",
    t("2026-01-01T00:13:00Z"),
  ],
  [
    "Ready=False for longer than failedAfter",
    { status: { conditions: [cond("Ready", "False", "2026-01-01T00:01:00Z")] } },
    t(at),
    "Failed",
    undefined,
  ],
  ["Ready=Unknown", { status: { conditions: [cond("Ready", "Unknown")] } }, t(at), "InProgress", undefined],
  [
    "no Ready condition but observed",
    { status: { observedGeneration: 1, phase: "Running" } },
    t(at),
    "Current",
    undefined,
  ],
  [
    "terminating wins",
    { deletionTimestamp: at, status: { conditions: [cond("Ready", "True")] } },
    t(at),
    "Terminating",
    undefined,
  ],
];

for (const [name, init, now, result, changesAt] of cases) {
  test(`summarizeStatus: ${name} → ${result}`, () => {
    assert.deepEqual(summarizeStatus(p(init), settings, now), { result, changesAt });
  });
}

test("isReconciled needs the generation observed and Ready=True", () => {
  assert.equal(
    isReconciled(
      p({ generation: 2, status: { observedGeneration: 2, conditions: [cond("Ready", "True")] } }),
      "Ready",
    ),
    true,
  );
  assert.equal(
    isReconciled(
      p({ generation: 2, status: { observedGeneration: 1, conditions: [cond("Ready", "True")] } }),
      "Ready",
    ),
    false,
  );
  assert.equal(
    isReconciled(
      p({ generation: 2, status: { observedGeneration: 2, conditions: [cond("Ready", "False")] } }),
      "Ready",
    ),
    false,
  );
  assert.equal(isReconciled(p({ generation: 2, status: { observedGeneration: 2 } }), "Ready"), true);
});
