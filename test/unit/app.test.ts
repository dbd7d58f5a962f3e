// The composition root without a cluster: components in start order, stops in
// the reverse order (also after a failed start), reload handed to each, and
// the tracer ticked with the injected clock. The whole app against a real
// apiserver runs in the e2e tests (test/support/exporter.ts).
import assert from "node:assert/strict";
import { test } from "node:test";
import { InMemorySpanExporter, SimpleSpanProcessor } from "@opentelemetry/sdk-trace";
import { buildApp } from "../../src/app/build.ts";
import { type Component, startInOrder, stopInReverse } from "../../src/app/component.ts";
import { validateConfig } from "../../src/config/validate.ts";
import { kubeConfigClass } from "../../src/kube/kubeconfig.ts";
import { createLogger } from "../../src/log.ts";
import { cond, widget } from "../support/objects.ts";

function recorder(names: string[], failOn?: string) {
  const calls: string[] = [];
  const components: Component[] = names.map((name) => ({
    name,
    start: async () => {
      if (name === failOn) throw new Error(`${name} cannot start`);
      calls.push(`start ${name}`);
    },
    reload: async () => {
      calls.push(`reload ${name}`);
    },
    stop: async () => {
      calls.push(`stop ${name}`);
    },
  }));
  return { calls, components };
}

test("components start in order and stop in the reverse order", async () => {
  const { calls, components } = recorder(["a", "b", "c"]);
  await startInOrder(components);
  await stopInReverse(components);
  assert.deepEqual(calls, ["start a", "start b", "start c", "stop c", "stop b", "stop a"]);
});

test("a failed start stops what had started, newest first, and rethrows", async () => {
  const { calls, components } = recorder(["a", "b", "c"], "c");
  await assert.rejects(startInOrder(components), /c cannot start/);
  assert.deepEqual(calls, ["start a", "start b", "stop b", "stop a"]);
});

test("a failing stop does not keep the others running", async () => {
  const { calls, components } = recorder(["a", "b"]);
  components[1] = { ...(components[1] as Component), stop: () => Promise.reject(new Error("stuck")) };
  await assert.rejects(stopInReverse(components), /stopping b: Error: stuck/);
  assert.deepEqual(calls, ["stop a"]);
});

test("a failing stop is reported with its cause; several are reported together", async () => {
  const { calls, components } = recorder(["a", "b", "c"]);
  const stuck = new Error("stuck");
  components[1] = { ...(components[1] as Component), stop: () => Promise.reject(stuck) };
  await assert.rejects(stopInReverse(components), (error: Error) => error.cause === stuck);
  components[2] = { ...(components[2] as Component), stop: () => Promise.reject(new Error("wedged")) };
  await assert.rejects(stopInReverse(components), (error: AggregateError) => {
    assert.ok(error instanceof AggregateError);
    assert.equal(error.message, "stopping the exporter");
    assert.deepEqual(
      error.errors.map((e: Error) => e.message),
      ["stopping c: Error: wedged", "stopping b: Error: stuck"],
    );
    return true;
  });
  assert.deepEqual(calls, ["stop c", "stop a", "stop a"], "every other stop ran each time");
});

/** A kubeconfig for an apiserver that is not there: the app is built and started, its watches just fail. */
async function nowhere() {
  const kubeConfig = new (await kubeConfigClass())();
  kubeConfig.loadFromClusterAndUser(
    { name: "c", server: "https://127.0.0.1:9", skipTLSVerify: true },
    { name: "u", token: "t" },
  );
  return kubeConfig;
}

test("buildApp: the components in start order; start serves, reload reaches each, stop closes", async () => {
  const logs: string[] = [];
  const app = await buildApp(
    validateConfig({
      listen: "127.0.0.1:0",
      crdDiscovery: false,
      resources: [
        { group: "example.com", version: "v1", resource: "widgets", kind: "Widget", namespaced: true },
      ],
    }),
    {
      kubeConfig: await nowhere(),
      logger: createLogger({ level: "debug", write: (line) => logs.push(line) }),
      configHash: "h1",
      env: {},
    },
  );
  assert.deepEqual(
    app.components.map((c) => c.name),
    ["tracing", "sharding", "http", "status-write sources", "collectors", "otlp metrics", "tracing clock"],
  );
  assert.equal(app.tracer, undefined, "no endpoint: tracing off");
  await app.start();
  try {
    assert.equal(await (await fetch(`${app.url}/healthz`)).text(), "ok\n");
    await app.reload(validateConfig({ listen: "127.0.0.1:1", crdDiscovery: true }), "h2");
  } finally {
    await app.stop();
  }
  assert.ok(logs.some((l) => l.includes('"msg":"listen address changes take effect after a restart"')));
  assert.ok(logs.some((l) => l.includes('"msg":"configuration reloaded","hash":"h2"')));
  await assert.rejects(fetch(`${app.url}/healthz`), "the server is closed");
});

test("the tracer is ticked with the injected clock, not the wall clock", async () => {
  const exporter = new InMemorySpanExporter();
  const processor = new SimpleSpanProcessor({ exporter });
  // The injected clock runs two hours ahead: a generation opened "now" times out (1 h) only by it.
  const wallNow = Date.now() / 1000;
  let nowSeconds = wallNow;
  const widgetsResource = {
    group: "example.com",
    version: "v1",
    resource: "widgets",
    kind: "Widget",
    namespaced: true,
  };
  const app = await buildApp(
    validateConfig({
      listen: "127.0.0.1:0",
      crdDiscovery: false,
      resources: [widgetsResource],
      tracing: { generationTimeout: "1h" },
    }),
    {
      kubeConfig: await nowhere(),
      logger: createLogger({ write: () => {} }),
      configHash: "h",
      env: {},
      nowSeconds: () => nowSeconds,
      spanProcessors: [processor],
      tracingTickIntervalMs: 5,
    },
  );
  assert.ok(app.tracer);
  await app.start();
  try {
    const created = new Date(Math.floor(wallNow) * 1000).toISOString().replace(".000Z", "Z");
    const [collector] = app.manager.collectors();
    assert.ok(collector, "the configured resource's collector");
    // Handed to the collector as the watch would: its store entry keeps the open generation's record.
    collector.ingest(
      "ADDED",
      widget({ creationTimestamp: created, status: { conditions: [cond("Ready", "False", created)] } }),
    );
    assert.equal(app.manager.openTraces, 1);
    nowSeconds = wallNow + 2 * 3600;
    const deadline = Date.now() + 5_000;
    while (app.manager.openTraces > 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
    assert.equal(app.manager.openTraces, 0, "the tick ended the generation at its timeout");
    await processor.forceFlush();
    const root = exporter.getFinishedSpans().find((s) => s.name === "Widget generation");
    assert.equal(root?.attributes["cr_status.outcome"], "timeout");
  } finally {
    await app.stop();
  }
});
