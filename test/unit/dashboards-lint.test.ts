// biome-ignore-all lint/suspicious/noTemplateCurlyInString: Grafana variable syntax in the expected links
// Lint rules for the shipped dashboards (the checks of grafana/dashboard-linter
// that apply, plus layout, id, link and fleet-scale rules), on the generated
// JSON files; and their check against the Grafana foundation SDK's types.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import dashboard from "@grafana/grafana-foundation-sdk/dashboard";
import { DEFAULT_ALERT_OPTIONS, generateRuleGroups, recordNames } from "../../alerts/src/index.ts";
import {
  assertSdkTypes,
  DASHBOARD_DIR,
  type Dashboard,
  DEFAULT_DASHBOARD_OPTIONS,
  dashboards,
  isRow,
  type Panel,
} from "../../dashboards/src/index.ts";
import { objectFamilies } from "../../src/core/series/catalog.ts";
import { REPO_ROOT } from "../monitoring/metrics-contract.ts";
import { parsePromql, withoutGrafanaMacros } from "../monitoring/promql.ts";

/** Every panel and variable must query the data source picked in $datasource. */
const TEMPLATED_DATASOURCE = { type: "prometheus", uid: "${datasource}" };

const shipped: Dashboard[] = dashboards().map(
  (d) => JSON.parse(readFileSync(join(REPO_ROOT, DASHBOARD_DIR, `${d.uid}.json`), "utf8")) as Dashboard,
);

function panelsOf(d: Dashboard): Panel[] {
  return d.panels.filter((p): p is Panel => !isRow(p));
}

const variablesOf = (d: Dashboard) => d.templating.list ?? [];
const targetsOf = (p: Panel) => p.targets ?? [];
/** Every URL of a dashboard: panel links, data links, field override links. */
function urlsOf(d: Dashboard): { where: string; url: string }[] {
  return panelsOf(d).flatMap((p) => {
    const overrideLinks = (p.fieldConfig?.overrides ?? []).flatMap((o) =>
      o.properties.filter((prop) => prop.id === "links").flatMap((prop) => prop.value as { url: string }[]),
    );
    return [...(p.links ?? []), ...(p.fieldConfig?.defaults.links ?? []), ...overrideLinks].map((l) => ({
      where: `${d.uid} "${p.title}"`,
      url: l.url ?? "",
    }));
  });
}

test("three dashboards: overview, object drill-down, exporter", () => {
  assert.deepEqual(
    shipped.map((d) => d.uid),
    ["cr-status-overview", "cr-status-object", "cr-status-exporter"],
  );
});

test("the committed dashboard JSON fits the Grafana foundation SDK's types", () => {
  assertSdkTypes(shipped);
});

test("the SDK type check rejects an unknown option, a value outside an enum and a malformed query (it can fail)", () => {
  const broken = structuredClone(shipped);
  const stat = panelsOf(broken[0] as Dashboard).find((p) => p.type === "stat") as Panel;
  (stat.options as Record<string, unknown>).sparkline = true;
  const table = panelsOf(broken[1] as Dashboard).find((p) => p.type === "table") as Panel;
  (targetsOf(table)[0] as unknown as Record<string, unknown>).format = "tabular";
  (broken[2] as { graphTooltip?: number }).graphTooltip = 7;
  assert.throws(
    () => assertSdkTypes(broken),
    (error: Error) =>
      /cr-status-overview panel \d+ "Objects": .*'"sparkline"' does not exist/.test(error.message) &&
      /cr-status-object panel \d+ "Last transition per condition": .*"tabular"/.test(error.message) &&
      /cr-status-exporter: .*'7' is not assignable/.test(error.message),
  );
});

test("dashboards have the SDK's current schema, a unique stable uid, a title and are not editable", () => {
  const uids = shipped.map((d) => d.uid);
  assert.equal(new Set(uids).size, uids.length);
  const current = dashboard.defaultDashboard().schemaVersion;
  assert.ok(current >= 41, `the SDK's schema version ${current}`);
  for (const d of shipped) {
    assert.equal(d.schemaVersion, current, `${d.uid}: schemaVersion`);
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
      assert.ok(p.gridPos, `${d.uid} "${p.title}": no gridPos`);
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
      assert.ok((p.title ?? "").trim().length > 0, `${d.uid} panel ${p.id}: no title`);
      assert.ok((p.description ?? "").trim().length > 10, `${where}: no description`);
      assert.ok((p.fieldConfig?.defaults.unit ?? "").length > 0, `${where}: no unit`);
      assert.deepEqual(p.datasource, TEMPLATED_DATASOURCE, `${where}: datasource`);
      assert.ok(targetsOf(p).length > 0, `${where}: no query`);
      const refIds = targetsOf(p).map((t) => t.refId);
      assert.equal(new Set(refIds).size, refIds.length, `${where}: duplicate refIds`);
      for (const t of targetsOf(p)) {
        assert.deepEqual(t.datasource, p.datasource, `${where} ${t.refId}: datasource`);
        assert.match(t.refId ?? "", /^[A-Z]$/, `${where}: refId`);
      }
    }
  }
});

