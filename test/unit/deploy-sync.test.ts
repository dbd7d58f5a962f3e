// `npm run deploy:sync` keeps byte-exact copies of the alert rules and the
// dashboards in the Helm chart and the kustomize monitoring directory; the
// check reports stale, missing and left-over copies.
import assert from "node:assert/strict";
import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, test } from "node:test";
import {
  chartFiles,
  checkCopies,
  dashboardConfigMapName,
  kustomizeMonitoring,
  repositoryRoot,
  sourcePaths,
  writeCopies,
} from "../../scripts/deploy-sync.ts";

const fixtures = join(repositoryRoot, "test", "fixtures", "deploy", "monitoring-sources");
const scratch = mkdtempSync(join(tmpdir(), "cr-deploy-sync-"));
after(() => rmSync(scratch, { recursive: true, force: true }));

function freshSources(name: string): string {
  const directory = join(scratch, name, "sources");
  cpSync(fixtures, directory, { recursive: true });
  return directory;
}

test("writeCopies then checkCopies: up to date, byte for byte", () => {
  const sources = freshSources("fresh");
  const target = join(scratch, "fresh", "target");
  const written = writeCopies(sources, target);
  assert.ok(written.includes(`${chartFiles}/cr-status-exporter.rules.template.yaml`));
  assert.ok(written.includes(`${kustomizeMonitoring}/prometheusrule.yaml`));
  assert.ok(written.includes(`${chartFiles}/dashboards/cr-status-fixture.json`));
  assert.deepEqual(checkCopies(sources, target), []);
  assert.equal(
    readFileSync(join(target, chartFiles, "cr-status-exporter.rules.template.yaml"), "utf8"),
    readFileSync(join(sources, sourcePaths.ruleTemplate), "utf8"),
  );
  const kustomization = readFileSync(join(target, kustomizeMonitoring, "kustomization.yaml"), "utf8");
  assert.match(
    kustomization,
    /name: cr-status-exporter-dashboard-fixture\n\s+files:\n\s+- dashboards\/cr-status-fixture\.json/,
  );
});

test("a changed rule, a new dashboard and a removed dashboard are each reported", () => {
  const sources = freshSources("stale");
  const target = join(scratch, "stale", "target");
  writeCopies(sources, target);
  writeFileSync(join(sources, sourcePaths.ruleTemplate), "groups: []\n");
  writeFileSync(join(sources, sourcePaths.dashboards, "cr-status-new.json"), "{}\n");
  assert.deepEqual(checkCopies(sources, target).sort(), [
    `${chartFiles}/cr-status-exporter.rules.template.yaml: stale`,
    `${chartFiles}/dashboards/cr-status-new.json: missing`,
    `${kustomizeMonitoring}/dashboards/cr-status-new.json: missing`,
    `${kustomizeMonitoring}/kustomization.yaml: stale`,
  ]);
  writeCopies(sources, target);
  assert.deepEqual(checkCopies(sources, target), []);
  rmSync(join(sources, sourcePaths.dashboards, "cr-status-fixture.json"));
  assert.deepEqual(checkCopies(sources, target).sort(), [
    `${chartFiles}/dashboards/cr-status-fixture.json: left over (its source is gone)`,
    `${kustomizeMonitoring}/dashboards/cr-status-fixture.json: left over (its source is gone)`,
    `${kustomizeMonitoring}/kustomization.yaml: stale`,
  ]);
  writeCopies(sources, target);
  assert.equal(existsSync(join(target, chartFiles, "dashboards", "cr-status-fixture.json")), false);
  assert.deepEqual(checkCopies(sources, target), []);
});

test("missing sources and broken dashboards are named", () => {
  const sources = freshSources("broken");
  writeFileSync(join(sources, sourcePaths.dashboards, "cr-status-fixture.json"), "{ not json");
  assert.throws(() => writeCopies(sources, join(scratch, "broken", "target")), /JSON/);
  rmSync(join(sources, sourcePaths.ruleTemplate));
  assert.throws(
    () => checkCopies(sources, join(scratch, "broken", "target")),
    /alerts\/cr-status-exporter\.rules\.template\.yaml does not exist: generate the alerts and dashboards first/,
  );
});

test("dashboard ConfigMap names", () => {
  assert.equal(dashboardConfigMapName("cr-status-overview.json"), "cr-status-exporter-dashboard-overview");
  assert.equal(dashboardConfigMapName("custom.json"), "cr-status-exporter-dashboard-custom");
});

const generated = [sourcePaths.prometheusRule, sourcePaths.ruleTemplate, sourcePaths.dashboards].every((p) =>
  existsSync(join(repositoryRoot, p)),
);

test("the copies committed under deploy/ match alerts/ and dashboards/grafana/ (npm run deploy:sync)", {
  skip: generated ? false : "alerts/ and dashboards/grafana/ are not in this checkout",
}, () => {
  assert.deepEqual(checkCopies(repositoryRoot, repositoryRoot), [], "run `npm run deploy:sync` and commit");
});
