// An Argo CD Application (the real CRD, from Argo CD's Go module) synced by a
// scripted controller on the testbed — Healthy and Synced, then OutOfSync,
// then Synced and Progressing, then Healthy again — watched by the exporter
// with zero configuration and traced into a real Jaeger: the sync is one
// `Application degraded` trace, opened when the Application left Healthy and
// Synced and closed (recovered) when it came back, with the values it went
// through as reason events; cr_status and cr_state follow every step.
// Then, with tracing.operation (examples/argo-cd/config.yaml), a sync written
// as Argo CD's application controller writes status.operationState (startedAt,
// Running, then Succeeded with finishedAt) is one `Application operation`
// root keyed by startedAt, and Widgets labelled with Argo CD's tracking label
// (tracing.parent: source) hang under it: one created before an exporter
// restart mid-sync (emitted by the first process), one after it (by the
// second, which resumed the sync's root with the same ids).
import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { before, test } from "node:test";
import * as attr from "../../src/tracing/attributes.ts";
import { generationTraceKey, operationTraceKey, spanIdOf, traceIdOf } from "../../src/tracing/ids.ts";
import {
  condition,
  createCr,
  crPath,
  installCrd,
  patchStatus,
  refFor,
  useControlPlane,
} from "../cluster/index.ts";
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
  await installCrd(rest, "widgets");
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

