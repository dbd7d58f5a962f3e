// The composition root's own promises, without a cluster (the apiserver in
// the kubeconfig is not there; the watches just fail): what it records about
// the configuration in force, what it serves and where, what a reload says
// and applies at once, what /readyz waits for, and a stop that runs once.
// The whole app against a real apiserver runs in the e2e tests.
import assert from "node:assert/strict";
import { createServer } from "node:net";
import { test } from "node:test";
import { setImmediate as nextTurn } from "node:timers/promises";
import { InMemorySpanExporter, SimpleSpanProcessor } from "@opentelemetry/sdk-trace";
import { type App, type AppDeps, buildApp } from "../../src/app/build.ts";
import { validateConfig } from "../../src/config/validate.ts";
import { ownsUid, shardSelectorOf } from "../../src/core/shard.ts";
import { kubeConfigClass } from "../../src/kube/kubeconfig.ts";
import { createLogger } from "../../src/log.ts";
import { countersSocketPath } from "../../src/supervisor/roles.ts";
import { emptyList, fakeKubeApi, untilAborted, waitFor } from "../support/fake-kube-api.ts";
import { cond, spreadUid, widget } from "../support/objects.ts";

const widgets = {
  group: "example.com",
  version: "v1",
  resource: "widgets",
  kind: "Widget",
  namespaced: true,
};

/** A kubeconfig for an apiserver that is not there. */
async function nowhere() {
  const kubeConfig = new (await kubeConfigClass())();
  kubeConfig.loadFromClusterAndUser(
    { name: "c", server: "https://127.0.0.1:9", skipTLSVerify: true },
    { name: "u", token: "t" },
  );
  return kubeConfig;
}

async function build(raw: Record<string, unknown>, deps: Partial<AppDeps> = {}) {
  const logs: Record<string, unknown>[] = [];
  const app = await buildApp(validateConfig({ listen: "127.0.0.1:0", crdDiscovery: false, ...raw }), {
    kubeConfig: await nowhere(),
    logger: createLogger({ level: "debug", write: (line) => logs.push(JSON.parse(line)) }),
    configHash: "h1",
    env: {},
    ...deps,
  });
  return { app, logs };
}

/** The exporter's own samples whose name starts with `prefix`, as "name{labels} value" lines. */
async function selfSamples(app: App, prefix: string): Promise<string[]> {
  return (await app.metrics.registry.metrics()).split("\n").filter((l) => l.startsWith(prefix));
}

async function get(app: App, path: string): Promise<{ status: number; text: string }> {
  const response = await fetch(`${app.url}${path}`);
  return { status: response.status, text: await response.text() };
}

test("the configuration in force is shown by its hash; reloads and rejections are counted and said", async () => {
  const { app, logs } = await build({ resources: [widgets] });
  await app.start();
  try {
    assert.deepEqual(await selfSamples(app, "cr_exporter_config_"), [
      "cr_exporter_config_reload_success 1",
      'cr_exporter_config_reloads_total{result="success"} 1',
      'cr_exporter_config_hash{hash="h1"} 1',
    ]);
    const gadgets = { ...widgets, resource: "gadgets", kind: "Gadget" };
    await app.reload(
      validateConfig({ listen: "127.0.0.1:0", crdDiscovery: false, resources: [widgets, gadgets] }),
      "h2",
    );
    assert.deepEqual(await selfSamples(app, "cr_exporter_config_"), [
      "cr_exporter_config_reload_success 1",
      'cr_exporter_config_reloads_total{result="success"} 2',
      'cr_exporter_config_hash{hash="h2"} 1',
    ]);
    assert.deepEqual(
      logs.filter((l) => l.msg === "configuration reloaded").map((l) => [l.hash, l.resources]),
      [["h2", 2]],
    );
    app.reloadFailed(new Error("resources[0].kind: missing"));
    assert.deepEqual(await selfSamples(app, "cr_exporter_config_"), [
      "cr_exporter_config_reload_success 0",
      'cr_exporter_config_reloads_total{result="success"} 2',
      'cr_exporter_config_reloads_total{result="failure"} 1',
      'cr_exporter_config_hash{hash="h2"} 1',
    ]);
    assert.deepEqual(
      logs.filter((l) => l.level === "error").map((l) => [l.msg, l.error]),
      [["configuration rejected; keeping the previous one", "resources[0].kind: missing"]],
    );
  } finally {
    await app.stop();
  }
});

