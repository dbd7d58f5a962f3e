// CustomResourceFailed end to end: Argo CD's real Application CRD (from its Go
// module) on the testbed — a kind without a readiness condition, judged by its
// health and sync — the exporter with zero configuration, and a real
// Prometheus with the generated rules (the alert's `for` shortened). The
// Degraded Application fires with its states in the description, the Healthy
// one never alerts, and the alert ends when the broken one is healthy again.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { crPath, installCrd, useControlPlane } from "../cluster/index.ts";
import type { PromAlert, PrometheusServer } from "../prometheus/index.ts";
import { type RulesPrometheus, shippedRulesFor, startWithRules } from "../prometheus/with-rules.ts";
import { realCrds, realCrdsUnavailable } from "../realcrds/index.ts";
import { draftBuilders } from "../realcrds/objects/index.ts";
import { placeDraft, refOf } from "../realcrds/testbed.ts";
import { type ExporterHandle, eventually, runExporter } from "../support/exporter.ts";

const JOB = "cr-status-exporter";
const ALERT = "CustomResourceFailed";
const unavailable = realCrdsUnavailable();
const testbed = useControlPlane();
let exporter: ExporterHandle | undefined;
let prometheus: RulesPrometheus | undefined;
let namespace = "";
let crd: ReturnType<typeof realCrds>[number]["crd"] | undefined;

before(async () => {
  if (unavailable) return;
  const plane = await testbed.ready();
  [{ crd } = { crd: undefined }] = realCrds(["argo-cd/Application"]);
  assert.ok(crd, "Argo CD's Application CRD");
  await installCrd(plane.admin.rest, crd);
  namespace = await plane.createNamespace("argocd");
  exporter = await runExporter(plane.kubeconfigPath, { resources: [{ groups: ["argoproj.io"] }] });
  await eventually("exporter ready", async () => (await fetch(`${exporter?.exporter.url}/readyz`)).ok);
  prometheus = await startWithRules(
    [{ job: JOB, targets: [new URL(exporter.exporter.url).host] }],
    shippedRulesFor(JOB, { failed: "4s" }),
  );
});

after(async () => {
  await prometheus?.stop();
  await exporter?.stop();
});

const failedAlerts = async (server: PrometheusServer): Promise<PromAlert[]> =>
  (await server.alerts()).filter((a) => a.labels.alertname === ALERT);

test("a Degraded Argo CD Application fires CustomResourceFailed with its states; a Healthy one does not; recovery ends it", {
  skip: unavailable,
}, async () => {
  const server = (prometheus as RulesPrometheus).server;
  const rest = testbed.plane.admin.rest;
  const application = crd as NonNullable<typeof crd>;
  const drafts = draftBuilders["argo-cd/Application"]?.({ now: new Date() }) ?? [];
  const healthy = drafts.find((d) => d.scenario === "healthy");
  const failed = drafts.find((d) => d.scenario === "failed");
  assert.ok(healthy && failed, "the Argo CD drafts have a healthy and a failed Application");
  await placeDraft(rest, application, namespace, "shop", healthy);
  await placeDraft(rest, application, namespace, "broken", failed);

  // The premise of the rule: the exporter says the kind has no readiness condition and judges it by its states.
  const info = await server.waitFor("the Application kind's info series", async () => {
    const found = await server.query(`cr_exporter_resource_info{job="${JOB}",kind="Application"}`);
    return found.length > 0 ? found : undefined;
  });
  // An empty label is an absent one in Prometheus.
  assert.deepEqual(
    info.map((s) => [s.metric.ready_condition ?? "", s.metric.readiness_source]),
    [["", "states"]],
  );

  const seen = new Set<string>();
  const firing = await server.waitFor(
    `${ALERT} to fire for the Degraded Application`,
    async () => {
      const alerts = await failedAlerts(server);
      for (const a of alerts) seen.add(`${a.labels.name}:${a.state}`);
      return alerts.find((a) => a.labels.name === "broken" && a.state === "firing");
    },
    60_000,
  );
  assert.deepEqual(
    [firing.labels.kind, firing.labels.group, firing.labels.namespace],
    ["Application", "argoproj.io", namespace],
  );
  assert.equal(
    firing.annotations.description,
    `Application ${namespace}/broken (argoproj.io) has been Failed for more than 4s by its state fields or phase, ` +
      "which no readiness-condition alert reports; now: health=Degraded sync=OutOfSync.",
  );
  assert.deepEqual(
    [...seen].filter((s) => s.startsWith("shop:")),
    [],
    `the Healthy Application alerted: ${[...seen].join(", ")}`,
  );

  // Argo CD syncs it again and it comes back healthy: the alert ends.
  const now = new Date(Math.floor(Date.now() / 1000) * 1000).toISOString().replace(".000Z", "Z");
  await rest.patch(
    crPath(refOf(application, namespace, "broken")),
    { status: { health: { status: "Healthy", lastTransitionTime: now }, sync: { status: "Synced" } } },
    "merge",
  );
  await server.waitFor(
    `${ALERT} to end once the Application is Healthy and Synced`,
    async () => ((await failedAlerts(server)).length === 0 ? true : undefined),
    60_000,
  );
  const result = await server.query(`cr_status{job="${JOB}",kind="Application",name="broken"} == 1`);
  assert.deepEqual(
    result.map((s) => s.metric.result),
    ["Current"],
  );
});
