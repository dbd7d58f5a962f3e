// Lint rules for the shipped dashboards (the checks of grafana/dashboard-linter
// that apply, plus layout and id rules), on the generated JSON files.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { DEFAULT_ALERT_OPTIONS, generateRuleGroups } from "../../alerts/src/index.ts";
import { DASHBOARD_DIR, type Dashboard, dashboards, isRow, type Panel } from "../../dashboards/src/index.ts";
import { objectFamilies } from "../../src/core/catalog.ts";

/** Every panel and variable must query the data source picked in $datasource. */
// biome-ignore lint/suspicious/noTemplateCurlyInString: Grafana variable syntax
const TEMPLATED_DATASOURCE = { type: "prometheus", uid: "${datasource}" };

import { REPO_ROOT } from "../monitoring/metrics-contract.ts";
import { parsePromql, withoutGrafanaMacros } from "../monitoring/promql.ts";

const shipped: Dashboard[] = dashboards().map(
  (d) => JSON.parse(readFileSync(join(REPO_ROOT, DASHBOARD_DIR, `${d.uid}.json`), "utf8")) as Dashboard,
);

function panelsOf(d: Dashboard): Panel[] {
  return d.panels.filter((p): p is Panel => !isRow(p));
}

test("three dashboards: overview, object drill-down, exporter", () => {
  assert.deepEqual(
    shipped.map((d) => d.uid),
    ["cr-status-overview", "cr-status-object", "cr-status-exporter"],
  );
});

test("dashboards have a Grafana 11/12 schema, a unique stable uid, a title and are not editable", () => {
  const uids = shipped.map((d) => d.uid);
  assert.equal(new Set(uids).size, uids.length);
  for (const d of shipped) {
    assert.ok(d.schemaVersion >= 39 && d.schemaVersion <= 41, `${d.uid}: schemaVersion ${d.schemaVersion}`);
    assert.match(d.uid, /^[a-z0-9-]{1,40}$/);
    assert.ok(d.title.length > 0);
    assert.equal(d.editable, false, `${d.uid}: provisioned dashboards are code`);
    assert.doesNotMatch(
      JSON.stringify(d),
      /DS_PROMETHEUS|__inputs/,
      `${d.uid}: import placeholders break provisioning`,
    );
  }
});

test("panel ids are unique and every panel fits the 24-column grid without overlapping", () => {
  for (const d of shipped) {
    const ids = d.panels.map((p) => p.id);
    assert.equal(new Set(ids).size, ids.length, `${d.uid}: duplicate panel ids`);
    const cells = new Set<string>();
    for (const p of d.panels) {
      const { x, y, w, h } = p.gridPos;
      assert.ok(
        x >= 0 && w >= 1 && h >= 1 && x + w <= 24,
        `${d.uid} "${p.title}": gridPos ${JSON.stringify(p.gridPos)}`,
      );
      for (let cx = x; cx < x + w; cx++)
        for (let cy = y; cy < y + h; cy++) {
          const key = `${cx},${cy}`;
          assert.ok(!cells.has(key), `${d.uid} "${p.title}" overlaps another panel at ${key}`);
          cells.add(key);
        }
    }
  }
});

test("every panel has a title, a description, a unit and the data source variable", () => {
  for (const d of shipped) {
    for (const p of panelsOf(d)) {
      const where = `${d.uid} "${p.title}"`;
      assert.ok(p.title.trim().length > 0, `${d.uid} panel ${p.id}: no title`);
      assert.ok(p.description.trim().length > 10, `${where}: no description`);
      assert.ok(p.fieldConfig.defaults.unit.length > 0, `${where}: no unit`);
      assert.deepEqual(p.datasource, TEMPLATED_DATASOURCE, `${where}: datasource`);
      assert.ok(p.targets.length > 0, `${where}: no query`);
      const refIds = p.targets.map((t) => t.refId);
      assert.equal(new Set(refIds).size, refIds.length, `${where}: duplicate refIds`);
      for (const t of p.targets)
        assert.deepEqual(t.datasource, p.datasource, `${where} ${t.refId}: datasource`);
    }
  }
});

test("range functions use $__rate_interval", () => {
  for (const d of shipped)
    for (const p of panelsOf(d))
      for (const t of p.targets)
        for (const [, range] of t.expr.matchAll(/\[([^\]]*)\]/g))
          assert.equal(range, "$__rate_interval", `${d.uid} "${p.title}" ${t.refId}: [${range}]`);
});

