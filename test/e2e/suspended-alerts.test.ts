// Suspended objects and the shipped Not-Ready alert, end to end: Flux's real
// Kustomization CRD (from its Go module) on the testbed, two Kustomizations
// that failed (Ready=False) of which one is suspended (spec.suspend: true, the
// last status left in place), the exporter with zero configuration, and a real
// Prometheus with the generated rules (NotReady's duration shortened). The one
// that is not suspended fires CustomResourceNotReady; the suspended one
// neither fires nor goes pending, and exports cr_suspended 1 — until it is
// resumed, when it fires too.
import assert from "node:assert/strict";
import { test } from "node:test";
import { crPath } from "../cluster/index.ts";
import type { PrometheusServer } from "../prometheus/index.ts";
import { draftBuilders } from "../realcrds/objects/index.ts";
import { placeDraft, refOf } from "../realcrds/testbed.ts";
import { ALERTING_JOB, useRealKindAlerting } from "../support/real-kind-alerting.ts";

const JOB = ALERTING_JOB;
const FLUX = "kustomize.toolkit.fluxcd.io";
const flux = useRealKindAlerting({
  kind: "flux/Kustomization",
  group: FLUX,
  namespace: "flux",
  shorterFor: { notReady: "4s" },
});
const { unavailable, testbed } = flux;

const notReadyAlerts = async (server: PrometheusServer) =>
  (await server.alerts()).filter((a) => a.labels.alertname === "CustomResourceNotReady");

test("a suspended Kustomization with Ready=False does not fire CustomResourceNotReady; one not suspended does", {
  skip: unavailable,
}, async () => {
  const server = flux.prometheus;
  const rest = testbed.plane.admin.rest;
  const crd = flux.crd;
  const namespace = flux.namespace;
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
  await placeDraft(rest, crd, namespace, "broken", failed);
  await placeDraft(rest, crd, namespace, "paused", suspended);

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
  await rest.patch(crPath(refOf(crd, namespace, "paused")), { spec: { suspend: false } }, "merge");
  await server.waitFor(
    "CustomResourceNotReady to fire for the resumed Kustomization",
    async () =>
      (await notReadyAlerts(server)).find((a) => a.labels.name === "paused" && a.state === "firing"),
    60_000,
  );
  assert.deepEqual(await server.query(`cr_suspended{job="${JOB}",kind="Kustomization"} == 1`), []);
});
