// The smaller parts of tracing: id recipe, emitted-id memory, sampling,
// configuration from OTEL_* variables.
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { test } from "node:test";
import { AlwaysOffSampler, TraceIdRatioBasedSampler } from "@opentelemetry/sdk-trace";
import { silentLogger } from "../../../src/log.ts";
import { EmittedSpanIds } from "../../../src/tracing/emitted.ts";
import { degradedTraceKey, generationTraceKey, spanIdOf, traceIdOf } from "../../../src/tracing/ids.ts";
import { plannerSettings } from "../../../src/tracing/model.ts";
import { rootSamplerFromEnv } from "../../../src/tracing/sampler.ts";
import { createTracing, tracingEndpoint } from "../../../src/tracing/sdk.ts";
import { hrTime } from "../../../src/tracing/sink.ts";
import { condition, generationIds, History, memoryTracing, object, widgets } from "./support.ts";

const sha256 = (text: string) => createHash("sha256").update(text).digest("hex");

test("ids: salted sha256 of cluster, uid, generation and role", () => {
  const key = generationTraceKey("prod-eu", "7d1c", 4);
  assert.equal(key, "cr-status-exporter/v1|prod-eu|7d1c|gen=4");
  assert.equal(traceIdOf(key), sha256("cr-status-exporter/v1|prod-eu|7d1c|gen=4").slice(0, 32));
  assert.equal(spanIdOf(key, "root"), sha256("cr-status-exporter/v1|prod-eu|7d1c|gen=4|root").slice(0, 16));
  assert.match(traceIdOf(key), /^[0-9a-f]{32}$/);
  assert.notEqual(
    traceIdOf(generationTraceKey("prod-us", "7d1c", 4)),
    traceIdOf(key),
    "the cluster salts ids",
  );
  assert.notEqual(traceIdOf(generationTraceKey("prod-eu", "7d1c", 5)), traceIdOf(key));
  assert.equal(
    degradedTraceKey("prod-eu", "7d1c", "Ready", "1767225700|False"),
    "cr-status-exporter/v1|prod-eu|7d1c|degraded=Ready|since=1767225700|False",
  );
});

test("emitted span ids: bounded, oldest forgotten first, a repeat refreshes", () => {
  const ids = new EmittedSpanIds(2);
  assert.equal(ids.add("t", "a"), true);
  assert.equal(ids.add("t", "b"), true);
  assert.equal(ids.add("t", "a"), false, "already emitted");
  assert.equal(ids.add("t", "c"), true);
  assert.equal(ids.size, 2);
  assert.equal(ids.add("t", "a"), false, "a was refreshed, so b was evicted instead");
  assert.equal(ids.add("t", "b"), true);
  assert.throws(() => new EmittedSpanIds(0), /positive integer capacity \(got 0\)/);
});

test("a span already emitted is not exported again, e.g. after a stale relist revived a deleted object", () => {
  const tracing = memoryTracing();
  const history = new History(tracing.tracer);
  const pending = object({ conditions: [condition("Ready", "False", 1)] });
  history.step({ now: 2, object: pending });
  history.step({ now: 20, object: undefined });
  assert.equal(tracing.take().length, 2);
  const stale = new History(tracing.tracer);
  stale.step({ now: 21, object: pending, replay: true });
  stale.step({ now: 20, object: undefined });
  assert.deepEqual(tracing.take(), [], "same ids as before: skipped");
});

test("sampling: an unsampled trace exports nothing, children included, and has no exemplar id", () => {
  const off = memoryTracing({ rootSampler: new AlwaysOffSampler() });
  const history = new History(off.tracer);
  history.step({ now: 1, object: object({ conditions: [condition("Ready", "False", 1)] }) });
  history.step({
    now: 3,
    object: object({ observedGeneration: 1, conditions: [condition("Ready", "True", 2, "", "", 1)] }),
  });
  assert.deepEqual(off.take(), []);
  assert.equal(off.tracer.traceIdFor(widgets, "uid-1", 1), undefined);

  // With a ratio, each trace is kept or dropped whole.
  const sampler = new TraceIdRatioBasedSampler(0.5);
  const half = memoryTracing({ rootSampler: sampler });
  const expectedKept = new Set<string>();
  for (let i = 0; i < 40; i++) {
    const uid = `uid-${i}`;
    const h = new History(half.tracer);
    h.step({ now: 1, object: object({ uid, conditions: [condition("Ready", "False", 1)] }) });
    h.step({
      now: 3,
      object: object({ uid, observedGeneration: 1, conditions: [condition("Ready", "True", 2, "", "", 1)] }),
    });
    const ids = generationIds(1, uid);
    if (half.tracer.traceIdFor(widgets, uid, 1) === ids.traceId) expectedKept.add(ids.traceId);
  }
  const spans = half.take();
  const traces = new Map<string, string[]>();
  for (const span of spans) traces.set(span.traceId, [...(traces.get(span.traceId) ?? []), span.name]);
  assert.deepEqual(new Set(traces.keys()), expectedKept);
  assert.ok(expectedKept.size > 5 && expectedKept.size < 35, `about half kept (${expectedKept.size}/40)`);
  for (const names of traces.values()) assert.deepEqual(names, ["condition Ready", "Widget generation"]);
});

