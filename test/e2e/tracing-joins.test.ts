// Traces that join up (docs/tracing.md#joins), on a real kube-apiserver with
// other projects' real CRDs and a real Jaeger: a Cluster API
// MachineDeployment → MachineSet → Machine chain (children created with
// controller ownerReferences) is one trace, each generation root the child
// of its owner's; a Flux HelmRelease labelled by its Kustomization hangs under
// the Kustomization's root; a Widget annotated with the W3C trace context of a
// span this test emitted itself appears under that span, its next generation
// (same annotation) only links to it, and a malformed annotation is counted.
// Then three shard processes (tracing.joinAcrossShards) give the trace and
// span ids predicted here, whichever shard each object lands on; and one
// unsharded process, run beside them on the same objects into a Jaeger of its
// own, gives the same traces span for span (test/jaeger/compare.ts): every
// span, the condition and phase children too, with its trace and span id,
// operation, parent, links, start, end, attributes and events, all but what a
// process takes from its own clock (a phase's start and the id keyed by it).
import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { before, test } from "node:test";
import { stringify } from "yaml";
import { shardOfUid } from "../../src/core/shard.ts";
import * as attr from "../../src/tracing/attributes.ts";
import { generationTraceKey, spanIdOf, traceIdOf } from "../../src/tracing/ids.ts";
import {
  changeSpec,
  condition,
  createCr,
  installCrd,
  patchStatus,
  refFor,
  useControlPlane,
} from "../cluster/index.ts";
import { alike, diffTraces, renderDiff, type TraceDiff } from "../jaeger/compare.ts";
import { Jaeger, type JaegerSpan, type JaegerTrace, useJaeger } from "../jaeger/index.ts";
import { realCrdsUnavailable } from "../realcrds/index.ts";
import { eventually, runExporter } from "../support/exporter.ts";
import {
  driveJoinedObjects,
  expectedTrees,
  type JoinedObjects,
  joinCrds,
  joinResources,
} from "../support/joined-objects.ts";
import { type RunningExporter, startExporter, startTracingShards } from "../support/shard-fleet.ts";

const unavailable = realCrdsUnavailable();
const testbed = useControlPlane();
const backend = useJaeger();

before(async () => {
  if (unavailable) return;
  const { rest } = (await testbed.ready()).admin;
  for (const crd of Object.values(joinCrds())) await installCrd(rest, crd);
  await installCrd(rest, "widgets");
});

const tag = (span: JaegerSpan, key: string): unknown => span.tags.find((t) => t.key === key)?.value;

/** The tree as Jaeger shows it: operation, span id, and FOLLOWS_FROM links, indented under CHILD_OF parents. */
function render(trace: JaegerTrace): string {
  const ids = new Set(trace.spans.map((s) => s.spanID));
  const lines: string[] = [];
  const describe = (s: JaegerSpan, depth: number) => {
    const links = s.references
      .filter((r) => r.refType === "FOLLOWS_FROM")
      .map((r) => ` FOLLOWS_FROM ${r.traceID.slice(0, 8)}…/${r.spanID}`)
      .join("");
    const name = tag(s, attr.K8S_OBJECT_NAME);
    lines.push(
      `${"  ".repeat(depth)}${s.operationName}${name ? ` ${String(name)}` : ""} [${s.spanID}]${links}`,
    );
    for (const child of trace.spans.filter((c) =>
      c.references.some((r) => r.refType === "CHILD_OF" && r.spanID === s.spanID),
    ))
      describe(child, depth + 1);
  };
  for (const root of trace.spans.filter(
    (s) => !s.references.some((r) => r.refType === "CHILD_OF" && ids.has(r.spanID)),
  ))
    describe(root, 0);
  return `trace ${trace.traceID}\n${lines.join("\n")}`;
}

