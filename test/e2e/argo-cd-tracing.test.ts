// An Argo CD Application (the real CRD, from Argo CD's Go module) synced by a
// scripted controller on the testbed — Healthy and Synced, then OutOfSync,
// then Synced and Progressing, then Healthy again — watched by the exporter
// with zero configuration and traced into a real Jaeger: the sync is one
// `Application degraded` trace, opened when the Application left Healthy and
// Synced and closed (recovered) when it came back, with the values it went
// through as reason events; cr_status and cr_state follow every step.
import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { before, test } from "node:test";
import * as attr from "../../src/tracing/attributes.ts";
import { crPath, installCrd, useControlPlane } from "../cluster/index.ts";
import { type JaegerSpan, type JaegerTrace, useJaeger } from "../jaeger/index.ts";
import { realCrds, realCrdsUnavailable } from "../realcrds/index.ts";
import { draftBuilders } from "../realcrds/objects/index.ts";
import { placeDraft, refOf } from "../realcrds/testbed.ts";
import { eventually, runExporter } from "../support/exporter.ts";

const unavailable = realCrdsUnavailable();
const testbed = useControlPlane();
const backend = useJaeger();
const service = `cr-status-exporter-argo-${randomBytes(3).toString("hex")}`;

before(async () => {
  if (unavailable) return;
  const { rest } = (await testbed.ready()).admin;
  const [{ crd } = { crd: undefined }] = realCrds(["argo-cd/Application"]);
  assert.ok(crd);
  await installCrd(rest, crd);
});

const tag = (span: JaegerSpan, key: string): unknown => span.tags.find((t) => t.key === key)?.value;

test("an Argo CD sync is one degraded trace, opened when the Application leaves Healthy+Synced and closed when it is back", {
  skip: unavailable,
}, async (t) => {
  const { admin } = testbed.plane;
  const { jaeger } = backend;
  const [{ crd } = { crd: undefined }] = realCrds(["argo-cd/Application"]);
  assert.ok(crd);
  const ns = await testbed.plane.createNamespace("argocd");
  const handle = await runExporter(
    testbed.plane.kubeconfigPath,
    {
      resources: [{ groups: ["argoproj.io"] }],
      tracing: { endpoint: jaeger.otlpEndpoint, clusterName: `e2e-${randomBytes(3).toString("hex")}` },
    },
    { env: { OTEL_SERVICE_NAME: service } },
  );
  t.after(() => handle.stop());
  await eventually("exporter ready", async () => (await fetch(`${handle.exporter.url}/readyz`)).ok, 30_000);

  const healthy = draftBuilders["argo-cd/Application"]?.({ now: new Date() }).find(
    (d) => d.scenario === "healthy",
  );
  assert.ok(healthy);
  const placed = await placeDraft(admin.rest, crd, ns, "shop", healthy);
  const open = `{group="argoproj.io",kind="Application",namespace="${ns}",name="shop"`;
  /** Waits until the scrape shows the Application with this health, sync and cr_status. */
  const scraped = async (health: string, sync: string, result: string) => {
    const want = [
      `cr_state${open},field="health",value="${health}"}`,
      `cr_state${open},field="sync",value="${sync}"}`,
      `cr_status${open},result="${result}"}`,
    ];
    let seen: string[] = [];
    await eventually(
      `the exporter to see health ${health}, sync ${sync}, ${result}`,
      async () => {
        const { samples } = await handle.scrape();
        seen = [...samples.keys()].filter((k) => k.includes(open));
        return want.every((w) => samples.get(w) === 1);
      },
      20_000,
    ).catch((error) => {
      throw new Error(`${(error as Error).message}\nseen: ${seen.join("\n")}`);
    });
  };
  /** The scripted Argo CD controller: the Application has no status subresource, status is written with it. */
  const write = (status: Record<string, unknown>) =>
    admin.rest.patch(crPath(refOf(crd, ns, "shop")), { status }, "merge");
  const stamp = () => new Date(Math.floor(Date.now() / 1000) * 1000).toISOString().replace(".000Z", "Z");

  await scraped("Healthy", "Synced", "Current");
  const leftAt = Date.now();
  await write({ sync: { status: "OutOfSync" } });
  await scraped("Healthy", "OutOfSync", "InProgress");
  await write({ sync: { status: "Synced" }, health: { status: "Progressing", lastTransitionTime: stamp() } });
  await scraped("Progressing", "Synced", "InProgress");
  await write({ health: { status: "Healthy", lastTransitionTime: stamp() } });
  await scraped("Healthy", "Synced", "Current");
  const backAt = Date.now();
  assert.ok(placed.served.metadata);

  // Jaeger's search API: the service's traces of the degraded root.
  let traces: JaegerTrace[] = [];
  await eventually(
    "the Application degraded trace in Jaeger",
    async () => {
      const query = new URLSearchParams({ service, operation: "Application degraded", limit: "20" });
      const response = await fetch(`${jaeger.queryUrl}/api/traces?${query}`);
      if (!response.ok) return false;
      traces = ((await response.json()) as { data?: JaegerTrace[] }).data ?? [];
      return traces.length > 0;
    },
    20_000,
  ).catch((error) => {
    throw new Error(`${(error as Error).message}\n${jaeger.logTail()}`);
  });
  assert.equal(traces.length, 1, "one trace for the whole sync, not one per value");
  const [trace] = traces as [JaegerTrace];
  const root = trace.spans.find((s) => s.operationName === "Application degraded");
  assert.ok(root, trace.spans.map((s) => s.operationName).join(", "));
  assert.equal(tag(root, attr.OUTCOME), "recovered");
  assert.equal(tag(root, attr.CONDITION_TYPE), "Ready");
  assert.equal(tag(root, attr.K8S_OBJECT_NAME), "shop");
  assert.equal(tag(root, attr.K8S_OBJECT_KIND), "Application");
  // Whole seconds on both ends: the start is when the exporter first saw OutOfSync, the end the health's time.
  const startMs = root.startTime / 1000;
  const endMs = startMs + root.duration / 1000;
  assert.ok(startMs >= Math.floor(leftAt / 1000) * 1000 - 1000, `started ${startMs}, left at ${leftAt}`);
  assert.ok(endMs >= startMs && endMs <= backAt + 1000, `ended ${endMs}, back at ${backAt}`);
  // Span events as the query API returns them (logs with fields).
  const logs = (root as JaegerSpan & { logs?: { fields: { key: string; value: unknown }[] }[] }).logs ?? [];
  const reasons = logs.map((l) => l.fields.find((f) => f.key === attr.CONDITION_REASON)?.value);
  assert.ok(reasons.includes("Progressing"), `reason events: ${JSON.stringify(logs)}`);
});
