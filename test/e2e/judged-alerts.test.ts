// CustomResourceFailed end to end: Argo CD's real Application CRD (from its Go
// module) on the testbed — a kind without a readiness condition, judged by its
// health and sync — the exporter with zero configuration, and a real
// Prometheus with the generated rules (the alert's `for` shortened). The
// Degraded Application fires, its description pointing at its state fields
// (read from labels only: no query in the annotation), the Healthy one never
// alerts, and the alert ends when the broken one is healthy again.
import assert from "node:assert/strict";
import { test } from "node:test";
import { crPath } from "../cluster/index.ts";
import type { PromAlert, PrometheusServer } from "../prometheus/index.ts";
import { draftBuilders } from "../realcrds/objects/index.ts";
import { placeDraft, refOf } from "../realcrds/testbed.ts";
import { ALERTING_JOB, useRealKindAlerting } from "../support/real-kind-alerting.ts";

const JOB = ALERTING_JOB;
const ALERT = "CustomResourceFailed";
const argo = useRealKindAlerting({
  kind: "argo-cd/Application",
  group: "argoproj.io",
  namespace: "argocd",
  shorterFor: { failed: "4s" },
});
const { unavailable, testbed } = argo;

const failedAlerts = async (server: PrometheusServer): Promise<PromAlert[]> =>
  (await server.alerts()).filter((a) => a.labels.alertname === ALERT);

test("a Degraded Argo CD Application fires CustomResourceFailed pointing at its states; a Healthy one does not; recovery ends it", {
  skip: unavailable,
}, async () => {
  const server = argo.prometheus;
  const rest = testbed.plane.admin.rest;
  const application = argo.crd;
  const namespace = argo.namespace;
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
  // An Application has no status.phase: no phase label, none named.
  assert.equal(firing.labels.phase, undefined);
  assert.equal(
    firing.annotations.description,
    `Application ${namespace}/broken (argoproj.io) has been Failed for more than 4s by its state fields, phase or readiness expression (readiness.cel), ` +
      `which no readiness-condition alert reports; state fields: cr_state{kind="Application", namespace="${namespace}", name="broken"}.`,
  );
  // What the description points at: the states that judged it.
  const states = await server.query(
    `max by (field, value) (cr_state{job="${JOB}",kind="Application",namespace="${namespace}",name="broken"} == 1)`,
  );
  assert.deepEqual(states.map((s) => `${s.metric.field}=${s.metric.value}`).sort(), [
    "health=Degraded",
    "sync=OutOfSync",
  ]);
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