/** Waits for both trees in Jaeger and checks every root's trace, span id and parent. */
async function checkTrees(
  jaeger: JaegerHandleLike,
  objects: JoinedObjects,
  diagnostic: (text: string) => void,
): Promise<Map<string, JaegerTrace>> {
  const found = new Map<string, JaegerTrace>();
  for (const tree of expectedTrees(objects).traces) {
    let trace: JaegerTrace | undefined;
    await eventually(
      `trace ${tree.traceId} with ${tree.spans.map((s) => s.root.operation).join(", ")}`,
      async () => {
        trace = await jaeger.getTrace(tree.traceId);
        return tree.spans.every((s) => trace?.spans.some((j) => j.spanID === s.root.spanId));
      },
      60_000,
    ).catch((error) => {
      throw new Error(`${(error as Error).message}\n${trace ? render(trace) : "(no trace)"}`);
    });
    const t = trace as JaegerTrace;
    diagnostic(render(t));
    for (const { root, parent } of tree.spans) {
      const span = t.spans.find((s) => s.spanID === root.spanId) as JaegerSpan;
      assert.equal(span.operationName, root.operation);
      assert.equal(span.traceID, tree.traceId, `${root.name}: in the tree's trace`);
      assert.equal(tag(span, attr.OUTCOME), "ready", `${root.name}: reconciled`);
      const childOf = span.references.filter((r) => r.refType === "CHILD_OF");
      if (parent) {
        assert.deepEqual(
          childOf.map((r) => [r.traceID, r.spanID]),
          [[tree.traceId, parent.spanId]],
          `${root.name}: a child of ${parent.name}'s root`,
        );
        assert.equal(tag(span, attr.PARENT), root.operation.startsWith("HelmRelease") ? "source" : "owner");
      } else assert.deepEqual(childOf, [], `${root.name}: the tree's root`);
      // The root's own children (condition and phase spans) hang under it, in the same trace.
      for (const child of t.spans.filter((s) =>
        s.references.some((r) => r.spanID === root.spanId && r.refType === "CHILD_OF"),
      )) {
        assert.equal(child.traceID, tree.traceId);
      }
    }
    found.set(tree.traceId, t);
  }
  return found;
}

interface JaegerHandleLike {
  getTrace(traceId: string): Promise<JaegerTrace | undefined>;
}