test("before start there is no URL; once serving, the log says where /metrics, the status page and the apiserver are", async () => {
  const { app, logs } = await build({});
  assert.throws(() => app.url, /^Error: the exporter is not started$/);
  await app.start();
  try {
    assert.match(app.url, /^http:\/\/127\.0\.0\.1:\d+$/);
    const serving = logs.find((l) => l.msg === "serving metrics");
    assert.deepEqual(
      [serving?.url, serving?.statusPage, serving?.apiServer],
      [`${app.url}/metrics`, `${app.url}/`, "https://127.0.0.1:9"],
    );
  } finally {
    await app.stop();
  }
});

test("an address that is taken fails the start, naming the address and why", async () => {
  const taken = createServer();
  await new Promise<void>((resolve) => taken.listen(0, "127.0.0.1", resolve));
  const { port } = taken.address() as { port: number };
  try {
    const { app } = await build({ listen: `127.0.0.1:${port}` });
    await assert.rejects(app.start(), (error: Error) => {
      assert.match(error.message, new RegExp(`^cannot listen on 127\\.0\\.0\\.1:${port}: .*EADDRINUSE`));
      assert.match(String((error.cause as Error).message), /EADDRINUSE/);
      return true;
    });
    assert.throws(() => app.url, /not started/);
  } finally {
    await new Promise((resolve) => taken.close(resolve));
  }
});

test("/metrics serves the collectors' series under the configured prefix, beside the exporter's own", async () => {
  const { app } = await build({ resources: [widgets], metricPrefix: "shop_" });
  await app.start();
  try {
    const [collector] = app.manager.collectors();
    assert.ok(collector);
    collector.ingest("ADDED", widget({ status: { conditions: [cond("Ready", "True")] } }));
    const { text } = await get(app, "/metrics");
    assert.match(text, /^shop_condition\{.*name="w1".*\} 1$/m);
    assert.match(text, /^shop_exporter_config_hash\{hash="h1"\} 1$/m);
  } finally {
    await app.stop();
  }
});

test("a reload keeps the server where it is and says which changes take a restart; statusPage applies at once", async () => {
  const { app, logs } = await build({});
  await app.start();
  try {
    const url = app.url;
    assert.match((await get(app, "/")).text, /data-refresh="30"/);
    await app.reload(validateConfig({ listen: "127.0.0.1:0", crdDiscovery: false, logLevel: "debug" }), "h1");
    assert.deepEqual(
      logs.filter((l) => l.level === "warn"),
      [],
      "nothing the server needs a restart for",
    );
    await app.reload(
      validateConfig({
        listen: "127.0.0.1:1",
        crdDiscovery: false,
        metricsAuth: "kubernetes",
        webConfigFile: "/web.yaml",
        metricPrefix: "shop_",
        statusPage: { refresh: "7s" },
      }),
      "h2",
    );
    assert.deepEqual(
      logs.filter((l) => l.level === "warn").map((l) => [l.msg, l.listen, l.prefix]),
      [
        ["listen address changes take effect after a restart", "127.0.0.1:1", undefined],
        ["webConfigFile and metricsAuth changes take effect after a restart", undefined, undefined],
        ["metric prefix changes of self metrics take effect after a restart", undefined, "shop_"],
      ],
    );
    assert.equal(app.url, url, "still where it was");
    assert.match((await get(app, "/")).text, /data-refresh="7"/, "the new statusPage, at once");
    // The reload after next compares with the address in force, not the one asked for.
    await app.reload(validateConfig({ listen: "127.0.0.1:1", crdDiscovery: false }), "h3");
    assert.equal(
      logs.filter((l) => l.msg === "listen address changes take effect after a restart").length,
      2,
    );
  } finally {
    await app.stop();
  }
});

