// One custom resource driven through two rollouts on a real kube-apiserver,
// watched by the exporter configured for tracing (its collectors feed the
// tracer), traced through the real SDK and OTLP/HTTP exporter into a real
// Jaeger — once per OTLP/HTTP protocol, http/protobuf and http/json — and read
// back through Jaeger's query API.
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
import { type JaegerSpan, type JaegerTrace, useJaeger } from "../jaeger/index.ts";
import { eventually, runExporter } from "../support/exporter.ts";

const testbed = useControlPlane();
const backend = useJaeger();

function tag(span: JaegerSpan, key: string): unknown {
  return span.tags.find((t) => t.key === key)?.value;
}

function byName(trace: JaegerTrace, name: string): JaegerSpan {
  const span = trace.spans.find((s) => s.operationName === name);
  assert.ok(span, `span "${name}" in ${trace.spans.map((s) => s.operationName).join(", ")}`);
  return span;
}

/** The tree as Jaeger returned it, trimmed to what a reader needs. */
function render(trace: JaegerTrace): string {
  const root = trace.spans.find((s) => !s.references.some((r) => r.refType === "CHILD_OF"));
  const lines: string[] = [];
  const describe = (s: JaegerSpan, depth: number) => {
    const start = new Date(s.startTime / 1000).toISOString();
    const keys = [
      attr.OUTCOME,
      attr.CONDITION_STATUS,
      attr.CONDITION_NEXT_STATUS,
      attr.PHASE,
      attr.END_SOURCE,
    ];
    const tags = keys
      .map((k) => [k.replace("cr_status.", ""), tag(s, k)] as const)
      .filter(([, v]) => v !== undefined)
      .map(([k, v]) => `${k}=${String(v)}`)
      .join(" ");
    const links = s.references
      .filter((r) => r.refType === "FOLLOWS_FROM")
      .map((r) => ` FOLLOWS_FROM ${r.traceID}/${r.spanID}`)
      .join("");
    lines.push(
      `${"  ".repeat(depth)}${s.operationName} [${s.spanID}] ${start} +${s.duration / 1e6}s ${tags}${links}`,
    );
    for (const child of trace.spans.filter((c) =>
      c.references.some((r) => r.refType === "CHILD_OF" && r.spanID === s.spanID),
    )) {
      describe(child, depth + 1);
    }
  };
  if (root) describe(root, 0);
  return `trace ${trace.traceID}\n${lines.join("\n")}`;
}

before(async () => {
  await installCrd((await testbed.ready()).admin.rest, "widgets");
});

for (const protocol of ["http/protobuf", "http/json"] as const) {
  test(`a rollout on a real apiserver becomes the expected traces in Jaeger (OTLP ${protocol})`, async () => {
    await rollout(protocol);
  });
}

