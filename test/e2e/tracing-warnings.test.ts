// A Kubernetes Warning event as a span event of the object's open generation
// root, on a real kube-apiserver and a real Jaeger: a widget's generation 2
// is not reconciled yet when its controller writes an events.k8s.io/v1
// Warning event regarding it (then raises its series.count), and the trace
// Jaeger returns for generation 2 has the root with `k8s.event` logs carrying
// the reason, message and count at the events' times. An event after the
// root ended is not recorded.
import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { before, test } from "node:test";
import { defaultProjectionSettings, projectObject } from "../../src/core/project/project.ts";
import type { ObjectState } from "../../src/core/state.ts";
import * as attr from "../../src/tracing/attributes.ts";
import { generationTraceKey, spanIdOf, traceIdOf } from "../../src/tracing/ids.ts";
import {
  changeSpec,
  condition,
  createCr,
  getCr,
  installCrd,
  patchStatus,
  refFor,
  useControlPlane,
} from "../cluster/index.ts";
import { type JaegerSpan, useJaeger } from "../jaeger/index.ts";
import { eventually, runExporter, series } from "../support/exporter.ts";

const testbed = useControlPlane();
const backend = useJaeger();

before(async () => {
  await installCrd((await testbed.ready()).admin.rest, "widgets");
});

/** A MicroTime, as client-go writes eventTime and series.lastObservedTime. */
const micro = (ms = Date.now()): string => new Date(ms).toISOString().replace("Z", "000Z");

function field(log: NonNullable<JaegerSpan["logs"]>[number], key: string): unknown {
  return log.fields.find((f) => f.key === key)?.value;
}

test("a Warning event about a widget whose generation is not reconciled is a k8s.event log on the generation root in Jaeger", async () => {
  const { admin } = testbed.plane;
  const { jaeger } = backend;
  const ns = await testbed.plane.createNamespace("warned");
  const ref = refFor("widgets", ns, "w1");
  const cluster = `e2e-${randomBytes(3).toString("hex")}`;
  const handle = await runExporter(testbed.plane.kubeconfigPath, {
    resources: [{ group: "example.com", resource: "widgets", namespaces: [ns] }],
    tracing: { endpoint: jaeger.otlpEndpoint, clusterName: cluster },
  });
  const exporter = handle.exporter;
  const collector = () => exporter.manager.collectors().find((c) => c.identity.resource === "widgets");
  const observe = async (): Promise<ObjectState> => {
    const current = projectObject(await getCr(admin.rest, ref), defaultProjectionSettings);
    await eventually(
      `exporter saw resourceVersion ${current.resourceVersion}`,
      async () => collector()?.store.get(current.uid)?.state.resourceVersion === current.resourceVersion,
    );
    return current;
  };
  const counted = async (reason: string) =>
    (await handle.scrape()).samples.get(
      series("cr_warning_events_total", { group: "example.com", kind: "Widget", namespace: ns, reason }),
    );
  const pause = async () => {
    const writtenSecond = Math.floor(Date.now() / 1000);
    await eventually("a new wall-clock second", async () => Math.floor(Date.now() / 1000) > writtenSecond);
  };
  const events = `/apis/events.k8s.io/v1/namespaces/${ns}/events`;

  try {
    await eventually("exporter ready", async () => (await fetch(`${exporter.url}/readyz`)).ok);
    const created = await createCr(admin.rest, ref, "w1", { size: 1 });
    const uid = created.metadata.uid;
    const readyAt = new Date();
    await patchStatus(admin.rest, ref, {
      observedGeneration: 1,
      conditions: [condition("Ready", "True", "Succeeded", "", 1, readyAt)],
    });
    await observe();
    await pause();
    await changeSpec(admin.rest, ref, { size: 2 });
    const bumped = await observe();
    assert.equal(bumped.generation, 2);
    assert.ok(collector()?.store.get(uid)?.trace?.open, "generation 2's root is open");

    const regarding = { apiVersion: "example.com/v1", kind: "Widget", namespace: ns, name: "w1", uid };
    const firstAt = Date.now();
    await admin.rest.create(events, {
      metadata: { name: "w1.quota" },
      eventTime: micro(firstAt),
      reportingController: "example.com/widget-controller",
      reportingInstance: "widget-controller-0",
      action: "Reconcile",
      type: "Warning",
      reason: "FailedCreate",
      note: "pods w1-0 is forbidden: exceeded quota",
      regarding,
    });
    await eventually("the warning counted", async () => (await counted("FailedCreate")) === 1);
    await pause();
    const againAt = Date.now();
    await admin.rest.patch(`${events}/w1.quota`, { series: { count: 3, lastObservedTime: micro(againAt) } });
    await eventually("two more occurrences", async () => (await counted("FailedCreate")) === 3);
    await pause();

    // The controller catches up: Ready stays True, observedGeneration moves; the root ends when that is seen.
    await patchStatus(admin.rest, ref, {
      observedGeneration: 2,
      conditions: [condition("Ready", "True", "Succeeded", "", 2, readyAt)],
    });
    await observe();
    assert.equal(collector()?.store.get(uid)?.trace?.open, undefined, "generation 2's root ended");
    // After the root ended: counted, not recorded on any span.
    await admin.rest.create(events, {
      metadata: { name: "w1.late" },
      eventTime: micro(),
      reportingController: "example.com/widget-controller",
      reportingInstance: "widget-controller-0",
      action: "Reconcile",
      type: "Warning",
      reason: "Late",
      note: "after the rollout",
      regarding,
    });
    await eventually("the late warning counted", async () => (await counted("Late")) === 1);
    await exporter.stop();

    const key2 = generationTraceKey(cluster, uid, 2);
    const trace = await jaeger.waitForTrace(traceIdOf(key2), 1);
    const root = trace.spans.find((s) => s.spanID === spanIdOf(key2, "root"));
    assert.ok(root, "generation 2's root in Jaeger");
    assert.equal(root.operationName, "Widget generation");
    const logs = (root.logs ?? []).filter((l) => field(l, "event") === attr.K8S_EVENT);
    console.error(`# generation 2 root logs as Jaeger returned them:\n${JSON.stringify(root.logs, null, 1)}`);
    assert.deepEqual(
      logs.map((l) => ({
        at: l.timestamp,
        type: field(l, attr.K8S_EVENT_TYPE),
        reason: field(l, attr.K8S_EVENT_REASON),
        message: field(l, attr.K8S_EVENT_MESSAGE),
        count: field(l, attr.K8S_EVENT_COUNT),
      })),
      [
        {
          at: firstAt * 1000,
          type: "Warning",
          reason: "FailedCreate",
          message: "pods w1-0 is forbidden: exceeded quota",
          count: 1,
        },
        {
          at: againAt * 1000,
          type: "Warning",
          reason: "FailedCreate",
          message: "pods w1-0 is forbidden: exceeded quota",
          count: 2,
        },
      ],
    );
    assert.equal(
      root.tags.find((t) => t.key === attr.K8S_EVENT_DROPPED),
      undefined,
      "nothing dropped under the bound",
    );
  } finally {
    await exporter.stop();
  }
});
