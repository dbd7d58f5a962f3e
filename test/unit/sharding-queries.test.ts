// The PromQL that docs/metrics.md gives for shards and replicas is the PromQL
// that promtool evaluates in alerts/tests/sharding-queries.test.yaml (run with
// the other promtool tests by alerts-rules.test.ts).
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { parse } from "yaml";
import { REPO_ROOT } from "../monitoring/metrics-contract.ts";

test("every query of the sharding promtool test is quoted verbatim in docs/metrics.md, and the section quotes no other", () => {
  const tests = parse(
    readFileSync(join(REPO_ROOT, "alerts", "tests", "sharding-queries.test.yaml"), "utf8"),
  ) as {
    tests: { promql_expr_test: { expr: string }[] }[];
  };
  const tested = tests.tests.flatMap((t) => t.promql_expr_test.map((e) => e.expr));
  const doc = readFileSync(join(REPO_ROOT, "docs", "metrics.md"), "utf8");
  const section = doc.slice(doc.indexOf("## Sharding and replicas"), doc.indexOf("## Per-object families"));
  // Queries are the code spans that start with an aggregation.
  const quoted = [...section.matchAll(/`([^`\n]+)`/g)]
    .map((m) => m[1] as string)
    .filter((span) => /^(sum|count|max|min) by /.test(span));
  assert.ok(tested.length >= 4);
  assert.deepEqual(new Set(quoted), new Set(tested));
});
