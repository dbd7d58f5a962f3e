// The OTLP metrics export end to end, on a real kube-apiserver: the exporter
// pushes over OTLP/HTTP to a real OpenTelemetry Collector (otlp receiver,
// batch processor, otlphttp exporter; test/otelcol), which forwards to a real
// Prometheus 3 with its OTLP receiver (--web.enable-otlp-receiver, the
// default translation strategy UnderscoreEscapingWithSuffixes). Checked:
// every per-object series of /metrics arrives with an equal value and its
// attributes (k8s.namespace.name as k8s_namespace_name), for http/protobuf
// and http/json; a condition change arrives within one interval; and a
// collector stopped for 30 s then started again: the exports resume, no
// sample repeats, and nothing piled up meanwhile.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { condition, createCr, installCrd, patchStatus, refFor, useControlPlane } from "../cluster/index.ts";
import { Collector } from "../otelcol/index.ts";
import type { PromSample } from "../prometheus/server.ts";
import { PrometheusServer } from "../prometheus/server.ts";
import { eventually, runExporter } from "../support/exporter.ts";

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

/** A series as /metrics names it: `name{a="x",b="y"}` with the labels sorted, empty ones left out. */
function key(name: string, labels: Record<string, string>): string {
  const body = Object.entries(labels)
    .filter(([, v]) => v !== "")
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([k, v]) => `${k}="${v}"`)
    .join(",");
  return `${name}{${body}}`;
}

/** The per-object series of one namespace on /metrics, keyed as key() does. */
function perObject(samples: Map<string, number>, namespace: string): Map<string, number> {
  const out = new Map<string, number>();
  for (const [series, value] of samples) {
    const match = /^([a-z_]+)\{(.*)\}$/.exec(series);
    if (!match) continue;
    const labels = Object.fromEntries(
      [...(match[2] as string).matchAll(/([a-z_]+)="((?:[^"\\]|\\.)*)"/g)].map((m) => [m[1], m[2]]),
    ) as Record<string, string>;
    if (labels.namespace !== namespace) continue;
    out.set(key(match[1] as string, labels), value);
  }
  return out;
}

/** Prometheus' samples back in /metrics' terms: k8s_namespace_name is namespace again, job and instance dropped. */
function fromPrometheus(samples: PromSample[]): Map<string, number> {
  const out = new Map<string, number>();
  for (const s of samples) {
    const {
      __name__: name,
      job: _job,
      instance: _instance,
      k8s_namespace_name: namespace,
      ...rest
    } = s.metric;
    out.set(key(name as string, { ...rest, namespace: namespace ?? "" }), Number(s.value?.[1]));
  }
  return out;
}

async function widgets(namespace: string): Promise<void> {
  const { admin } = testbed.plane;
  for (const [name, status] of [
    ["w1", "False"],
    ["w2", "True"],
    ["w3", "Unknown"],
  ] as const) {
    const ref = refFor("widgets", namespace, name);
    await createCr(admin.rest, ref, name, { size: 1 });
    await patchStatus(admin.rest, ref, {
      observedGeneration: 1,
      phase: status === "True" ? "Running" : "Pending",
      conditions: [condition("Ready", status, status === "True" ? "Ready" : "Waiting")],
    });
  }
}

for (const protocol of ["http/protobuf", "http/json"] as const) {
  test(`every per-object series of /metrics arrives in Prometheus 3 through the Collector, equal (OTLP ${protocol})`, async () => {
    const ns = await testbed.plane.createNamespace("otlp");
    await widgets(ns);
    const instance = `e2e-${protocol.replace("/", "-")}`;
    const handle = await runExporter(
      testbed.plane.kubeconfigPath,
      {
        resources: [{ group: "example.com", resource: "widgets", namespaces: [ns] }],
        metrics: { optIn: ["cr_condition_transitions_total", "cr_spec_generation_changes_total"] },
        otlpMetrics: { endpoint: collector.otlpEndpoint, interval: "2s", compression: "gzip" },
      },
      { env: { OTEL_EXPORTER_OTLP_METRICS_PROTOCOL: protocol, POD_NAME: instance } },
    );
    try {
      const exporter = handle.exporter;
      assert.ok(exporter.otlpMetrics, "the OTLP metrics export is on");
      assert.match(
        handle.logs.join("\n"),
        new RegExp(
          `"msg":"OTLP metrics export on","url":"${collector.otlpEndpoint}/v1/metrics","protocol":"${protocol}"`,
        ),
      );
      const expected = await eventually(
        "the three widgets on /metrics",
        async () => {
          const series = perObject((await handle.scrape()).samples, ns);
          return [...series.keys()].filter((k) => k.startsWith("cr_status{")).length === 3 && series;
        },
        20_000,
      );
      // Every per-object series, equal, with k8s.namespace.name for namespace.
      const arrived = await eventually(
        "every per-object series in Prometheus",
        async () => {
          const got = fromPrometheus(
            await prometheus.query(`{k8s_namespace_name="${ns}", instance="${instance}"}`),
          );
          return [...expected].every(([k, v]) => got.get(k) === v) && got;
        },
        30_000,
      ).catch(async (error) => {
        const got = fromPrometheus(
          await prometheus.query(`{k8s_namespace_name="${ns}", instance="${instance}"}`),
        );
        const missing = [...expected].filter(([k, v]) => got.get(k) !== v).slice(0, 10);
        throw new Error(
          `${error}\nmissing or different (first 10): ${JSON.stringify(missing)}\ngot ${got.size}: ${JSON.stringify([...got].slice(0, 5))}\n${collector.logTail(15)}`,
        );
      });
      assert.equal(arrived.size, expected.size, "no series beyond /metrics' per-object ones");
      assert.ok(expected.size >= 30, `${expected.size} per-object series`);
      // The resource: service.name is the job, the pod name the instance.
      const [info] = await prometheus.query(`target_info{instance="${instance}"}`);
      assert.equal(info?.metric.job, "cr-status-exporter");
      assert.equal(info?.metric.k8s_pod_name, instance);

      // A condition change arrives within one interval of the store holding it.
      const ref = refFor("widgets", ns, "w1");
      await patchStatus(testbed.plane.admin.rest, ref, {
        conditions: [condition("Ready", "True", "Ready")],
      });
      const seen = await eventually("the exporter saw w1 Ready", async () => {
        const text = (await handle.scrape()).text;
        return (
          text.includes(
            `cr_condition{group="example.com",kind="Widget",namespace="${ns}",name="w1",type="Ready",status="True"} 1`,
          ) && performance.now()
        );
      });
      const query = `cr_condition{k8s_namespace_name="${ns}", name="w1", status="True", instance="${instance}"}`;
      await eventually(
        "w1 Ready=True in Prometheus",
        async () => (await prometheus.query(query)).length === 1,
        10_000,
      );
      const delay = performance.now() - seen;
      // One interval (2 s), plus the collector's batch timeout (200 ms) and the polling.
      assert.ok(delay < 2_000 + 1_000, `the change arrived ${Math.round(delay)} ms after the store held it`);
      const report = exporter.otlpMetrics.lastReport;
      assert.equal(report?.result, "success", JSON.stringify(report));
    } finally {
      await handle.stop();
    }
  });
}

