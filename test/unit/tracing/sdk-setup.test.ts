// The production tracing factory (src/tracing/sdk-setup.ts): the resource its
// spans carry (service.name from the options or OTEL_* variables, the
// cluster), and how a failing OTLP receiver is logged, against a loopback
// receiver the test starts and closes.
import assert from "node:assert/strict";
import { createServer } from "node:http";
import { after, test } from "node:test";
import { InMemorySpanExporter, SimpleSpanProcessor } from "@opentelemetry/sdk-trace";
import { createLogger, silentLogger } from "../../../src/log.ts";
import { closeServer, listenOn } from "../../../src/net/listen.ts";
import { createTracing, type TracingOptions } from "../../../src/tracing/sdk-setup.ts";
import { RecordKeepingTracer } from "../../support/trace-records.ts";
import { cluster, condition, History, object } from "./support.ts";

/** One finished generation of object `uid` through `tracer`: two spans. */
function rollout(tracer: ReturnType<typeof createTracing>, uid = "uid-1"): void {
  const history = new History(new RecordKeepingTracer(tracer));
  history.step({ now: 1, object: object({ uid, conditions: [condition("Ready", "False", 1)] }) });
  history.step({
    now: 3,
    object: object({ uid, observedGeneration: 1, conditions: [condition("Ready", "True", 2, "", "", 1)] }),
  });
}

/** The resource attributes of the spans a tracer made with `options` exports. */
async function resourceOf(options: Partial<TracingOptions>): Promise<Record<string, unknown>> {
  const exporter = new InMemorySpanExporter();
  const processor = new SimpleSpanProcessor({ exporter });
  const tracer = createTracing({
    cluster,
    destination: { spanProcessors: [processor] },
    sampling: { kind: "always_on" },
    env: {},
    logger: silentLogger,
    ...options,
  });
  rollout(tracer);
  await processor.forceFlush();
  const spans = exporter.getFinishedSpans();
  await tracer.shutdown();
  assert.equal(spans.length, 2);
  return { ...spans[0]?.resource.attributes };
}

test("spans carry the cluster and a service name: ours, the one given, or the environment's", async () => {
  const resource = await resourceOf({});
  assert.equal(resource["k8s.cluster.name"], cluster);
  assert.equal(resource["service.name"], "cr-status-exporter");
  assert.equal((await resourceOf({ serviceName: "shop" }))["service.name"], "shop");
  assert.equal(
    (await resourceOf({ serviceName: "shop", env: { OTEL_SERVICE_NAME: "from-env" } }))["service.name"],
    "from-env",
  );
  assert.equal(
    (await resourceOf({ env: { OTEL_RESOURCE_ATTRIBUTES: "k8s.service.name=other,team=a" } }))[
      "service.name"
    ],
    "cr-status-exporter",
    "only service.name itself in OTEL_RESOURCE_ATTRIBUTES counts",
  );
});

test("service.name in OTEL_RESOURCE_ATTRIBUTES is left to the SDK, which reads it from the process environment", async () => {
  const saved = process.env.OTEL_RESOURCE_ATTRIBUTES;
  try {
    for (const value of ["service.name=from-attributes", "team=a, service.name = from-attributes"]) {
      process.env.OTEL_RESOURCE_ATTRIBUTES = value;
      const resource = await resourceOf({ serviceName: "shop", env: { OTEL_RESOURCE_ATTRIBUTES: value } });
      assert.equal(resource["service.name"], "from-attributes", value);
    }
  } finally {
    if (saved === undefined) delete process.env.OTEL_RESOURCE_ATTRIBUTES;
    else process.env.OTEL_RESOURCE_ATTRIBUTES = saved;
  }
});

/** A loopback OTLP receiver answering `status()`. */
async function receiver(status: number | (() => number)): Promise<string> {
  const server = createServer((req, res) => {
    req.resume();
    req.on("end", () => {
      res.writeHead(typeof status === "number" ? status : status(), { "Content-Type": "application/json" });
      res.end("{}");
    });
  });
  const bound = await listenOn(server, { host: "127.0.0.1", port: 0 });
  after(() => closeServer(server));
  return `http://127.0.0.1:${bound.port}/v1/traces`;
}

for (const [status, logged] of [
  [400, [["warn", "spans not exported"]]],
  [200, []],
] as const) {
  test(`a receiver answering ${status}: ${logged.length === 0 ? "nothing logged" : "logged once, with its URL"}`, async () => {
    const url = await receiver(status);
    const lines: Record<string, unknown>[] = [];
    const logger = createLogger({ level: "debug", write: (line) => lines.push(JSON.parse(line)) });
    const tracer = createTracing({
      cluster,
      destination: { otlp: { url, protocol: "http/json", source: "test" } },
      sampling: { kind: "always_on" },
      env: {},
      logger,
    });
    rollout(tracer);
    await tracer.shutdown();
    const exportLines = lines.filter((l) => String(l.msg).startsWith("spans "));
    assert.deepEqual(
      exportLines.map((l) => [l.level, l.msg]),
      logged.map((l) => [...l]),
    );
    for (const line of exportLines) {
      assert.equal(line.url, url);
      assert.ok(line.error, "the export error is logged");
    }
  });
}

test("a receiver that refuses spans, then takes them again: a warning when that starts, a line when it is over", {
  timeout: 20_000,
}, async () => {
  let status = 400;
  const url = await receiver(() => status);
  const lines: Record<string, unknown>[] = [];
  const waiting = new Map<string, () => void>();
  const logger = createLogger({
    write: (line) => {
      const record = JSON.parse(line);
      lines.push(record);
      waiting.get(record.msg)?.();
    },
  });
  const logged = (msg: string) =>
    new Promise<void>((resolve) => {
      if (lines.some((l) => l.msg === msg)) resolve();
      else waiting.set(msg, resolve);
    });
  // Each batch goes out as soon as it is there, so the two rollouts are two exports, in order.
  const saved = process.env.OTEL_BSP_SCHEDULE_DELAY;
  process.env.OTEL_BSP_SCHEDULE_DELAY = "1";
  let tracer: ReturnType<typeof createTracing>;
  try {
    tracer = createTracing({
      cluster,
      destination: { otlp: { url, protocol: "http/json", source: "test" } },
      sampling: { kind: "always_on" },
      env: {},
      logger,
    });
  } finally {
    if (saved === undefined) delete process.env.OTEL_BSP_SCHEDULE_DELAY;
    else process.env.OTEL_BSP_SCHEDULE_DELAY = saved;
  }
  rollout(tracer, "uid-1");
  await logged("spans not exported");
  status = 200;
  rollout(tracer, "uid-2");
  await logged("spans exported again");
  await tracer.shutdown();
  assert.deepEqual(
    lines.filter((l) => String(l.msg).startsWith("spans ")).map((l) => [l.level, l.msg, l.url]),
    [
      ["warn", "spans not exported", url],
      ["info", "spans exported again", url],
    ],
  );
});