test("/readyz waits for the API proxy process under the supervisor, and only when the proxy is configured", async () => {
  const proxyProcess = { socketPath: countersSocketPath(), exporterRestarts: 0 };
  const withProxy = await build({ apiProxy: { listen: "127.0.0.1:0" } }, { proxyProcess });
  await withProxy.app.start();
  try {
    assert.deepEqual(await get(withProxy.app, "/readyz"), {
      status: 503,
      text: "not ready\napi proxy: not ready: the API proxy process has not answered yet\n",
    });
  } finally {
    await withProxy.app.stop();
  }
  const without = await build({}, { proxyProcess });
  await without.app.start();
  try {
    assert.deepEqual(await get(without.app, "/readyz"), { status: 200, text: "ready\n" });
  } finally {
    await without.app.stop();
  }
});

test("stop runs once: a second stop waits for the same one", async () => {
  const { app } = await build({});
  await app.start();
  const first = app.stop();
  assert.equal(app.stop(), first);
  await first;
  await app.stop();
});

/**
 * An apiserver with one StatefulSet (obs/exporter) and 40 widgets, without
 * shard selectors of its own: every widget list answers all of them (the
 * collectors keep their shard's; Warning events: none). scale() changes the StatefulSet's replicas
 * through its watch; each widget watch stays open until the collector stops it.
 */
function scalingApiserver(replicas: number) {
  const items = Array.from({ length: 40 }, (_, i) => widget({ name: `w${i}`, uid: spreadUid(i) }));
  const statefulSet = (n: number, rv: string) => ({
    metadata: { name: "exporter", namespace: "obs", resourceVersion: rv },
    spec: { replicas: n },
  });
  const widgetLists: Record<string, unknown>[] = [];
  const widgetWatches: AbortSignal[] = [];
  let scale: ((n: number) => void) | undefined;
  const { client } = fakeKubeApi({
    lists: (query, _signal, path) => {
      if (path.endsWith("/statefulsets")) {
        return {
          status: 200,
          body: { items: [statefulSet(replicas, "5")], metadata: { resourceVersion: "5" } },
        };
      }
      if (!path.endsWith("/widgets")) return emptyList; // the Warning events
      widgetLists.push(query);
      return { status: 200, body: { items, metadata: { resourceVersion: "10" } } };
    },
  });
  client.stream = async (path, options) => {
    options.onOpen?.();
    if (path.endsWith("/statefulsets")) {
      scale = (n) => options.onLine(JSON.stringify({ type: "MODIFIED", object: statefulSet(n, "6") }));
    } else if (path.endsWith("/widgets")) widgetWatches.push(options.signal);
    await untilAborted(options.signal);
  };
  return {
    client,
    widgetLists,
    widgetWatches,
    scale: (n: number) => {
      assert.ok(scale, "the StatefulSet is watched");
      scale(n);
    },
  };
}

async function startScaling(filter: "apiserver" | "exporter", api: ReturnType<typeof scalingApiserver>) {
  const { app } = await build(
    { resources: [widgets], sharding: { pod: "exporter-0", podNamespace: "obs", filter } },
    { client: api.client },
  );
  await app.start();
  await waitFor(
    () => api.widgetWatches.length === 1,
    "the widgets watched",
    () => api.widgetLists,
  );
  const [collector] = app.manager.collectors();
  assert.ok(collector);
  return { app, collector };
}

/** Waits for the StatefulSet's new replicas to reach the collectors (their re-shard runs in the manager's queue). */
async function scaled(app: App, api: ReturnType<typeof scalingApiserver>, replicas: number): Promise<void> {
  api.scale(replicas);
  await waitFor(
    () => app.sharding.assignment.total === replicas,
    `${replicas} shards`,
    () => app.sharding.assignment,
  );
  await app.manager.reshard(false);
}

const owned = (assignment: { shard: number; total: number }): number =>
  Array.from({ length: 40 }, (_, i) => spreadUid(i)).filter((uid) => ownsUid(assignment, uid)).length;

