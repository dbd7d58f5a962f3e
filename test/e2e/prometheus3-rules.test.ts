// The shipped rules through Prometheus 3's promtool (kube-prometheus-stack
// ships 3.x, whose range selectors are left-open and whose linter is
// stricter): `check rules --lint=all --lint-fatal` on the rule files, and
// every promtool unit test in alerts/tests, as test/unit/alerts-rules.test.ts
// runs them on Debian's 2.x.
import assert from "node:assert/strict";
import { existsSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { ALL_ALERTS_RULE_FILE, RULE_FILE } from "../../alerts/src/index.ts";
import { repositoryRoot } from "../../scripts/deploy-sync.ts";
import { promtoolPath, runPromtool } from "../prometheus/binaries.ts";

const testFiles = readdirSync(join(repositoryRoot, "alerts", "tests"))
  .filter((f) => f.endsWith(".test.yaml"))
  .map((f) => join(repositoryRoot, "alerts", "tests", f));

test("promtool 3 check rules --lint=all --lint-fatal accepts the rule files", () => {
  // Built from the module version v0.3NN.x, which is Prometheus 3.NN.x (the build stamps no version string).
  assert.match(promtoolPath("3"), /prometheus-v0\.3\d\d\.\d+\/promtool$/);
  for (const file of [RULE_FILE, ALL_ALERTS_RULE_FILE]) {
    const result = runPromtool(
      ["check", "rules", "--lint=all", "--lint-fatal", join(repositoryRoot, file)],
      undefined,
      "3",
    );
    assert.equal(result.status, 0, `${file}: ${result.output}`);
  }
});

test("promtool 3 test rules passes every alert unit test (left-open range selectors included)", () => {
  assert.ok(testFiles.length >= 5, "the promtool tests of alerts/tests");
  const result = runPromtool(["test", "rules", ...testFiles], undefined, "3");
  assert.equal(result.status, 0, result.output);
  assert.doesNotMatch(result.output, /FAILED/);
});

test("promtool 3 passes the examples' own rules and their unit tests", () => {
  const examples = join(repositoryRoot, "examples");
  const dirs = readdirSync(examples).filter((e) => existsSync(join(examples, e, "rules.test.yaml")));
  assert.ok(dirs.length >= 3, dirs.join(", "));
  for (const dir of dirs) {
    const cwd = join(examples, dir);
    const checked = runPromtool(["check", "rules", "--lint=all", "--lint-fatal", "rules.yaml"], cwd, "3");
    assert.equal(checked.status, 0, `${dir}: ${checked.output}`);
    const tested = runPromtool(["test", "rules", "rules.test.yaml"], cwd, "3");
    assert.equal(tested.status, 0, `${dir}: ${tested.output}`);
  }
});
