// The committed mutation summary (test/mutation/summarize.ts): a run scoped to
// some files replaces their rows and keeps the others', and each file keeps the
// score of its first measurement as the "before" of the tests written since.
import assert from "node:assert/strict";
import { test } from "node:test";
import { type MutationReport, mergeSummary, renderSummary } from "../mutation/summarize.ts";

const source = "export const a = 1 + 2;\n";
const mutant = (id: string, status: string) => ({
  id,
  mutatorName: "ArithmeticOperator",
  replacement: "1 - 2",
  location: { start: { line: 1, column: 18 }, end: { line: 1, column: 23 } },
  status,
});
const report = (file: string, statuses: string[]): MutationReport => ({
  files: { [file]: { source, mutants: statuses.map((s, i) => mutant(String(i), s)) } },
});

test("a file's first score is kept through later runs; other files' rows stay", () => {
  const first = mergeSummary({}, report("src/a.ts", ["Killed", "Survived"]), "/r");
  assert.equal(first["src/a.ts"]?.score, 50);
  assert.equal(first["src/a.ts"]?.firstScore, 50);
  const withB = mergeSummary(first, report("src/b.ts", ["Killed"]), "/r");
  const second = mergeSummary(withB, report("src/a.ts", ["Killed", "Killed"]), "/r");
  assert.deepEqual([second["src/a.ts"]?.firstScore, second["src/a.ts"]?.score], [50, 100]);
  assert.equal(second["src/b.ts"]?.score, 100, "b's row kept");
  assert.match(renderSummary(second), /\| src\/a\.ts \| 50\.0 % \| 100\.0 % \|/);
});

test("a row written before first scores were kept takes its score then as the first", () => {
  const old = mergeSummary({}, report("src/a.ts", ["Killed", "Survived"]), "/r");
  delete old["src/a.ts"]?.firstScore;
  const next = mergeSummary(old, report("src/a.ts", ["Killed", "Killed"]), "/r");
  assert.equal(next["src/a.ts"]?.firstScore, 50);
});