test("every selector of every panel query filters on $job and $cluster", () => {
  for (const d of shipped)
    for (const p of panelsOf(d))
      for (const t of p.targets)
        for (const s of parsePromql(withoutGrafanaMacros(t.expr)).selectors) {
          const has = (label: string) =>
            s.matchers.some((m) => m.label === label && m.op === "=~" && m.value === `$${label}`);
          assert.ok(
            has("job") && has("cluster"),
            `${d.uid} "${p.title}" ${t.refId}: ${s.metric} lacks job/cluster`,
          );
        }
});

test("variables: datasource first, then cluster (hidden), job, namespace and kind multi-select with All", () => {
  for (const d of shipped) {
    const vars = d.templating.list;
    const [first] = vars;
    assert.ok(
      first && first.type === "datasource" && first.name === "datasource",
      `${d.uid}: datasource variable`,
    );
    const names = vars.map((v) => v.name);
    for (const required of ["cluster", "job", "kind"])
      assert.ok(names.includes(required), `${d.uid}: no $${required}`);
    if (d.uid !== "cr-status-exporter") assert.ok(names.includes("namespace"), `${d.uid}: no $namespace`);
    for (const v of vars) {
      if (v.type !== "query") continue;
      assert.equal(v.refresh, 2, `${d.uid} $${v.name}: refresh on time range change`);
      assert.deepEqual(v.datasource, TEMPLATED_DATASOURCE);
      if (["cluster", "job", "namespace", "kind"].includes(v.name)) {
        assert.ok(v.multi && v.includeAll, `${d.uid} $${v.name}: multi-select with All`);
        assert.equal(
          v.allValue,
          v.name === "cluster" || v.name === "namespace" ? ".*" : ".+",
          `${d.uid} $${v.name}`,
        );
      }
      if (v.name === "cluster") assert.equal(v.hide, 2, `${d.uid}: cluster hidden by default`);
    }
  }
});

test("every variable used in a query or link is defined on the dashboard", () => {
  const builtIn = new Set([
    "__rate_interval",
    "__interval",
    "__range",
    "__url_time_range",
    "__data",
    "__from",
    "__to",
  ]);
  for (const d of shipped) {
    const defined = new Set(d.templating.list.map((v) => v.name));
    const text = JSON.stringify([
      d.panels,
      d.templating.list.map((v) => ("definition" in v ? v.definition : "")),
    ]);
    for (const [, braced, bare] of text.matchAll(/\$\{(\w+)[^}]*\}|\$(\w+)/g)) {
      const name = braced ?? bare ?? "";
      assert.ok(defined.has(name) || builtIn.has(name), `${d.uid}: $${name} is not defined`);
    }
  }
});

test("stat panels reduce to the last value and instant queries are tables or stats", () => {
  for (const d of shipped)
    for (const p of panelsOf(d)) {
      if (p.type === "stat")
        assert.deepEqual(
          (p.options.reduceOptions as { calcs: string[] }).calcs,
          ["lastNotNull"],
          `${d.uid} "${p.title}"`,
        );
      for (const t of p.targets)
        if (t.instant)
          assert.ok(p.type === "stat" || p.type === "table", `${d.uid} "${p.title}": instant query`);
    }
});

test("each dashboard JSON stays well under the ConfigMap annotation limit", () => {
  for (const d of shipped) assert.ok(JSON.stringify(d).length < 200_000, `${d.uid} is too large`);
});

test("a panel that reads an opt-in family says so in its description; rules read the default set only", () => {
  const optIn = objectFamilies.filter((f) => !f.defaultSet).map((f) => `cr_${f.suffix}`);
  const uses = (expr: string, name: string) => new RegExp(`\\b${name}\\b`).test(expr);
  let checked = 0;
  for (const d of shipped) {
    for (const p of panelsOf(d)) {
      for (const name of optIn) {
        if (!p.targets.some((t) => uses(t.expr, name))) continue;
        checked++;
        assert.match(p.description, new RegExp(`opt-in family ${name}\\b`), `${d.uid} / ${p.title}`);
      }
    }
  }
  assert.ok(checked > 0, "some panel reads an opt-in family (the check can fail)");
  for (const group of generateRuleGroups(DEFAULT_ALERT_OPTIONS)) {
    for (const rule of group.rules) {
      for (const name of optIn)
        assert.ok(!uses(rule.expr, name), `${"alert" in rule ? rule.alert : rule.record} reads ${name}`);
    }
  }
});
