// `cr-status-exporter status` and `explain` as a user runs them (the package
// binary, as a child process) against a real kube-apiserver, straight from the
// cluster with a kubeconfig: the table, the filters, the exit codes, a
// resource the user may not list, and explain's series estimate against what
// a running exporter really exports.
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { delimiter, dirname, join } from "node:path";
import { before, test } from "node:test";
import { repositoryRoot } from "../../scripts/deploy-sync.ts";
import {
  changeSpec,
  condition,
  createCr,
  installCrd,
  patchStatus,
  refFor,
  useControlPlane,
} from "../cluster/index.ts";
import { resolveKubectl } from "../kubectl/index.ts";
import { runCli, table } from "../support/cli.ts";
import { eventually, runExporter } from "../support/exporter.ts";

const testbed = useControlPlane();
const configDir = mkdtempSync(join(tmpdir(), "cr-status-cli-"));
const configPath = join(configDir, "config.yaml");
let ns: string;

before(async () => {
  const plane = await testbed.ready();
  const rest = plane.admin.rest;
  await installCrd(rest, "widgets");
  await installCrd(rest, "gadgets");
  ns = await plane.createNamespace("cli");
  writeFileSync(configPath, `resources:\n  - groups: ["example.com"]\n`);

  const fine = refFor("widgets", ns, "fine-widget");
  await createCr(rest, fine, "fine-widget", { size: 1 }, { labels: { tier: "gold" } });
  await patchStatus(rest, fine, {
    observedGeneration: 1,
    conditions: [condition("Ready", "True", "Reconciled", "", 1)],
  });

  const stuck = refFor("widgets", ns, "stuck-widget");
  await createCr(rest, stuck, "stuck-widget", { size: 1 });
  await patchStatus(rest, stuck, {
    observedGeneration: 1,
    phase: "Pending",
    conditions: [
      condition(
        "Ready",
        "False",
        "ImagePullBackOff",
        'Back-off pulling image "shop/widget:v2"',
        1,
        new Date(Date.now() - 3_600_000),
      ),
    ],
  });

  const slow = refFor("widgets", ns, "slow-widget");
  await createCr(rest, slow, "slow-widget", { size: 1 });
  await patchStatus(rest, slow, {
    observedGeneration: 1,
    conditions: [condition("Ready", "True", "Reconciled", "", 1)],
  });
  await changeSpec(rest, slow, { size: 2 });

  await createCr(rest, refFor("gadgets", undefined, `${ns}-gadget`), `${ns}-gadget`, { size: 1 });
});

test("status lists the cluster's objects, not Ready first, with reason, since and lag", async () => {
  const run = await runCli([
    "status",
    "--kubeconfig",
    testbed.plane.kubeconfigPath,
    "--config",
    configPath,
    "-n",
    ns,
  ]);
  assert.equal(run.code, 0, run.stderr);
  const rows = table(run.stdout);
  assert.deepEqual([...rows.keys()], ["stuck-widget", "slow-widget", "fine-widget"], run.stdout);
  assert.deepEqual(
    { ...rows.get("stuck-widget"), AGE: undefined },
    {
      KIND: "Widget",
      NAMESPACE: ns,
      NAME: "stuck-widget",
      READY: "False",
      REASON: "ImagePullBackOff",
      SINCE: "60m",
      LAG: "-",
      AGE: undefined,
    },
  );
  assert.match(
    rows.get("slow-widget")?.LAG ?? "",
    /^1 \(\d+s\)$/,
    "generation 2 waits for observedGeneration 1",
  );
  assert.equal(rows.get("fine-widget")?.READY, "True");
});

test("filters: --not-ready, -l, --kind; the cluster-scoped gadget only without -n", async () => {
  const base = ["status", "--kubeconfig", testbed.plane.kubeconfigPath, "--config", configPath];
  const notReady = table((await runCli([...base, "-n", ns, "--not-ready"])).stdout);
  assert.deepEqual([...notReady.keys()], ["stuck-widget", "slow-widget"]);
  const gold = table((await runCli([...base, "-n", ns, "-l", "tier=gold"])).stdout);
  assert.deepEqual([...gold.keys()], ["fine-widget"]);
  const named = table((await runCli([...base, "-n", ns, "--name", "slow"])).stdout);
  assert.deepEqual([...named.keys()], ["slow-widget"]);
  const gadgets = await runCli([...base, "--kind", "gadgets.example.com", "-o", "json"]);
  const items = (
    JSON.parse(gadgets.stdout) as { items: { name: string; namespace: string; result: string }[] }
  ).items;
  assert.deepEqual(
    items.filter((i) => i.name === `${ns}-gadget`).map((i) => [i.namespace, i.result]),
    [["", "Unknown"]],
  );
});

test("kubectl cr-status: the package's kubectl-cr_status bin is kubectl's plugin for status", async () => {
  // kubectl finds plugins on PATH; the bin is linked there as npm would, and
  // its `#!/usr/bin/env node` finds this Node.js first.
  const bin = mkdtempSync(join(tmpdir(), "cr-kubectl-plugin-"));
  symlinkSync(join(repositoryRoot, "src", "kubectl-cr_status.ts"), join(bin, "kubectl-cr_status"));
  const PATH = [bin, dirname(process.execPath), process.env.PATH].join(delimiter);
  const args = ["cr-status", "--kubeconfig", testbed.plane.kubeconfigPath, "--config", configPath, "-n", ns];
  const run = await new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
    execFile(
      resolveKubectl(),
      [...args, "--not-ready"],
      { env: { PATH, HOME: bin }, timeout: 60_000 },
      (error, stdout, stderr) =>
        resolve({ code: typeof error?.code === "number" ? error.code : error ? -1 : 0, stdout, stderr }),
    );
  });
  rmSync(bin, { recursive: true, force: true });
  assert.equal(run.code, 0, run.stderr);
  assert.deepEqual([...table(run.stdout).keys()], ["stuck-widget", "slow-widget"]);
});