test("a collector stopped for 30 s: the exports fail without piling up, resume after, and no sample repeats", async () => {
  const ns = await testbed.plane.createNamespace("otlp-outage");
  await widgets(ns);
  const instance = "e2e-outage";
  const handle = await runExporter(
    testbed.plane.kubeconfigPath,
    {
      resources: [{ group: "example.com", resource: "widgets", namespaces: [ns] }],
      otlpMetrics: { endpoint: collector.otlpEndpoint, interval: "1s", exportTimeout: "2s", timeout: "1s" },
    },
    { env: { POD_NAME: instance } },
  );
  const exports = async (result: string): Promise<number> =>
    (await handle.scrape()).samples.get(`cr_exporter_otlp_metrics_exports_total{result="${result}"}`) ?? 0;
  const series = `cr_status{k8s_namespace_name="${ns}", name="w2", instance="${instance}"}`;
  try {
    const exporter = handle.exporter;
    const otlp = exporter.otlpMetrics;
    assert.ok(otlp);
    await eventually("w2 in Prometheus", async () => (await prometheus.query(series)).length === 1, 30_000);
    const healthy = otlp.lastReport;
    assert.equal(healthy?.result, "success");
    const pausedAt = Date.now();
    const heapBefore = process.memoryUsage().heapUsed;
    await collector.pause();
    const failedBefore = await exports("failure");
    // 30 s of failing exports, as the exporter counts them.
    const failures = await eventually(
      "30 s of failed exports",
      async () => {
        const failed = (await exports("failure")) - failedBefore;
        return Date.now() - pausedAt >= 30_000 && failed >= 10 && failed;
      },
      60_000,
    );
    const failing = otlp.lastReport;
    assert.equal(failing?.result, "failure", JSON.stringify(failing));
    // Nothing queued: a failed export stops at its first request, which was all it held.
    assert.ok((failing?.requests ?? 0) <= 1, JSON.stringify(failing));
    const heapGrowth = process.memoryUsage().heapUsed - heapBefore;
    await collector.resume();
    const resumedAt = Date.now();
    const successBefore = await exports("success");
    await eventually(
      "an export succeeds again",
      async () => (await exports("success")) > successBefore,
      15_000,
    );
    await eventually("the next export is whole", async () => otlp.lastReport?.result === "success", 10_000);
    const resumed = otlp.lastReport;
    // The first export after the outage sends what one export sends: no backlog.
    assert.ok(
      (resumed?.points ?? 0) <= (healthy?.points ?? 0) * 1.2 + 20,
      `after the outage ${resumed?.points} points, before ${healthy?.points}`,
    );
    assert.ok(
      heapGrowth < 64 * 1024 * 1024,
      `heap grew ${Math.round(heapGrowth / 1048576)} MiB during the outage`,
    );
    // No sample twice: the raw samples of the last 3 minutes have distinct, increasing timestamps, a gap for the outage.
    await eventually("w2 fresh in Prometheus", async () => {
      const [s] = await prometheus.query(`timestamp(${series})`);
      return Number(s?.value?.[1]) * 1000 > pausedAt + 30_000;
    });
    const [raw] = await prometheus.query(`${series}[3m]`).then((r) => r as PromSample[]);
    const times = (raw?.values ?? []).map(([t]) => t);
    for (let i = 1; i < times.length; i++)
      assert.ok((times[i] as number) > (times[i - 1] as number), "timestamps increase");
    const gap = Math.max(...times.slice(1).map((t, i) => t - (times[i] as number)));
    // Nothing from inside the outage is delivered afterwards: a sample's time is when its export began, so
    // only an export that began up to one export timeout (2 s) before the stop, or one that began before the
    // start and retried into it, may sit near its edges.
    const inside = times.filter((t) => t * 1000 > pausedAt + 2_500 && t * 1000 < resumedAt - 3_500);
    assert.deepEqual(inside, [], "no sample from inside the outage");
    assert.ok(gap >= 25, `the outage is a ${gap} s gap`);
    console.error(
      `# outage: ${failures} failed exports in 30 s, ${times.length} samples, gap ${gap.toFixed(1)} s, heap +${Math.round(heapGrowth / 1024)} KiB`,
    );
  } finally {
    await collector.resume().catch(() => undefined);
    await handle.stop();
  }
});
