// Tracing by ownership: three shard processes export spans to a real Jaeger
// through OTLP/HTTP, with no Lease. Every rollout (a generation from its
// spec write to Ready) becomes exactly one trace, exported by the shard that
// owns the object and by no other; no span arrives twice.
import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { before, test } from "node:test";
import { stringify } from "yaml";
import { shardOfUid } from "../../src/core/shard.ts";
import { generationTraceKey, traceIdOf } from "../../src/tracing/ids.ts";
import { changeSpec, condition, installCrd, patchStatus, refFor, useControlPlane } from "../cluster/index.ts";
import { type JaegerTrace, useJaeger } from "../jaeger/index.ts";
import { eventually } from "../support/exporter.ts";
import { createWidgets, inBatches, startExporter, startTracingShards } from "../support/shard-fleet.ts";

const testbed = useControlPlane();
const backend = useJaeger();

before(async () => {
  await installCrd((await testbed.ready()).admin.rest, "widgets");
});

function sample(text: string, name: string): number {
  const line = text.split("\n").find((l) => l.startsWith(`${name} `));
  return line ? Number(line.slice(name.length + 1)) : Number.NaN;
}

test("three shards, no Lease: every rollout is exactly one trace, exported by the object's shard only", async (t) => {
  const plane = testbed.plane;
  const { jaeger } = backend;
  const rest = plane.admin.rest;
  const ns = await plane.createNamespace("traced-shards");
  const cluster = `shards-${randomBytes(3).toString("hex")}`;
  const service = `cr-status-exporter-${cluster}`;
  const config = join(plane.directory, "traced-shards.yaml");
  writeFileSync(
    config,
    stringify({
      resources: [{ group: "example.com", resource: "widgets", namespaces: [ns] }],
      tracing: { endpoint: jaeger.otlpEndpoint, clusterName: cluster },
    }),
  );
  const shards = await startTracingShards(t, plane.kubeconfigPath, config, service);

  // Rollouts: generation 1 from creation to Ready, then a spec change caught up.
  const names = Array.from({ length: 15 }, (_, i) => `w${i}`);
  await createWidgets(rest, ns, names);
  await inBatches(names, 8, async (name) => {
    const ref = refFor("widgets", ns, name);
    await patchStatus(rest, ref, {
      observedGeneration: 1,
      phase: "Running",
      conditions: [condition("Ready", "True", "Succeeded", "", 1)],
    });
    const changed = await changeSpec(rest, ref, { size: 2 });
    await patchStatus(rest, ref, {
      observedGeneration: changed.metadata.generation,
      phase: "Running",
      conditions: [condition("Ready", "True", "Succeeded", "", changed.metadata.generation)],
    });
  });
  const list = await rest.get<{ items: { metadata: { name: string; uid: string } }[] }>(
    `/apis/example.com/v1/namespaces/${ns}/widgets`,
  );
  const rollouts = list.items.flatMap((w) =>
    [1, 2].map((generation) => ({
      object: `${w.metadata.name} generation ${generation}`,
      traceId: traceIdOf(generationTraceKey(cluster, w.metadata.uid, generation)),
      shard: shardOfUid(w.metadata.uid, 3),
    })),
  );

  // Every expected trace arrives, with its root.
  const traces = new Map<string, JaegerTrace>();
  await eventually(
    `the ${rollouts.length} rollout traces in Jaeger`,
    async () => {
      for (const r of rollouts) {
        if (traces.has(r.traceId)) continue;
        const trace = await jaeger.getTrace(r.traceId);
        if (trace?.spans.some((s) => s.operationName === "Widget generation")) traces.set(r.traceId, trace);
      }
      return traces.size === rollouts.length;
    },
    60_000,
  );
  // Spans still in a batch after the roots: read every trace once more after the shards flush.
  await Promise.all(shards.map((s) => s.stop()));
  for (const r of rollouts) traces.set(r.traceId, (await jaeger.getTrace(r.traceId)) as JaegerTrace);

  // Nothing else was traced: the service's traces are exactly the rollouts.
  const search = (await (
    await fetch(`${jaeger.queryUrl}/api/traces?service=${service}&limit=1000&lookback=1h`)
  ).json()) as { data: JaegerTrace[] };
  assert.deepEqual(
    search.data.map((trace) => trace.traceID).sort(),
    rollouts.map((r) => r.traceId).sort(),
    "one trace per rollout, and no other",
  );
  let spans = 0;
  for (const r of rollouts) {
    const trace = traces.get(r.traceId) as JaegerTrace;
    const roots = trace.spans.filter((s) => s.operationName === "Widget generation");
    assert.equal(roots.length, 1, `${r.object}: one root`);
    const ids = trace.spans.map((s) => s.spanID);
    assert.equal(new Set(ids).size, ids.length, `${r.object}: no span twice`);
    const exporters = new Set(
      trace.spans.map(
        (s) => trace.processes[s.processID]?.tags.find((tag) => tag.key === "cr_status.test.shard")?.value,
      ),
    );
    assert.deepEqual([...exporters], [String(r.shard)], `${r.object}: exported by shard ${r.shard} only`);
    spans += ids.length;
  }
  t.diagnostic(`${rollouts.length} rollouts → ${traces.size} traces, ${spans} spans`);
});

test("each shard counts as the exporter of its own spans, without a Lease", async (t) => {
  const plane = testbed.plane;
  const ns = await plane.createNamespace("traced-leader");
  const config = join(plane.directory, "traced-leader.yaml");
  writeFileSync(
    config,
    stringify({
      resources: [{ group: "example.com", resource: "widgets", namespaces: [ns] }],
      tracing: { endpoint: backend.jaeger.otlpEndpoint },
    }),
  );
  const shard = await startExporter("shard 2", plane.kubeconfigPath, config, [
    "--shard",
    "2",
    "--total-shards",
    "3",
  ]);
  t.after(() => shard.stop());
  await shard.ready();
  const text = await shard.metrics();
  assert.equal(sample(text, "cr_exporter_tracing_leader"), 1);
  assert.match(shard.process.lines.join("\n"), /"msg":"tracing on".*"leaderElection":"off"/);
});