test("--fail-if-not-ready: exit 1 when something listed is not Ready, 0 when all are", async () => {
  const base = ["status", "--kubeconfig", testbed.plane.kubeconfigPath, "--config", configPath, "-n", ns];
  assert.equal((await runCli([...base, "--fail-if-not-ready"])).code, 1);
  assert.equal((await runCli([...base, "--fail-if-not-ready", "--kind", "widgets"])).code, 1);
  const misspelt = await runCli([...base, "--fail-if-not-ready", "--kind", "Widgetz"]);
  assert.equal(misspelt.code, 2);
  assert.match(misspelt.stderr, /--kind Widgetz: no watched kind has this name/);
  assert.equal((await runCli([...base, "--fail-if-not-ready", "-l", "tier=gold"])).code, 0);
});

test("a resource the user may not list is named, and the others are still shown (exit 2)", async () => {
  const plane = testbed.plane;
  const user = plane.mintUser();
  // Widgets everywhere, but not gadgets.
  await plane.grantCluster(user, [
    { apiGroups: ["apiextensions.k8s.io"], resources: ["customresourcedefinitions"], verbs: ["list"] },
    { apiGroups: ["example.com"], resources: ["widgets"], verbs: ["list"] },
  ]);
  const run = await runCli(["status", "--kubeconfig", user.kubeconfigPath, "--config", configPath]);
  assert.equal(run.code, 2, run.stderr);
  assert.match(run.stderr, /warning: example\.com\/gadgets: GET \/apis\/example\.com\/v1\/gadgets: HTTP 403/);
  const names = [...table(run.stdout).keys()];
  for (const name of ["stuck-widget", "slow-widget", "fine-widget"])
    assert.ok(names.includes(name), run.stdout);
  // -n applies to namespaced kinds only: with it the gadgets are not listed, so nothing fails.
  const inNamespace = await runCli([
    "status",
    "--kubeconfig",
    user.kubeconfigPath,
    "--config",
    configPath,
    "-n",
    ns,
  ]);
  assert.equal(inNamespace.code, 0, inNamespace.stderr);
});

test("explain: detected paths, and the series estimate within 10 % of what the exporter exports", async (t) => {
  const run = await runCli([
    "explain",
    "--kubeconfig",
    testbed.plane.kubeconfigPath,
    "--config",
    configPath,
    "-o",
    "json",
  ]);
  assert.equal(run.code, 0, run.stderr);
  const explained = JSON.parse(run.stdout) as {
    resources: {
      resource: string;
      objects: number;
      estimatedSeries: number;
      conditions: { path: string; from: string };
      phase: { path: string | null; phases: string[] };
      readyCondition: string | null;
      readinessSource: string;
      detected: { readinessWhy: string; conditionsWhy: string } | null;
      valueCandidates: { path: string; type: string }[];
    }[];
  };
  const widgets = explained.resources.find((r) => r.resource === "widgets.example.com");
  assert.ok(widgets, run.stdout);
  assert.deepEqual(widgets.conditions, { path: "status.conditions", from: "schema" });
  assert.equal(widgets.objects, 3);
  // No type enum in the widget schema: the readiness condition is learned from the sampled objects, as the exporter does.
  assert.equal(widgets.readyCondition, "Ready");
  assert.equal(widgets.readinessSource, "observed");
  assert.match(widgets.detected?.readinessWhy ?? "", /objects carry Ready/);
  assert.match(widgets.detected?.conditionsWhy ?? "", /the only list of conditions in status/);
  // The schema's numeric and date-time status fields, proposed for values: (none configured here).
  assert.deepEqual(
    widgets.valueCandidates.map((c) => `${c.path}:${c.type}`),
    ["status.lastHeartbeatTime:timestamp", "status.replicas:number"],
  );

  const exporter = await runExporter(testbed.plane.kubeconfigPath, {
    resources: [{ groups: ["example.com"] }],
  });
  t.after(() => exporter.stop());
  const real = await eventually("the exporter synced the widgets", async () => {
    const scrape = await exporter.scrape();
    if (!(await fetch(`${exporter.exporter.url}/readyz`)).ok) return undefined;
    return scrape.samples.get('cr_exporter_resource_series{group="example.com",version="v1",kind="Widget"}');
  });
  const error = Math.abs(widgets.estimatedSeries - real) / real;
  t.diagnostic(
    `widgets: estimated ${widgets.estimatedSeries} series, exported ${real} (${(error * 100).toFixed(1)} %)`,
  );
  assert.ok(error <= 0.1, `estimate ${widgets.estimatedSeries} vs exported ${real}`);

  const text = await runCli([
    "explain",
    "--kubeconfig",
    testbed.plane.kubeconfigPath,
    "--config",
    configPath,
  ]);
  assert.match(
    text.stdout,
    /widgets\.example\.com\s+Widget\s+v1\s+Namespaced\s+yes\s+Ready \(observed\)\s+status\.conditions \(schema\)/,
  );
  assert.match(
    text.stdout,
    /Numeric fields that values: could export .*\n {2}widgets\.example\.com: status\.lastHeartbeatTime \(timestamp\), status\.replicas \(\+3 series each\)/,
  );
});