test("a StatefulSet that scales, apiserver filter: the collectors list again with the new range's selector, even when it only shrank", async (t) => {
  const api = scalingApiserver(2);
  const { app, collector } = await startScaling("apiserver", api);
  t.after(() => app.stop());
  assert.equal(collector.store.size, owned({ shard: 0, total: 2 }));
  await scaled(app, api, 3);
  assert.equal(api.widgetWatches[0]?.aborted, true, "the watch of the old range stopped");
  await waitFor(
    () => api.widgetLists.length === 2,
    "the list of the new range",
    () => api.widgetLists,
  );
  assert.deepEqual(
    api.widgetLists.map((q) => q.shardSelector),
    [shardSelectorOf({ shard: 0, total: 2 }), shardSelectorOf({ shard: 0, total: 3 })],
  );
  assert.equal(collector.store.size, owned({ shard: 0, total: 3 }));
});

test("a StatefulSet that scales, exporter filter: a range that shrank is only pruned; one that grew is listed again", async (t) => {
  const api = scalingApiserver(2);
  const { app, collector } = await startScaling("exporter", api);
  t.after(() => app.stop());
  await scaled(app, api, 3);
  assert.equal(collector.store.size, owned({ shard: 0, total: 3 }), "the objects of other shards dropped");
  assert.equal(api.widgetWatches[0]?.aborted, false, "nothing to gain: the same watch goes on");
  assert.equal(api.widgetLists.length, 1);
  await scaled(app, api, 1);
  assert.equal(api.widgetWatches[0]?.aborted, true);
  await waitFor(
    () => collector.store.size === 40,
    "every widget, listed again",
    () => collector.store.size,
  );
  assert.deepEqual(
    api.widgetLists.map((q) => q.shardSelector),
    [undefined, undefined],
  );
});

test("OTEL_* are read from the environment given, not the process's: tracing and the metrics export turned on by it", async () => {
  assert.equal(
    process.env.OTEL_EXPORTER_OTLP_ENDPOINT,
    undefined,
    "the test process's own environment sets none",
  );
  const { app } = await build(
    {},
    {
      env: {
        OTEL_EXPORTER_OTLP_ENDPOINT: "http://127.0.0.1:9",
        OTEL_METRICS_EXPORTER: "otlp",
        OTEL_METRIC_EXPORT_TIMEOUT: "50",
      },
    },
  );
  assert.ok(app.tracer, "tracing on");
  assert.ok(app.otlpMetrics, "the OTLP metrics export on");
  await app.stop();
});

test("with tracing on, the open-episodes gauge counts the collectors' open generations", async () => {
  const { app } = await build(
    { resources: [widgets] },
    {
      spanProcessors: [new SimpleSpanProcessor({ exporter: new InMemorySpanExporter() })],
      // A minute after the widget's creation: its generation is open, not timed out.
      nowSeconds: () => Date.parse("2026-01-01T00:01:00Z") / 1000,
    },
  );
  await app.start();
  try {
    const [collector] = app.manager.collectors();
    assert.ok(collector);
    collector.ingest("ADDED", widget({ status: { conditions: [cond("Ready", "False")] } }));
    assert.equal(app.manager.openTraces, 1);
    assert.deepEqual(await selfSamples(app, "cr_exporter_tracing_open_episodes"), [
      "cr_exporter_tracing_open_episodes 1",
    ]);
  } finally {
    await app.stop();
  }
});

test("the configured generation timeout ends an open generation, not the default hour", async () => {
  const created = Date.parse("2026-01-01T00:00:00Z") / 1000;
  let nowSeconds = created + 60;
  const { app } = await build(
    { resources: [widgets], tracing: { generationTimeout: "2h" } },
    {
      spanProcessors: [new SimpleSpanProcessor({ exporter: new InMemorySpanExporter() })],
      nowSeconds: () => nowSeconds,
    },
  );
  await app.start();
  try {
    const [collector] = app.manager.collectors();
    assert.ok(collector);
    collector.ingest("ADDED", widget({ status: { conditions: [cond("Ready", "False")] } }));
    nowSeconds = created + 90 * 60;
    app.manager.tickTraces(nowSeconds * 1000);
    assert.equal(app.manager.openTraces, 1, "open after 90 minutes");
    nowSeconds = created + 121 * 60;
    app.manager.tickTraces(nowSeconds * 1000);
    assert.equal(app.manager.openTraces, 0, "timed out after two hours");
  } finally {
    await app.stop();
  }
});