test("time series panels show their legend", () => {
  for (const d of shipped)
    for (const p of panelsOf(d))
      if (p.type === "timeseries")
        assert.equal(p.options.legend.showLegend, true, `${d.uid} "${p.title}": legend hidden`);
});

test("range functions use $__rate_interval", () => {
  for (const d of shipped)
    for (const p of panelsOf(d))
      for (const t of targetsOf(p))
        for (const [, range] of t.expr.matchAll(/\[([^\]]*)\]/g))
          assert.equal(range, "$__rate_interval", `${d.uid} "${p.title}" ${t.refId}: [${range}]`);
});

test("every selector of every panel query filters on $job and $cluster", () => {
  for (const d of shipped)
    for (const p of panelsOf(d))
      for (const t of targetsOf(p))
        for (const s of parsePromql(withoutGrafanaMacros(t.expr)).selectors) {
          const has = (label: string) =>
            s.matchers.some((m) => m.label === label && m.op === "=~" && m.value === `$${label}`);
          assert.ok(
            has("job") && has("cluster"),
            `${d.uid} "${p.title}" ${t.refId}: ${s.metric} lacks job/cluster`,
          );
        }
});

test("variables: Prometheus first, then traces where traces are linked, cluster (hidden), job, namespace and kind multi-select with All", () => {
  for (const d of shipped) {
    const vars = variablesOf(d);
    const [first] = vars;
    assert.ok(
      first && first.type === "datasource" && first.name === "datasource" && first.query === "prometheus",
      `${d.uid}: Prometheus data source variable`,
    );
    const names = vars.map((v) => v.name);
    for (const required of ["cluster", "job", "kind"])
      assert.ok(names.includes(required), `${d.uid}: no $${required}`);
    if (d.uid !== "cr-status-exporter") {
      assert.ok(names.includes("namespace"), `${d.uid}: no $namespace`);
      const traces = vars.find((v) => v.name === "traces");
      assert.ok(traces?.type === "datasource" && traces.query === "tempo", `${d.uid}: $traces (Tempo)`);
    }
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

test("the multi-cluster toggle shows the cluster picker and makes links carry each row's cluster", () => {
  const multi = dashboards({ ...DEFAULT_DASHBOARD_OPTIONS, multiCluster: true });
  for (const d of multi) {
    const cluster = variablesOf(d).find((v) => v.name === "cluster");
    assert.equal(cluster?.hide, 0, `${d.uid}: cluster shown`);
  }
  const [overview, object] = multi as [Dashboard, Dashboard];
  assert.ok(urlsOf(overview).some((l) => l.url.includes("var-cluster=${__data.fields.cluster}")));
  assert.ok(urlsOf(object).some((l) => l.url.includes(encodeURIComponent("resource.k8s.cluster.name"))));
  assert.ok(!urlsOf(shipped[1] as Dashboard).some((l) => l.url.includes("k8s.cluster.name")));
});

test("the drill-down link carries the row's object, the data sources, the exporter and the time range", () => {
  const links = urlsOf(shipped[0] as Dashboard).filter((l) => l.url.startsWith("/d/cr-status-object?"));
  assert.equal(links.length, 1);
  const url = links[0]?.url ?? "";
  for (const part of [
    "${__url_time_range}",
    "${datasource:queryparam}",
    "${traces:queryparam}",
    "${job:queryparam}",
    "${cluster:queryparam}",
    "var-namespace=${__data.fields.namespace}",
    "var-kind=${__data.fields.kind}",
    "var-name=${__data.fields.name}",
  ])
    assert.ok(url.includes(part), `drill-down link lacks ${part}: ${url}`);
});

test("every trace link and exemplar link opens Explore on the $traces data source", () => {
  const explore = shipped.flatMap(urlsOf).filter((l) => l.url.startsWith("/explore"));
  assert.ok(explore.length >= 2, "the object's traces and the exemplars' trace");
  for (const { where, url } of explore) {
    const panes = JSON.parse(
      decodeURIComponent(new URL(url, "http://grafana").searchParams.get("panes") ?? ""),
    );
    const pane = panes.traces;
    assert.equal(pane.datasource, "${traces}", `${where}: pane data source`);
    for (const q of pane.queries) assert.deepEqual(q.datasource, { type: "tempo", uid: "${traces}" }, where);
  }
  const object = explore.find((l) => l.where.includes("Conditions over time"));
  assert.match(
    decodeURIComponent(object?.url ?? ""),
    /span\.k8s\.object\.kind =~ \\"\$\{kind:regex\}\\" && span\.k8s\.object\.name = \\"\$\{name\}\\" && \(span\.k8s\.namespace\.name =~/,
  );
  const heatmaps = panelsOf(shipped[0] as Dashboard).filter((p) => p.type === "heatmap");
  for (const p of heatmaps)
    assert.ok(
      targetsOf(p).every((t) => t.exemplar === true),
      `${p.title}: exemplars`,
    );
});

test("with Jaeger the trace variable and the object's trace search follow", () => {
  const jaeger = dashboards({
    ...DEFAULT_DASHBOARD_OPTIONS,
    traces: { ...DEFAULT_DASHBOARD_OPTIONS.traces, datasourceType: "jaeger" },
  });
  assertSdkTypes(jaeger);
  const object = jaeger[1] as Dashboard;
  assert.equal(variablesOf(object).find((v) => v.name === "traces")?.query, "jaeger");
  const link = urlsOf(object).find((l) => l.url.startsWith("/explore"))?.url ?? "";
  const query = JSON.parse(
    decodeURIComponent(new URL(link, "http://grafana").searchParams.get("panes") ?? ""),
  ).traces.queries[0];
  assert.deepEqual(query, {
    refId: "A",
    datasource: { type: "jaeger", uid: "${traces}" },
    queryType: "search",
    service: "cr-status-exporter",
    tags: "k8s.object.kind=${kind} k8s.object.name=${name}",
  });
});

test("every variable used in a query or link is defined on the dashboard", () => {
  const builtIn = new Set([
    "__rate_interval",
    "__interval",
    "__range",
    "__url_time_range",
    "__data",
    "__value",
    "__from",
    "__to",
  ]);
  for (const d of shipped) {
    const defined = new Set(variablesOf(d).map((v) => v.name));
    const text = JSON.stringify([d.panels, variablesOf(d).map((v) => v.definition ?? "")]);
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
        assert.deepEqual(p.options.reduceOptions.calcs, ["lastNotNull"], `${d.uid} "${p.title}"`);
      for (const t of targetsOf(p))
        if (t.instant)
          assert.ok(p.type === "stat" || p.type === "table", `${d.uid} "${p.title}": instant query`);
    }
});

test("each dashboard JSON stays well under the ConfigMap annotation limit", () => {
  for (const d of shipped) assert.ok(JSON.stringify(d).length < 200_000, `${d.uid} is too large`);
});

test("the overview reads per-object series only in panels bounded by topk/bottomk, or in opt-in panels", () => {
  const perObject = [
    ...objectFamilies.filter((f) => f.defaultSet).map((f) => `cr_${f.suffix}`),
    recordNames().readyNotTrueSince,
  ];
  const overview = shipped[0] as Dashboard;
  let bounded = 0;
  for (const p of panelsOf(overview))
    for (const t of targetsOf(p)) {
      const reads = parsePromql(withoutGrafanaMacros(t.expr)).selectors.filter((s) =>
        perObject.includes(s.metric ?? ""),
      );
      if (reads.length === 0) continue;
      assert.match(t.expr, /\b(topk|bottomk)\(\d+, /, `${p.title}`);
      bounded++;
    }
  assert.ok(bounded >= 2, "the not-Ready table and timeline read per-object series (the check can fail)");
});

test("a panel that reads an opt-in family says so in its description and shows a note instead of no data; rules read the default set only", () => {
  const optIn = objectFamilies.filter((f) => !f.defaultSet).map((f) => `cr_${f.suffix}`);
  const uses = (expr: string, name: string) => new RegExp(`\\b${name}\\b`).test(expr);
  let checked = 0;
  for (const d of shipped) {
    for (const p of panelsOf(d)) {
      for (const name of optIn) {
        if (!targetsOf(p).some((t) => uses(t.expr, name))) continue;
        checked++;
        assert.match(p.description ?? "", new RegExp(`opt-in family ${name}\\b`), `${d.uid} / ${p.title}`);
        assert.match(p.fieldConfig?.defaults.noValue ?? "", new RegExp(`opt-in family ${name}\\b`), p.title);
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
