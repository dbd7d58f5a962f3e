import assert from "node:assert/strict";
import { test } from "node:test";
import { type PhaseMapping, phaseResult, phaseResultTable } from "../../src/core/judge/phase-result.ts";

const run: PhaseMapping = { runToCompletion: true, overrides: {} };
const longRunning: PhaseMapping = { runToCompletion: false, overrides: {} };

// [phase, mapping, result, source]
const cases: [string | undefined, PhaseMapping, string, string][] = [
  ["Failed", longRunning, "Failed", "default"],
  ["Error", run, "Failed", "default"],
  ["PartiallyFailed", run, "Failed", "default"],
  // Projects spell phases in any case (CloudNativePG backups: "failed", "completed").
  ["failed", run, "Failed", "default"],
  ["completed", run, "Current", "default"],
  ["Pending", run, "InProgress", "default"],
  ["InProgress", run, "InProgress", "default"],
  ["Running", run, "InProgress", "default"],
  ["running", run, "InProgress", "default"],
  // A long-running kind's Running may be its healthy steady state: not guessed.
  ["Running", longRunning, "Unknown", "unmapped"],
  ["Pending", longRunning, "Unknown", "unmapped"],
  ["Completed", longRunning, "Current", "default"],
  ["Succeeded", run, "Current", "default"],
  ["Available", longRunning, "Current", "default"],
  ["Ready", longRunning, "Current", "default"],
  // Unknown phases stay Unknown, never Current.
  ["Cluster in healthy state", longRunning, "Unknown", "unmapped"],
  ["WaitingForPluginOperations", run, "Unknown", "unmapped"],
  ["Deleting", run, "Unknown", "unmapped"],
  [undefined, run, "Unknown", "absent"],
  ["", run, "Unknown", "absent"],
  // The per-resource table wins over the default, and is matched exactly.
  [
    "Cluster in healthy state",
    { runToCompletion: false, overrides: { "Cluster in healthy state": "Current" } },
    "Current",
    "override",
  ],
  ["Failed", { runToCompletion: false, overrides: { Failed: "InProgress" } }, "InProgress", "override"],
  ["Running", { runToCompletion: false, overrides: { Running: "Current" } }, "Current", "override"],
  ["running", { runToCompletion: false, overrides: { Running: "Current" } }, "Unknown", "unmapped"],
  // Object.prototype names are not table entries.
  ["constructor", { runToCompletion: false, overrides: {} }, "Unknown", "unmapped"],
  ["toString", run, "Unknown", "unmapped"],
];

for (const [phase, mapping, result, source] of cases) {
  const kind = mapping.runToCompletion ? "run" : "long-running";
  const table = Object.keys(mapping.overrides).length > 0 ? ` with ${JSON.stringify(mapping.overrides)}` : "";
  test(`phase ${JSON.stringify(phase)} of a ${kind} kind${table} → ${result} (${source})`, () => {
    assert.deepEqual(phaseResult(phase, mapping), { result, source });
  });
}

test("phaseResultTable lists the result of every known value, in order", () => {
  assert.deepEqual(
    phaseResultTable(["New", "InProgress", "Completed", "PartiallyFailed", "Failed"], run).map(
      ([phase, verdict]) => `${phase}=${verdict.result}`,
    ),
    ["New=Unknown", "InProgress=InProgress", "Completed=Current", "PartiallyFailed=Failed", "Failed=Failed"],
  );
});