test("the default clock is the wall clock, in seconds", async () => {
  const { app } = await build({});
  await app.start();
  try {
    const { now } = JSON.parse((await get(app, "/api/v1/summary")).text) as { now: string };
    assert.ok(Math.abs(Date.parse(now) - Date.now()) < 60_000, `${now} is now`);
  } finally {
    await app.stop();
  }
});

test("sharded collectors keep their shard's objects themselves under the exporter filter; unsharded ones need not", async () => {
  const filters = async (sharding?: Record<string, unknown>): Promise<string[]> => {
    const api = scalingApiserver(1);
    const { app } = await build(
      { resources: [widgets], ...(sharding && { sharding }) },
      { client: api.client },
    );
    await app.start();
    try {
      await waitFor(
        () => api.widgetWatches.length === 1,
        "the widgets watched",
        () => api.widgetLists,
      );
      return await selfSamples(app, "cr_exporter_resource_shard_filter");
    } finally {
      await app.stop();
    }
  };
  assert.deepEqual(await filters(), []);
  assert.deepEqual(await filters({ shard: 0, totalShards: 1, filter: "exporter" }), []);
  assert.equal((await filters({ shard: 0, totalShards: 2, filter: "exporter" })).length, 1);
});

/** An apiserver whose tracing Lease (obs/spans) is free, or held by another replica that keeps renewing it. */
function leaseApiserver(holder: string | undefined) {
  return fakeKubeApi({
    lists: (_query, _signal, path) => {
      if (path.endsWith("/leases")) return { status: 201, body: {} };
      if (!path.endsWith("/leases/spans")) return emptyList;
      if (holder === undefined) return { status: 404, body: {} };
      const spec = { holderIdentity: holder, leaseDurationSeconds: 15, renewTime: new Date().toISOString() };
      return { status: 200, body: { metadata: { resourceVersion: "1" }, spec } };
    },
  });
}

test("only the replica holding the tracing Lease exports spans", async () => {
  const spansOf = async (holder: string | undefined): Promise<number> => {
    const api = leaseApiserver(holder);
    const exporter = new InMemorySpanExporter();
    const processor = new SimpleSpanProcessor({ exporter });
    const { app } = await build(
      { resources: [widgets], tracing: { leaseName: "spans", leaseNamespace: "obs" } },
      {
        client: api.client,
        spanProcessors: [processor],
        nowSeconds: () => Date.parse("2026-01-01T00:01:00Z") / 1000,
      },
    );
    await app.start();
    try {
      // The first round of the election is over once the gauge says how it went.
      const expected = `cr_exporter_tracing_leader ${holder === undefined ? 1 : 0}`;
      const deadline = performance.now() + 5_000;
      while (!(await selfSamples(app, "cr_exporter_tracing_leader")).includes(expected)) {
        assert.ok(performance.now() < deadline, `timed out waiting for ${expected}`);
        await nextTurn();
      }
      assert.ok(api.calls.some((c) => c.path.endsWith("/leases/spans")));
      const [collector] = app.manager.collectors();
      assert.ok(collector);
      collector.ingest("ADDED", widget({ status: { conditions: [cond("Ready", "False")] } }));
      collector.ingest(
        "MODIFIED",
        widget({
          resourceVersion: "2",
          status: { conditions: [cond("Ready", "True", "2026-01-01T00:00:30Z")] },
        }),
      );
      await processor.forceFlush();
      return exporter.getFinishedSpans().length;
    } finally {
      await app.stop();
    }
  };
  assert.ok((await spansOf(undefined)) > 0, "the leader exports the generation's spans");
  assert.equal(await spansOf("other-replica"), 0, "another replica holds the Lease");
});
