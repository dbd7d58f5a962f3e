// Every PromQL expression shipped (rules, panel queries, variable queries)
// parses, type-checks in promtool, and selects only metrics of the contract.
import assert from "node:assert/strict";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { stringify } from "yaml";
import { DEFAULT_ALERT_OPTIONS, generateRuleGroups } from "../../alerts/src/index.ts";
import { dashboards, isRow, panelQueries, substituteVariables } from "../../dashboards/src/index.ts";
import { documentedSeriesNames, PROMETHEUS_SERIES, RUNTIME_SERIES } from "../monitoring/metrics-contract.ts";
import { parsePromql } from "../monitoring/promql.ts";
import { runPromtool } from "../prometheus/binaries.ts";

interface Expression {
  readonly where: string;
  readonly expr: string;
}

const ruleGroups = generateRuleGroups(DEFAULT_ALERT_OPTIONS);
const recorded = new Set(
  ruleGroups.flatMap((g) => g.rules.flatMap((r) => ("record" in r ? [r.record] : []))),
);

function ruleExpressions(): Expression[] {
  return ruleGroups.flatMap((g) =>
    g.rules.map((r) => ({ where: `rule ${"alert" in r ? r.alert : r.record}`, expr: r.expr })),
  );
}

function panelExpressions(): Expression[] {
  return panelQueries().map((q) => ({ where: `${q.dashboard} / ${q.panel} / ${q.refId}`, expr: q.query }));
}

/** The series selector of each `label_values(selector, label)` variable query. */
function variableExpressions(): Expression[] {
  return dashboards().flatMap((d) =>
    (d.templating.list ?? []).flatMap((v) => {
      if (v.type !== "query") return [];
      const match = /^label_values\((.+), \w+\)$/.exec(v.definition ?? "");
      assert.ok(match?.[1], `${d.uid} variable ${v.name}: unexpected query ${v.definition}`);
      return [{ where: `${d.uid} variable ${v.name}`, expr: substituteVariables(match[1]) }];
    }),
  );
}

const all = [...ruleExpressions(), ...panelExpressions(), ...variableExpressions()];

test("there are rule, panel and variable expressions to check", () => {
  assert.ok(ruleExpressions().length >= 18);
  assert.ok(panelExpressions().length >= 40);
  assert.ok(variableExpressions().length >= 10);
  assert.ok(dashboards().flatMap((d) => d.panels.filter((p) => !isRow(p))).length >= 30);
});

test("every expression parses (lezer-promql)", () => {
  const broken = all.filter((e) => parsePromql(e.expr).errors.length > 0).map((e) => `${e.where}: ${e.expr}`);
  assert.deepEqual(broken, []);
});

test("the checker rejects broken PromQL (it can fail)", () => {
  assert.ok(parsePromql("sum(rate(cr_condition[5m])").errors.length > 0);
  assert.ok(parsePromql('cr_condition{job="x"').errors.length > 0);
});

test("every expression type-checks in promtool", () => {
  const dir = mkdtempSync(join(tmpdir(), "promql-"));
  try {
    const file = join(dir, "expressions.yaml");
    const rules = all.map((e, i) => ({ record: `check:expression_${i}`, expr: e.expr }));
    writeFileSync(file, stringify({ groups: [{ name: "expressions", rules }] }, { lineWidth: 0 }));
    const result = runPromtool(["check", "rules", file]);
    assert.equal(result.status, 0, result.output);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test("every metric selected by a rule or panel is in docs/metrics.md", () => {
  const documented = documentedSeriesNames();
  assert.ok(documented.has("cr_condition") && documented.has("cr_reconcile_duration_seconds_bucket"));
  const unknown: string[] = [];
  for (const e of all) {
    for (const s of parsePromql(e.expr).selectors) {
      const name = s.metric;
      assert.ok(name, `${e.where}: a selector without a metric name: ${e.expr}`);
      const known =
        documented.has(name) || recorded.has(name) || PROMETHEUS_SERIES.has(name) || RUNTIME_SERIES.has(name);
      if (!known) unknown.push(`${e.where}: ${name}`);
    }
  }
  assert.deepEqual(unknown, []);
});

test("counters and histogram buckets are only read through rate() or increase()", () => {
  const documented = documentedSeriesNames();
  const misuse: string[] = [];
  for (const e of all) {
    for (const s of parsePromql(e.expr).selectors) {
      const name = s.metric ?? "";
      const cumulative =
        documented.get(name) === "counter" ||
        name.endsWith("_bucket") ||
        (RUNTIME_SERIES.has(name) && name.endsWith("_total"));
      if (cumulative && !(s.inRange && ["rate", "increase", "irate"].includes(s.rangeFunction ?? "")))
        misuse.push(`${e.where}: ${name}`);
    }
  }
  assert.deepEqual(misuse, []);
});