async function rollout(protocol: "http/protobuf" | "http/json"): Promise<void> {
  const { admin } = testbed.plane;
  const { jaeger } = backend;
  const ns = await testbed.plane.createNamespace("traced");
  const ref = refFor("widgets", ns, "w1");
  const cluster = `e2e-${randomBytes(3).toString("hex")}`;
  const handle = await runExporter(
    testbed.plane.kubeconfigPath,
    {
      resources: [{ group: "example.com", resource: "widgets", namespaces: [ns] }],
      // A base endpoint: the exporter posts to <endpoint>/v1/traces.
      tracing: { endpoint: jaeger.otlpEndpoint, clusterName: cluster },
    },
    { env: { OTEL_EXPORTER_OTLP_PROTOCOL: protocol, OTEL_SERVICE_NAME: "cr-status-exporter-e2e" } },
  );
  const exporter = handle.exporter;
  const tracer = exporter.tracer;
  assert.ok(tracer, "tracing is on with an endpoint");
  assert.match(
    handle.logs.join("\n"),
    new RegExp(`"msg":"tracing on","url":"${jaeger.otlpEndpoint}/v1/traces","protocol":"${protocol}"`),
  );
  await eventually("exporter ready", async () => (await fetch(`${exporter.url}/readyz`)).ok);
  const collector = () => exporter.manager.collectors().find((c) => c.identity.resource === "widgets");
  /** The object as the API has it now, once the exporter's watch has delivered that version. */
  const observe = async (): Promise<ObjectState> => {
    const current = projectObject(await getCr(admin.rest, ref), defaultProjectionSettings);
    await eventually(
      `exporter saw resourceVersion ${current.resourceVersion}`,
      async () => collector()?.store.get(current.uid)?.state.resourceVersion === current.resourceVersion,
    );
    return current;
  };
  // Kubernetes timestamps are whole seconds: the next write waits for a new
  // second to begin (the last one was stamped no later than now), so each step has its own.
  const pause = async () => {
    const writtenSecond = Math.floor(Date.now() / 1000);
    await eventually("a new wall-clock second", async () => Math.floor(Date.now() / 1000) > writtenSecond);
  };

  try {
    await createCr(admin.rest, ref, "w1", { size: 1 });
    const created = await observe();
    await pause();
    await patchStatus(admin.rest, ref, {
      observedGeneration: 1,
      phase: "Provisioning",
      conditions: [
        condition("Progressing", "True", "InProgress", "creating the widget"),
        condition("Ready", "False", "Pending", "waiting for the widget"),
      ],
    });
    const provisioning = await observe();
    await pause();
    const readyAt = new Date();
    await patchStatus(admin.rest, ref, {
      observedGeneration: 1,
      phase: "Running",
      conditions: [
        condition("Progressing", "False", "Done", "", undefined, readyAt),
        condition("Ready", "True", "Succeeded", "", 1, readyAt),
      ],
    });
    const ready1 = await observe();
    await pause();
    await changeSpec(admin.rest, ref, { size: 2 });
    const bumped = await observe();
    assert.equal(bumped.generation, 2);
    await pause();
    // The controller catches up: Ready stays True (same lastTransitionTime), observedGeneration moves.
    await patchStatus(admin.rest, ref, {
      observedGeneration: 2,
      phase: "Running",
      conditions: [
        condition("Progressing", "False", "Done", "", undefined, readyAt),
        condition("Ready", "True", "Succeeded", "", 2, readyAt),
      ],
    });
    const ready2 = await observe();

    const uid = created.uid;
    const key1 = generationTraceKey(cluster, uid, 1);
    const key2 = generationTraceKey(cluster, uid, 2);
    assert.equal(
      tracer.traceIdFor(uid, collector()?.store.get(uid)?.trace, 2),
      traceIdOf(key2),
      "the exemplar trace id, from the object's record in its store entry",
    );
    const om = await (
      await fetch(`${exporter.url}/metrics`, { headers: { Accept: "application/openmetrics-text" } })
    ).text();
    const exemplar = om
      .split("\n")
      .find((l) => l.startsWith("cr_reconcile_duration_seconds_bucket") && l.includes("trace_id"));
    assert.ok(
      exemplar?.includes(`trace_id="${traceIdOf(key2)}"`),
      `reconcile-duration exemplar names the trace: ${exemplar}`,
    );
    const health = (await handle.scrape()).samples;
    assert.equal(health.get("cr_exporter_tracing_leader"), 1);
    assert.equal(health.get("cr_exporter_tracing_spans_emitted_total"), 6, "4 spans of generation 1, 2 of 2");
    assert.equal(health.get("cr_exporter_tracing_spans_deduplicated_total"), 0);
    assert.equal(health.get("cr_exporter_tracing_open_episodes"), 0);
    // Stopping flushes the batch to Jaeger.
    await exporter.stop();

    const trace1 = await jaeger.waitForTrace(traceIdOf(key1), 4);
    const trace2 = await jaeger.waitForTrace(traceIdOf(key2), 2);
    console.error(`# generation 1 as Jaeger returned it:\n${render(trace1)}`);
    console.error(`# generation 2 as Jaeger returned it:\n${render(trace2)}`);

    // Generation 1: created → Progressing/Ready=False → Ready=True.
    assert.deepEqual(trace1.spans.map((s) => s.operationName).sort(), [
      "Widget generation",
      "condition Progressing",
      "condition Ready",
      "phase Provisioning",
    ]);
    const root1 = byName(trace1, "Widget generation");
    assert.equal(root1.spanID, spanIdOf(key1, "root"));
    assert.deepEqual(root1.references, []);
    assert.equal(root1.startTime, (created.creationTimestamp ?? 0) * 1e6);
    const ready1Since = ready1.conditions.find((c) => c.type === "Ready")?.lastTransitionTime ?? 0;
    assert.equal(root1.startTime + root1.duration, ready1Since * 1e6);
    assert.equal(tag(root1, attr.OUTCOME), "ready");
    assert.equal(tag(root1, attr.K8S_OBJECT_NAME), "w1");
    assert.equal(tag(root1, attr.K8S_NAMESPACE_NAME), ns);
    assert.equal(tag(root1, attr.K8S_OBJECT_UID), uid);
    assert.equal(tag(root1, attr.K8S_OBJECT_API_VERSION), "example.com/v1");
    assert.equal(tag(root1, attr.K8S_OBJECT_GENERATION), 1);
    const process1 = trace1.processes[root1.processID];
    assert.equal(process1?.serviceName, "cr-status-exporter-e2e");
    assert.equal(process1?.tags.find((t) => t.key === attr.K8S_CLUSTER_NAME)?.value, cluster);

    const notReadySince = provisioning.conditions.find((c) => c.type === "Ready")?.lastTransitionTime;
    const progressingSince = provisioning.conditions.find(
      (c) => c.type === "Progressing",
    )?.lastTransitionTime;
    const expectedChildren = [
      ["condition Ready", notReadySince, spanIdOf(key1, `cond=Ready|since=${notReadySince}|status=False`)],
      [
        "condition Progressing",
        progressingSince,
        spanIdOf(key1, `cond=Progressing|since=${progressingSince}|status=True`),
      ],
    ] as const;
    for (const [name, since, spanId] of expectedChildren) {
      const child = byName(trace1, name);
      assert.equal(child.spanID, spanId, name);
      assert.deepEqual(child.references, [
        { refType: "CHILD_OF", traceID: trace1.traceID, spanID: root1.spanID },
      ]);
      assert.equal(child.startTime, (since ?? 0) * 1e6);
      assert.equal(child.startTime + child.duration, ready1Since * 1e6);
    }
    assert.equal(tag(byName(trace1, "condition Ready"), attr.CONDITION_REASON), "Pending");
    assert.equal(tag(byName(trace1, "condition Ready"), attr.CONDITION_MESSAGE), "waiting for the widget");
    const phase1 = byName(trace1, "phase Provisioning");
    assert.deepEqual(phase1.references, [
      { refType: "CHILD_OF", traceID: trace1.traceID, spanID: root1.spanID },
    ]);
    assert.equal(tag(phase1, attr.NEXT_PHASE), "Running");

    // Generation 2: spec change → observedGeneration catches up; linked to generation 1.
    assert.deepEqual(trace2.spans.map((s) => s.operationName).sort(), ["Widget generation", "phase Running"]);
    const root2 = byName(trace2, "Widget generation");
    assert.equal(root2.spanID, spanIdOf(key2, "root"));
    assert.deepEqual(root2.references, [
      { refType: "FOLLOWS_FROM", traceID: traceIdOf(key1), spanID: spanIdOf(key1, "root") },
    ]);
    assert.equal(
      root2.startTime,
      (bumped.specChangedAt ?? 0) * 1e6,
      "starts at the spec write (managedFields)",
    );
    assert.equal(tag(root2, attr.START_SOURCE), "spec_change");
    assert.equal(
      tag(root2, attr.END_SOURCE),
      "observed",
      "Ready stayed True: ends when the catch-up is seen",
    );
    assert.equal(tag(root2, attr.OBSERVED_GENERATION), 2);
    assert.equal(ready2.observedGeneration, 2);
    const phase2 = byName(trace2, "phase Running");
    assert.equal(phase2.startTime, root2.startTime, "Running was held since before the spec change");
    assert.equal(phase2.duration, root2.duration);
  } finally {
    await exporter.stop();
  }
}