test("one exporter: owner chain and source pair are one tree each; a trace context parents, repeats link, malformed is counted", {
  skip: unavailable,
}, async (t) => {
  const plane = testbed.plane;
  const { jaeger } = backend;
  const rest = plane.admin.rest;
  const ns = await plane.createNamespace("joins");
  const cluster = `joins-${randomBytes(3).toString("hex")}`;
  const handle = await runExporter(
    plane.kubeconfigPath,
    {
      resources: [...joinResources(ns), { group: "example.com", resource: "widgets", namespaces: [ns] }],
      tracing: { endpoint: jaeger.otlpEndpoint, clusterName: cluster },
    },
    { env: { OTEL_SERVICE_NAME: `cr-status-exporter-${cluster}`, OTEL_BSP_SCHEDULE_DELAY: "200" } },
  );
  t.after(() => handle.stop());
  await eventually("exporter ready", async () => (await fetch(`${handle.exporter.url}/readyz`)).ok, 60_000);
  const seen = (kind: string, name: string) =>
    eventually(
      `the exporter to see ${kind} ${name}`,
      async () => {
        const { text } = await handle.scrape();
        return text.includes(`kind="${kind}",namespace="${ns}",name="${name}"`);
      },
      20_000,
    );

  const objects = await driveJoinedObjects(rest, joinCrds(), ns, cluster, "a", seen);
  await checkTrees(jaeger, objects, (text) => t.diagnostic(text));

  // The request that started it: a span this test emits itself, then a Widget annotated with its context.
  const requestTrace = randomBytes(16).toString("hex");
  const requestSpan = randomBytes(8).toString("hex");
  const nowNs = BigInt(Date.now()) * 1_000_000n;
  const posted = await fetch(`${jaeger.otlpEndpoint}/v1/traces`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({
      resourceSpans: [
        {
          resource: { attributes: [{ key: "service.name", value: { stringValue: "e2e-deployer" } }] },
          scopeSpans: [
            {
              scope: { name: "tracing-joins.test" },
              spans: [
                {
                  traceId: requestTrace,
                  spanId: requestSpan,
                  name: "deploy widget",
                  kind: 3,
                  startTimeUnixNano: String(nowNs - 500_000_000n),
                  endTimeUnixNano: String(nowNs),
                },
              ],
            },
          ],
        },
      ],
    }),
  });
  assert.equal(posted.status, 200, await posted.text());
  const context = JSON.stringify({
    traceparent: `00-${requestTrace}-${requestSpan}-01`,
    tracestate: "e2e=joins",
  });
  const widget = refFor("widgets", ns, "requested");
  const created = await createCr(
    rest,
    widget,
    "requested",
    { size: 1 },
    {
      annotations: { "opentelemetry.io/trace-context": context },
    },
  );
  await seen("Widget", "requested");
  await patchStatus(rest, widget, {
    observedGeneration: 1,
    conditions: [condition("Ready", "False", "Provisioning", "", 1)],
  });
  await patchStatus(rest, widget, {
    observedGeneration: 1,
    conditions: [condition("Ready", "True", "Succeeded", "", 1)],
  });
  const uid = created.metadata.uid as string;
  const gen1 = generationTraceKey(cluster, uid, 1);
  const requested = await jaeger.waitForTrace(requestTrace, 3, 30_000);
  t.diagnostic(render(requested));
  const root1 = requested.spans.find((s) => s.spanID === spanIdOf(gen1, "root"));
  assert.ok(root1, render(requested));
  assert.deepEqual(
    root1.references.filter((r) => r.refType === "CHILD_OF").map((r) => [r.traceID, r.spanID]),
    [[requestTrace, requestSpan]],
    "generation 1 hangs under the request's span",
  );
  assert.equal(tag(root1, attr.PARENT), "request");
  const child = requested.spans.find((s) => s.operationName === "condition Ready");
  assert.ok(child?.references.some((r) => r.refType === "CHILD_OF" && r.spanID === root1.spanID));

  // The next generation, same annotation: a trace of its own, linked to the request and to generation 1.
  const changed = await changeSpec(rest, widget, { size: 2 });
  assert.equal(changed.metadata.generation, 2);
  await patchStatus(rest, widget, {
    observedGeneration: 2,
    conditions: [condition("Ready", "True", "Succeeded", "", 2)],
  });
  const gen2 = generationTraceKey(cluster, uid, 2);
  const second = await jaeger.waitForTrace(traceIdOf(gen2), 1, 30_000);
  t.diagnostic(render(second));
  const root2 = second.spans.find((s) => s.spanID === spanIdOf(gen2, "root")) as JaegerSpan;
  assert.deepEqual(
    root2.references.filter((r) => r.refType === "CHILD_OF"),
    [],
    "not merged under the request",
  );
  assert.deepEqual(
    root2.references
      .filter((r) => r.refType === "FOLLOWS_FROM")
      .map((r) => [r.traceID, r.spanID])
      .sort(),
    [
      [requestTrace, requestSpan],
      [requestTrace, spanIdOf(gen1, "root")],
    ].sort(),
    "links: the request, and generation 1 where it went (the request's trace)",
  );

  // A malformed annotation: ignored (a trace of its own) and counted.
  const bad = refFor("widgets", ns, "garbled");
  const garbled = await createCr(
    rest,
    bad,
    "garbled",
    { size: 1 },
    {
      annotations: { "opentelemetry.io/trace-context": "00-not-a-traceparent" },
    },
  );
  await seen("Widget", "garbled");
  await patchStatus(rest, bad, {
    observedGeneration: 1,
    conditions: [condition("Ready", "True", "Succeeded", "", 1)],
  });
  await jaeger.waitForTrace(
    traceIdOf(generationTraceKey(cluster, garbled.metadata.uid as string, 1)),
    1,
    30_000,
  );
  const { samples } = await handle.scrape();
  assert.equal(samples.get("cr_exporter_tracing_trace_context_malformed_total"), 1);
});

