// Two replicas of one exporter pushing OTLP metrics with a Lease
// (otlpMetrics.leaseName), on a real kube-apiserver, through a real
// OpenTelemetry Collector into a real Prometheus 3: only the Lease holder
// pushes (the other counts its exports as skipped), so Prometheus holds each
// series from one instance; when the holder stops, it releases the Lease and
// the other takes over at once. Each replica is its own service.instance.id,
// so a change of leader starts series of the new instance with their own
// start time instead of continuing the old one's counters silently.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { condition, createCr, installCrd, patchStatus, refFor, useControlPlane } from "../cluster/index.ts";
import { Collector } from "../otelcol/index.ts";
import { PrometheusServer } from "../prometheus/server.ts";
import { type ExporterHandle, eventually, runExporter } from "../support/exporter.ts";

const testbed = useControlPlane();
let prometheus: PrometheusServer;
let collector: Collector;

before(async () => {
  await installCrd((await testbed.ready()).admin.rest, "widgets");
  prometheus = await PrometheusServer.start({ major: "3", otlp: {} });
  collector = await Collector.start(prometheus.otlpMetricsUrl);
});

after(async () => {
  await collector?.stop();
  await prometheus?.stop();
});

async function exports(handle: ExporterHandle, result: string): Promise<number> {
  return (
    (await handle.scrape()).samples.get(`cr_exporter_otlp_metrics_exports_total{result="${result}"}`) ?? 0
  );
}

/** The instances Prometheus holds fresh (last 5 s) cr_status samples of `namespace` from. */
async function pushingInstances(namespace: string): Promise<string[]> {
  const samples = await prometheus.query(
    `count by (instance) (count_over_time(cr_status{k8s_namespace_name="${namespace}"}[5s]))`,
  );
  return samples.map((s) => s.metric.instance as string).sort();
}

test("two replicas with a Lease: one pushes, the other skips; the holder stops and the other takes over at once", async (t) => {
  const { admin } = testbed.plane;
  const ns = await testbed.plane.createNamespace("otlp-replicas");
  for (const name of ["w1", "w2"]) {
    const ref = refFor("widgets", ns, name);
    await createCr(admin.rest, ref, name, { size: 1 });
    await patchStatus(admin.rest, ref, {
      observedGeneration: 1,
      conditions: [condition("Ready", "True", "Ready")],
    });
  }
  const config = {
    resources: [{ group: "example.com", resource: "widgets", namespaces: [ns] }],
    otlpMetrics: {
      endpoint: collector.otlpEndpoint,
      interval: "1s",
      leaseName: "otlp-push",
      leaseNamespace: ns,
    },
  };
  const replicas = new Map<string, ExporterHandle>();
  t.after(async () => {
    await Promise.all([...replicas.values()].map((r) => r.stop()));
  });
  // One after the other, so the first one's Lease is taken before the second asks.
  for (const name of ["replica-a", "replica-b"]) {
    replicas.set(name, await runExporter(testbed.plane.kubeconfigPath, config, { env: { POD_NAME: name } }));
    await eventually(`${name} exports or skips`, async () => {
      const handle = replicas.get(name) as ExporterHandle;
      return (await exports(handle, "success")) + (await exports(handle, "skipped")) > 0;
    });
  }
  const counts = async () =>
    Object.fromEntries(
      await Promise.all(
        [...replicas].map(
          async ([name, h]) =>
            [name, { pushed: await exports(h, "success"), skipped: await exports(h, "skipped") }] as const,
        ),
      ),
    );
  // Three more intervals: the holder's successes grow, the other's stay at 0 while its skips grow.
  const before = await counts();
  const during = await eventually("three more intervals on both", async () => {
    const now = await counts();
    return (
      Object.keys(now).every((n) => {
        const c = now[n] as { pushed: number; skipped: number };
        const b = before[n] as { pushed: number; skipped: number };
        return c.pushed + c.skipped >= b.pushed + b.skipped + 3;
      }) && now
    );
  });
  const leader = Object.keys(during).find((n) => (during[n]?.pushed ?? 0) > 0) as string;
  const follower = leader === "replica-a" ? "replica-b" : "replica-a";
  assert.ok(leader, `one replica pushes: ${JSON.stringify(during)}`);
  assert.equal(during[follower]?.pushed, 0, `the other never pushed: ${JSON.stringify(during)}`);
  assert.ok((during[follower]?.skipped ?? 0) >= 3, `the other skips: ${JSON.stringify(during)}`);
  await eventually(
    "the holder's series in Prometheus",
    async () => (await pushingInstances(ns)).join() === leader,
    20_000,
  );
  assert.deepEqual(await pushingInstances(ns), [leader], "Prometheus holds the series from the holder only");

  // The holder stops: its last flush, then the Lease is released and the other pushes within a few intervals.
  const stoppedAt = performance.now();
  await (replicas.get(leader) as ExporterHandle).stop();
  replicas.delete(leader);
  const successor = replicas.get(follower) as ExporterHandle;
  // A Lease left to expire would take its 15 s duration.
  await eventually("the other replica pushes", async () => (await exports(successor, "success")) > 0, 12_000);
  const tookMs = performance.now() - stoppedAt;
  assert.ok(
    tookMs < 10_000,
    `took over after ${Math.round(tookMs)} ms (the Lease is released on stop, not left to expire)`,
  );
  await eventually(
    "only the new holder's series are fresh",
    async () => (await pushingInstances(ns)).join() === follower,
    20_000,
  );
  t.diagnostic(
    `${leader} pushed ${during[leader]?.pushed}, ${follower} skipped ${during[follower]?.skipped}; took over in ${Math.round(tookMs)} ms`,
  );
});
