// examples/: each project's configuration loads and passes the checks; its
// ClusterRole grants list and watch on exactly the kinds the configuration
// selects from the project's CRDs (all of them, of the pinned module
// versions) plus the CRDs, and nothing else; its alert values name shipped
// alerts and their tunable keys; Argo CD's extra rules pass promtool.
import assert from "node:assert/strict";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { parse } from "yaml";
import { DEFAULT_ALERT_OPTIONS, generateRuleGroups, isAlertingRule } from "../../alerts/src/index.ts";
import { planFromCrds } from "../../src/collectors/selection.ts";
import { loadConfigFile } from "../../src/config/load.ts";
import { summarizeCrd } from "../../src/core/detect/crd.ts";
import { REPO_ROOT } from "../monitoring/metrics-contract.ts";
import { runPromtool } from "../prometheus/binaries.ts";
import { projectCrds, realCrdsUnavailable } from "../realcrds/index.ts";

const examples = join(REPO_ROOT, "examples");
/** Example directory → the project of test/realcrds/catalog.ts whose CRDs it is written for. */
export const exampleProjects: Record<string, string> = {
  "cert-manager": "cert-manager",
  flux: "flux",
  "argo-cd": "argo-cd",
  crossplane: "crossplane",
  "cluster-api": "cluster-api",
  "cloudnative-pg": "cloudnative-pg",
};
const unavailable = realCrdsUnavailable();

interface PolicyRule {
  apiGroups: string[];
  resources: string[];
  verbs: string[];
}

test("one example per project, each with its four files", () => {
  const directories = readdirSync(examples, { withFileTypes: true })
    .filter((e) => e.isDirectory())
    .map((e) => e.name)
    .sort();
  assert.deepEqual(directories, Object.keys(exampleProjects).sort());
  for (const name of directories) {
    for (const file of ["config.yaml", "rbac.yaml", "alerts.values.yaml", "README.md"])
      assert.ok(existsSync(join(examples, name, file)), `examples/${name}/${file}`);
    const readme = readFileSync(join(examples, name, "README.md"), "utf8");
    for (const file of ["config.yaml", "rbac.yaml", "alerts.values.yaml"])
      assert.match(readme, new RegExp(`\\(${file.replace(".", "\\.")}\\)`), `${name}'s README links ${file}`);
  }
});

for (const [name, project] of Object.entries(exampleProjects)) {
  const dir = join(examples, name);

  test(`${name}: the configuration loads and passes the checks`, () => {
    const { config } = loadConfigFile(join(dir, "config.yaml"));
    assert.ok(config.resources.length > 0);
    assert.equal(config.crdDiscovery, true);
  });

  test(`${name}: the ClusterRole grants list and watch on exactly the kinds the configuration selects`, {
    skip: unavailable,
  }, () => {
    const { config } = loadConfigFile(join(dir, "config.yaml"));
    const crds = projectCrds(project).map((crd) => {
      const summary = summarizeCrd({
        ...crd,
        status: { conditions: [{ type: "Established", status: "True" }] },
      });
      assert.ok(summary, crd.metadata.name);
      return summary;
    });
    const selected = planFromCrds(config.resources, crds).map(
      (p) => `${p.identity.group}/${p.identity.resource}`,
    );
    const role = parse(readFileSync(join(dir, "rbac.yaml"), "utf8")) as { kind: string; rules: PolicyRule[] };
    assert.equal(role.kind, "ClusterRole");
    const granted: string[] = [];
    for (const rule of role.rules) {
      assert.deepEqual(rule.verbs, ["list", "watch"], "read-only: list and watch, nothing else");
      for (const group of rule.apiGroups)
        for (const resource of rule.resources) granted.push(`${group}/${resource}`);
    }
    assert.ok(granted.includes("apiextensions.k8s.io/customresourcedefinitions"), "the CRDs, for discovery");
    assert.ok(granted.includes("events.k8s.io/events"), "Warning events (warningEvents, on by default)");
    const extra = ["apiextensions.k8s.io/customresourcedefinitions", "events.k8s.io/events"];
    assert.deepEqual(
      granted.filter((g) => !extra.includes(g)).sort(),
      selected.sort(),
      `${name}: granted vs selected among ${crds.length} CRDs`,
    );
    assert.equal(new Set(granted).size, granted.length, "nothing granted twice");
  });

  test(`${name}: the alert values tune shipped alerts with the chart's keys`, () => {
    const values = parse(readFileSync(join(dir, "alerts.values.yaml"), "utf8")) as {
      prometheusRule: { alerts: Record<string, Record<string, unknown>> };
    };
    assert.deepEqual(Object.keys(values), ["prometheusRule"]);
    const shipped = new Set(
      generateRuleGroups(DEFAULT_ALERT_OPTIONS)
        .flatMap((g) => g.rules)
        .filter(isAlertingRule)
        .map((r) => r.alert),
    );
    for (const [alert, tuning] of Object.entries(values.prometheusRule.alerts)) {
      assert.ok(shipped.has(alert), `${alert} is not a shipped alert`);
      for (const key of Object.keys(tuning))
        assert.ok(["enabled", "for", "severity", "labels"].includes(key), `${alert}.${key}`);
      if (tuning.for !== undefined) assert.match(String(tuning.for), /^\d+[smh]$/);
    }
  });
}

const withRules = ["argo-cd", "cert-manager", "cloudnative-pg", "cluster-api"];

test("the examples' own rules pass promtool's checks and unit tests", () => {
  for (const example of readdirSync(examples).filter((e) => existsSync(join(examples, e, "rules.yaml")))) {
    assert.ok(withRules.includes(example), `${example}: rules.yaml is checked here`);
  }
  for (const example of withRules) {
    const dir = join(examples, example);
    const checked = runPromtool(["check", "rules", "--lint=all", "--lint-fatal", "rules.yaml"], dir);
    assert.equal(checked.status, 0, `${example}: ${checked.output}`);
    const tested = runPromtool(["test", "rules", "rules.test.yaml"], dir);
    assert.equal(tested.status, 0, `${example}: ${tested.output}`);
  }
});