test("three shards (tracing.joinAcrossShards): the same trees, trace and span ids, whichever shard each object is on, and span for span what one process exports", {
  skip: unavailable,
}, async (t) => {
  const plane = testbed.plane;
  const { jaeger } = backend;
  const rest = plane.admin.rest;
  const ns = await plane.createNamespace("joins-shards");
  const cluster = `joins-shards-${randomBytes(3).toString("hex")}`;
  const service = `cr-status-exporter-${cluster}`;
  const configFor = (name: string, endpoint: string) => {
    const path = join(plane.directory, name);
    writeFileSync(
      path,
      stringify({
        resources: joinResources(ns),
        tracing: { endpoint, clusterName: cluster, joinAcrossShards: true },
      }),
    );
    return path;
  };
  // One unsharded process on the same objects, into a Jaeger of its own.
  const single = await Jaeger.start();
  const alone = await startExporter(
    "one process",
    plane.kubeconfigPath,
    configFor("joins-single.yaml", single.otlpEndpoint),
    [],
    { OTEL_SERVICE_NAME: service, OTEL_BSP_SCHEDULE_DELAY: "200" },
  ).catch(async (error) => {
    await single.stop();
    throw error;
  });
  t.after(async () => {
    await alone.stop();
    await single.stop();
  });
  const shards = await startTracingShards(
    t,
    plane.kubeconfigPath,
    configFor("joins-shards.yaml", jaeger.otlpEndpoint),
    service,
  );
  await alone.ready();
  const knows = (exporter: RunningExporter, kind: string, name: string) =>
    eventually(
      `${exporter.label} to see ${kind} ${name}`,
      async () => (await exporter.metrics()).includes(`kind="${kind}",namespace="${ns}",name="${name}"`),
      30_000,
    );
  // A child is created once its parent is known to its shard and to the single process alike.
  const seen = async (kind: string, name: string, uid: string) => {
    await knows(shards[shardOfUid(uid, 3)] as RunningExporter, kind, name);
    await knows(alone, kind, name);
  };
  const crds = joinCrds();
  const runs = [
    await driveJoinedObjects(rest, crds, ns, cluster, "a", seen),
    await driveJoinedObjects(rest, crds, ns, cluster, "b", seen),
  ];
  let crossing = 0;
  for (const objects of runs) {
    const traces = await checkTrees(jaeger, objects, (text) => t.diagnostic(text));
    for (const tree of expectedTrees(objects).traces) {
      const trace = traces.get(tree.traceId) as JaegerTrace;
      for (const { root, parent } of tree.spans) {
        const span = trace.spans.find((s) => s.spanID === root.spanId) as JaegerSpan;
        const exporter = trace.processes[span.processID]?.tags.find(
          (x) => x.key === "cr_status.test.shard",
        )?.value;
        assert.equal(
          String(exporter),
          String(shardOfUid(root.uid, 3)),
          `${root.name}: exported by its own shard`,
        );
        if (parent && shardOfUid(parent.uid, 3) !== shardOfUid(root.uid, 3)) crossing++;
      }
    }
  }
  t.diagnostic(`${crossing} of 6 parent/child pairs on different shards`);
  assert.ok(crossing > 0, "at least one join crosses shards");

  // Span for span: the shards' traces against the single process's, once it holds the same spans.
  let spans = 0;
  for (const objects of runs) {
    for (const tree of expectedTrees(objects).traces) {
      let diff: TraceDiff | undefined;
      await eventually(
        `one process's trace ${tree.traceId} to hold the spans the three shards exported`,
        async () => {
          const [sharded, unsharded] = await Promise.all([
            jaeger.getTrace(tree.traceId),
            single.getTrace(tree.traceId),
          ]);
          diff = diffTraces(sharded, unsharded);
          return diff.paired > 0 && diff.onlyLeft.length === 0 && diff.onlyRight.length === 0;
        },
        60_000,
      ).catch((error) => {
        throw new Error(
          `${(error as Error).message}\n${diff ? renderDiff(diff, "three shards", "one process") : "(no trace)"}`,
        );
      });
      const d = diff as TraceDiff;
      t.diagnostic(
        `trace ${tree.traceId}: ${d.paired} spans alike; from each process's clock, not compared: ${d.clockDerived.join("; ") || "nothing"}`,
      );
      assert.ok(
        alike(d),
        `trace ${tree.traceId}: three shards and one process differ\n${renderDiff(d, "three shards", "one process")}`,
      );
      spans += d.paired;
    }
  }
  t.diagnostic(`${spans} spans in 4 traces alike in three shards and one process`);
});
