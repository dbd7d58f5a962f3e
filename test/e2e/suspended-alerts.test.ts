// Suspended objects and the shipped Not-Ready alert, end to end: Flux's real
// Kustomization CRD (from its Go module) on the testbed, two Kustomizations
// that failed (Ready=False) of which one is suspended (spec.suspend: true, the
// last status left in place), the exporter with zero configuration, and a real
// Prometheus with the generated rules (NotReady's `for` shortened). The one
// that is not suspended fires CustomResourceNotReady; the suspended one
// neither fires nor goes pending, and exports cr_suspended 1 — until it is
// resumed, when it fires too.
import assert from "node:assert/strict";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { DEFAULT_ALERT_OPTIONS, generateRuleGroups, renderRuleFile } from "../../alerts/src/index.ts";
import { crPath, installCrd, useControlPlane } from "../cluster/index.ts";
import { PrometheusServer } from "../prometheus/index.ts";
import { realCrds, realCrdsUnavailable } from "../realcrds/index.ts";
import { draftBuilders } from "../realcrds/objects/index.ts";
import { placeDraft, refOf } from "../realcrds/testbed.ts";
import { type ExporterHandle, eventually, runExporter } from "../support/exporter.ts";

const JOB = "cr-status-exporter";
const FLUX = "kustomize.toolkit.fluxcd.io";
const unavailable = realCrdsUnavailable();
const testbed = useControlPlane();
let exporter: ExporterHandle | undefined;
let prometheus: PrometheusServer | undefined;
let ruleDir = "";
let namespace = "";
let crd: ReturnType<typeof realCrds>[number]["crd"] | undefined;

before(async () => {
  if (unavailable) return;
  const plane = await testbed.ready();
  [{ crd } = { crd: undefined }] = realCrds(["flux/Kustomization"]);
  assert.ok(crd, "Flux's Kustomization CRD");
  await installCrd(plane.admin.rest, crd);
  namespace = await plane.createNamespace("flux");
  exporter = await runExporter(plane.kubeconfigPath, { resources: [{ groups: [FLUX] }] });
  await eventually("exporter ready", async () => (await fetch(`${exporter?.exporter.url}/readyz`)).ok);
  ruleDir = mkdtempSync(join(tmpdir(), "cr-rules-"));
  const groups = generateRuleGroups({
    ...DEFAULT_ALERT_OPTIONS,
    selector: `job="${JOB}"`,
    keepFiringFor: null,
    for: { ...DEFAULT_ALERT_OPTIONS.for, notReady: "4s" },
  });
  writeFileSync(join(ruleDir, "rules.yaml"), renderRuleFile(groups));
  prometheus = await PrometheusServer.start({
    scrape: [{ job: JOB, targets: [new URL(exporter.exporter.url).host] }],
    ruleFiles: [join(ruleDir, "rules.yaml")],
    scrapeInterval: "1s",
    evaluationInterval: "1s",
  });
});

after(async () => {
  await prometheus?.stop();
  await exporter?.stop();
  if (ruleDir) rmSync(ruleDir, { recursive: true, force: true });
});

const notReadyAlerts = async (server: PrometheusServer) =>
  (await server.alerts()).filter((a) => a.labels.alertname === "CustomResourceNotReady");

test("a suspended Kustomization with Ready=False does not fire CustomResourceNotReady; one not suspended does", {
  skip: unavailable,
}, async () => {
  const server = prometheus as PrometheusServer;
  const rest = testbed.plane.admin.rest;
  const drafts = draftBuilders["flux/Kustomization"]?.({ now: new Date() }) ?? [];
  const failed = drafts.find((d) => d.scenario === "failed");
  const suspended = drafts.find((d) => d.scenario === "suspended");
  assert.ok(failed && suspended, "the Flux drafts have a failed and a suspended Kustomization");
  assert.equal((suspended.spec as { suspend?: boolean }).suspend, true);
  assert.deepEqual(
    suspended.status,
    failed.status,
    "suspended after the failure: the same Ready=False status",
  );
  await placeDraft(rest, crd as NonNullable<typeof crd>, namespace, "broken", failed);
  await placeDraft(rest, crd as NonNullable<typeof crd>, namespace, "paused", suspended);

  const both = await server.waitFor("both Kustomizations scraped with Ready=False", async () => {
    const found = await server.query(
      `cr_condition{job="${JOB}",kind="Kustomization",type="Ready",status="False"}`,
    );
    return found.length === 2 ? found : undefined;
  });
  assert.deepEqual(both.map((s) => s.metric.name).sort(), ["broken", "paused"]);
  const marked = await server.query(`cr_suspended{job="${JOB}",kind="Kustomization"} == 1`);
  assert.deepEqual(
    marked.map((s) => s.metric.name),
    ["paused"],
    "cr_suspended only for the suspended one",
  );

  const seen = new Set<string>();
  const firing = await server.waitFor(
    "CustomResourceNotReady to fire for the Kustomization that is not suspended",
    async () => {
      const alerts = await notReadyAlerts(server);
      for (const a of alerts) seen.add(`${a.labels.name}:${a.state}`);
      return alerts.find((a) => a.labels.name === "broken" && a.state === "firing");
    },
    60_000,
  );
  assert.equal(firing.labels.kind, "Kustomization");
  assert.equal(firing.labels.namespace, namespace);
  // Both went Ready=False at the same scrape: by the time the broken one fires, the paused one would have too.
  assert.deepEqual(
    [...seen].filter((s) => s.startsWith("paused:")),
    [],
    `the suspended Kustomization alerted: ${[...seen].join(", ")}`,
  );
  assert.deepEqual(
    (await notReadyAlerts(server)).map((a) => a.labels.name),
    ["broken"],
  );

  // Resumed (Flux keeps the failed status until it reconciles): now it is not ready like any other.
  await rest.patch(
    crPath(refOf(crd as NonNullable<typeof crd>, namespace, "paused")),
    { spec: { suspend: false } },
    "merge",
  );
  await server.waitFor(
    "CustomResourceNotReady to fire for the resumed Kustomization",
    async () =>
      (await notReadyAlerts(server)).find((a) => a.labels.name === "paused" && a.state === "firing"),
    60_000,
  );
  assert.deepEqual(await server.query(`cr_suspended{job="${JOB}",kind="Kustomization"} == 1`), []);
});