test("with tracing.operation a sync is one root keyed by startedAt, the Widgets it applies hang under it, across an exporter restart", {
  skip: unavailable,
}, async (t) => {
  const { admin } = testbed.plane;
  const { jaeger } = backend;
  const [{ crd } = { crd: undefined }] = realCrds(["argo-cd/Application"]);
  assert.ok(crd);
  const ns = await testbed.plane.createNamespace("argocd-ops");
  const clusterName = `e2e-${randomBytes(3).toString("hex")}`;
  const config = {
    resources: [
      {
        group: "argoproj.io",
        resource: "applications",
        tracing: {
          operation: {
            startedAt: "status.operationState.startedAt",
            finishedAt: "status.operationState.finishedAt",
            phase: "status.operationState.phase",
          },
        },
      },
      {
        group: "example.com",
        resource: "widgets",
        tracing: {
          parent: "source",
          source: {
            group: "argoproj.io",
            kind: "Application",
            name: { fromLabel: "app.kubernetes.io/instance" },
            namespace: { value: ns },
          },
        },
      },
    ],
    tracing: { endpoint: jaeger.otlpEndpoint, clusterName },
  };
  const start = async () => {
    const handle = await runExporter(testbed.plane.kubeconfigPath, config, {
      env: { OTEL_SERVICE_NAME: service },
    });
    await eventually("exporter ready", async () => (await fetch(`${handle.exporter.url}/readyz`)).ok, 30_000);
    return handle;
  };
  let handle = await start();
  t.after(() => handle.stop());

  const healthy = draftBuilders["argo-cd/Application"]?.({ now: new Date() }).find(
    (d) => d.scenario === "healthy",
  );
  assert.ok(healthy);
  const placed = await placeDraft(admin.rest, crd, ns, "guestbook", healthy);
  const appUid = (placed.served.metadata as { uid: string }).uid;
  const open = `{group="argoproj.io",kind="Application",namespace="${ns}",name="guestbook"`;
  const seen = (handle: Awaited<ReturnType<typeof start>>, sample: string) =>
    eventually(
      `the exporter to see ${sample}`,
      async () => (await handle.scrape()).samples.get(sample) === 1,
      20_000,
    );
  await seen(handle, `cr_state${open},field="sync",value="Synced"}`);

  // Argo CD's controller: a new sync replaces operationState (no finishedAt while it runs).
  const write = (status: Record<string, unknown>) =>
    admin.rest.patch(crPath(refOf(crd, ns, "guestbook")), { status }, "merge");
  const seconds = () => Math.floor(Date.now() / 1000);
  const rfc3339 = (s: number) => new Date(s * 1000).toISOString().replace(".000Z", "Z");
  const startedAt = seconds();
  const operation = { sync: { revision: "b".repeat(40) }, initiatedBy: { automated: true } };
  await write({
    sync: { status: "OutOfSync" },
    operationState: { operation, phase: "Running", startedAt: rfc3339(startedAt), finishedAt: null },
  });
  await seen(handle, `cr_state${open},field="sync",value="OutOfSync"}`);

  // What every process must compute: the sync's root from startedAt, the Widgets' from their uids.
  const syncKey = operationTraceKey(clusterName, appUid, startedAt);
  const syncTraceId = traceIdOf(syncKey);
  const syncRoot = spanIdOf(syncKey, "root");
  const widgets = refFor("widgets", ns);
  const widget = async (name: string) => {
    const created = await createCr(
      admin.rest,
      widgets,
      name,
      { size: 1 },
      {
        labels: { "app.kubernetes.io/instance": "guestbook" },
      },
    );
    await patchStatus(admin.rest, refFor("widgets", ns, name), { conditions: [condition("Ready", "False")] });
    return created.metadata.uid;
  };
  const ready = (name: string) =>
    patchStatus(admin.rest, refFor("widgets", ns, name), {
      observedGeneration: 1,
      conditions: [condition("Ready", "True", "Succeeded", "", 1)],
    });
  const inJaeger = async (spanIds: string[], what: string) => {
    let trace: JaegerTrace | undefined;
    await eventually(
      what,
      async () => {
        trace = await jaeger.getTrace(syncTraceId);
        return spanIds.every((id) => trace?.spans.some((s) => s.spanID === id));
      },
      30_000,
    ).catch((error) => {
      const spans = trace?.spans.map((s) => `${s.operationName} ${s.spanID}`).join(", ");
      throw new Error(`${(error as Error).message}\nspans: ${spans}\n${jaeger.logTail()}`);
    });
    return trace as JaegerTrace;
  };

  // Applied before the restart, reconciled before it: emitted by the first process, in the sync's trace.
  const earlyUid = await widget("early");
  await ready("early");
  const earlyRoot = spanIdOf(generationTraceKey(clusterName, earlyUid, 1), "root");
  await inJaeger([earlyRoot], "the early Widget's root in the sync's trace");

  // The exporter restarts mid-sync; the next process lists the Application Running and resumes its root.
  await handle.stop();
  handle = await start();
  await seen(handle, `cr_state${open},field="sync",value="OutOfSync"}`);
  const lateUid = await widget("late");
  await write({ sync: { status: "Synced" }, health: { status: "Progressing" } });
  await ready("late");
  const finishedAt = Math.max(seconds(), startedAt);
  await write({
    health: { status: "Healthy" },
    operationState: {
      operation,
      phase: "Succeeded",
      startedAt: rfc3339(startedAt),
      finishedAt: rfc3339(finishedAt),
    },
  });
  const lateRoot = spanIdOf(generationTraceKey(clusterName, lateUid, 1), "root");
  const trace = await inJaeger(
    [syncRoot, earlyRoot, lateRoot],
    "the sync's root and both Widgets' in one trace",
  );

  const byId = (id: string) => trace.spans.find((s) => s.spanID === id) as JaegerSpan;
  const root = byId(syncRoot);
  assert.equal(root.operationName, "Application operation");
  assert.equal(tag(root, attr.OUTCOME), "succeeded");
  assert.equal(tag(root, attr.START_SOURCE), "operation");
  assert.equal(tag(root, attr.END_SOURCE), "operation");
  assert.equal(root.startTime, startedAt * 1_000_000, "starts at startedAt (µs)");
  assert.equal(root.startTime + root.duration, finishedAt * 1_000_000, "ends at finishedAt (µs)");
  assert.deepEqual(
    root.references.filter((r) => r.refType === "CHILD_OF"),
    [],
    "the sync's root is the trace's root",
  );
  assert.equal(
    trace.spans.filter((s) => s.operationName === "Application operation").length,
    1,
    "one root for the sync, before and after the restart",
  );
  for (const [name, id] of [
    ["early", earlyRoot],
    ["late", lateRoot],
  ] as const) {
    const span = byId(id);
    assert.equal(span.operationName, "Widget generation", name);
    assert.equal(tag(span, attr.PARENT), "source", name);
    assert.deepEqual(
      span.references.filter((r) => r.refType === "CHILD_OF").map((r) => [r.traceID, r.spanID]),
      [[syncTraceId, syncRoot]],
      `${name}: a child of the sync's root`,
    );
  }
});
