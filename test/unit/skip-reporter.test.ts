// Skipped tests through the reporter npm test runs beside spec: a missing
// tool skips locally with its reason listed at the end, and under CI=true the
// same skip fails the run, naming what is missing.
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { readSkipped, skipVerdict } from "../../scripts/skip-reporter.ts";

const reporter = new URL("../../scripts/skip-reporter.ts", import.meta.url).pathname;

function skippedBy(source: string) {
  const dir = mkdtempSync(join(tmpdir(), "cr-skip-reporter-"));
  const file = join(dir, "fixture.test.ts");
  writeFileSync(file, source);
  const skipsFile = join(dir, "skips.jsonl");
  // Without NODE_TEST_CONTEXT, which would make the inner run report to this one instead of its reporter.
  const { NODE_TEST_CONTEXT: _, ...env } = process.env;
  const run = spawnSync(process.execPath, ["--test", `--test-reporter=${reporter}`, file], {
    env: { ...env, TEST_SKIPS_FILE: skipsFile },
    encoding: "utf8",
  });
  assert.equal(run.status, 0, run.stderr);
  return readSkipped(skipsFile);
}

test("a missing tool skips locally and is an error naming it under CI=true", () => {
  const skipped = skippedBy(
    [
      'import { test } from "node:test";',
      'test("runs", () => {});',
      'test("real CRDs", { skip: "Go is not installed" }, () => {});',
      'test("unexplained", { skip: true }, () => {});',
    ].join("\n"),
  );
  assert.deepEqual(
    skipped.map((s) => [s.name, s.reason]),
    [
      ["real CRDs", "Go is not installed"],
      ["unexplained", "(no reason given)"],
    ],
  );
  const local = skipVerdict(skipped, false);
  assert.equal(local.failed, false);
  assert.match(local.text, /^ℹ 2 skipped:\n {2}- .*fixture\.test\.ts: real CRDs \(Go is not installed\)\n/);
  const ci = skipVerdict(skipped, true);
  assert.equal(ci.failed, true);
  assert.match(ci.text, /real CRDs \(Go is not installed\)/);
  assert.match(ci.text, /✖ CI=true: 2 tests skipped; nothing may skip in CI/);
});

test("nothing skipped: nothing listed and nothing failed, under CI=true too", () => {
  const skipped = skippedBy('import { test } from "node:test";\ntest("runs", () => {});\n');
  assert.deepEqual(skipped, []);
  for (const ci of [false, true]) assert.deepEqual(skipVerdict(skipped, ci), { text: "", failed: false });
});