test("hrTime: epoch milliseconds to [seconds, nanoseconds]", () => {
  assert.deepEqual(hrTime(1_767_225_600_000), [1_767_225_600, 0]);
  assert.deepEqual(hrTime(1_767_225_600_250), [1_767_225_600, 250_000_000]);
});

test("root sampler from OTEL_TRACES_SAMPLER, with errors naming the variable", () => {
  assert.equal(rootSamplerFromEnv({}).toString(), "AlwaysOnSampler");
  assert.equal(
    rootSamplerFromEnv({ OTEL_TRACES_SAMPLER: "parentbased_always_off" }).toString(),
    "AlwaysOffSampler",
  );
  assert.match(
    rootSamplerFromEnv({ OTEL_TRACES_SAMPLER: "traceidratio", OTEL_TRACES_SAMPLER_ARG: "0.25" }).toString(),
    /TraceIdRatioBased\{0\.25\}/,
  );
  assert.throws(
    () => rootSamplerFromEnv({ OTEL_TRACES_SAMPLER: "jaeger_remote" }),
    /OTEL_TRACES_SAMPLER: unsupported value "jaeger_remote"/,
  );
  assert.throws(
    () => rootSamplerFromEnv({ OTEL_TRACES_SAMPLER: "traceidratio", OTEL_TRACES_SAMPLER_ARG: "2" }),
    /OTEL_TRACES_SAMPLER_ARG: expected a ratio between 0 and 1 \(got "2"\)/,
  );
});

test("tracing is off unless an endpoint is configured", async () => {
  assert.deepEqual(tracingEndpoint({ env: {} }), {
    endpoint: undefined,
    reason: "no OTLP endpoint configured",
  });
  assert.deepEqual(tracingEndpoint({ env: { OTEL_EXPORTER_OTLP_ENDPOINT: "http://127.0.0.1:4318" } }), {
    endpoint: "http://127.0.0.1:4318",
    source: "OTEL_EXPORTER_OTLP_ENDPOINT",
  });
  assert.deepEqual(
    tracingEndpoint({
      endpoint: "http://collector:4318",
      env: { OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: "http://other:4318/v1/traces" },
    }),
    { endpoint: "http://collector:4318", source: "tracing endpoint option" },
  );
  assert.deepEqual(
    tracingEndpoint({ env: { OTEL_EXPORTER_OTLP_ENDPOINT: "http://x:4318", OTEL_SDK_DISABLED: "true" } }),
    { endpoint: undefined, reason: "OTEL_SDK_DISABLED=true" },
  );
  assert.deepEqual(
    tracingEndpoint({ env: { OTEL_EXPORTER_OTLP_ENDPOINT: "http://x:4318", OTEL_TRACES_EXPORTER: "none" } }),
    { endpoint: undefined, reason: "OTEL_TRACES_EXPORTER=none" },
  );
  assert.throws(
    () => tracingEndpoint({ env: { OTEL_EXPORTER_OTLP_ENDPOINT: "collector:4318" } }),
    /OTEL_EXPORTER_OTLP_ENDPOINT: expected an http\(s\) URL of an OTLP\/HTTP receiver \(got "collector:4318"\)/,
  );
  assert.throws(() => tracingEndpoint({ env: { OTEL_EXPORTER_OTLP_ENDPOINT: "::" } }), /not a URL: "::"/);
  assert.equal(await createTracing({ cluster: "c", env: {} }, silentLogger), undefined);
});

test("planner settings: errors name the field and value", () => {
  assert.throws(() => plannerSettings(""), /cluster must be a non-empty string/);
  assert.throws(
    () => plannerSettings("c", { timeoutMs: 0 }),
    /timeoutMs must be a positive number of milliseconds \(got 0\)/,
  );
});
