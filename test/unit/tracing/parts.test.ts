// The smaller parts of tracing: id recipe, emitted-id memory, sampling,
// sampling settings from OTEL_* variables, planner settings.
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { test } from "node:test";
import { EmittedSpanIds } from "../../../src/tracing/emitted-span-ids.ts";
import {
  degradedTraceKey,
  generationTraceKey,
  operationTraceKey,
  spanIdOf,
  traceIdOf,
} from "../../../src/tracing/ids.ts";
import { rootSampling } from "../../../src/tracing/otel-env.ts";
import { plannerSettings } from "../../../src/tracing/planner/model.ts";
import { rootSampler } from "../../../src/tracing/sdk-setup.ts";
import { hrTime } from "../../../src/tracing/sdk-span-sink.ts";
import { condition, generationIds, History, memoryTracing, object } from "./support.ts";

const sha256 = (text: string) => createHash("sha256").update(text).digest("hex");

test("ids: salted sha256 of cluster, uid, generation and role", async () => {
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

test("emitted span ids: bounded, oldest forgotten first, a repeat refreshes", async () => {
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

test("a span already emitted is not exported again, e.g. after a stale relist revived a deleted object", async () => {
  const tracing = memoryTracing();
  const history = new History(tracing.tracer);
  const pending = object({ conditions: [condition("Ready", "False", 1)] });
  history.step({ now: 2, object: pending });
  history.step({ now: 20, object: undefined });
  assert.equal((await tracing.take()).length, 2);
  const stale = new History(tracing.tracer);
  stale.step({ now: 21, object: pending, replay: true });
  stale.step({ now: 20, object: undefined });
  assert.deepEqual(await tracing.take(), [], "same ids as before: skipped");
});

test("sampling: an unsampled trace exports nothing, children included, and has no exemplar id", async () => {
  const off = memoryTracing({ sampling: { kind: "always_off" } });
  const history = new History(off.tracer);
  history.step({ now: 1, object: object({ conditions: [condition("Ready", "False", 1)] }) });
  history.step({
    now: 3,
    object: object({ observedGeneration: 1, conditions: [condition("Ready", "True", 2, "", "", 1)] }),
  });
  assert.deepEqual(await off.take(), []);
  assert.equal(off.tracer.traceIdFor("uid-1", 1), undefined);

  // With a ratio, each trace is kept or dropped whole.
  const half = memoryTracing({ sampling: { kind: "ratio", ratio: 0.5 } });
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
    if (half.tracer.traceIdFor(uid, 1) === ids.traceId) expectedKept.add(ids.traceId);
  }
  const spans = await half.take();
  const traces = new Map<string, string[]>();
  for (const span of spans) traces.set(span.traceId, [...(traces.get(span.traceId) ?? []), span.name]);
  assert.deepEqual(new Set(traces.keys()), expectedKept);
  assert.ok(expectedKept.size > 5 && expectedKept.size < 35, `about half kept (${expectedKept.size}/40)`);
  for (const names of traces.values()) assert.deepEqual(names, ["condition Ready", "Widget generation"]);
});

test("hrTime: epoch milliseconds to [seconds, nanoseconds]", async () => {
  assert.deepEqual(hrTime(1_767_225_600_000), [1_767_225_600, 0]);
  assert.deepEqual(hrTime(1_767_225_600_250), [1_767_225_600, 250_000_000]);
});

test("root sampling from OTEL_TRACES_SAMPLER, with errors naming the variable", async () => {
  assert.deepEqual(rootSampling({}), { kind: "always_on" });
  assert.deepEqual(rootSampling({ OTEL_TRACES_SAMPLER: "parentbased_always_off" }), { kind: "always_off" });
  assert.deepEqual(rootSampling({ OTEL_TRACES_SAMPLER: "traceidratio", OTEL_TRACES_SAMPLER_ARG: "0.25" }), {
    kind: "ratio",
    ratio: 0.25,
  });
  assert.equal(rootSampler({ kind: "ratio", ratio: 0.25 }).toString(), "TraceIdRatioBased{0.25}");
  assert.equal(rootSampler({ kind: "always_off" }).toString(), "AlwaysOffSampler");
  assert.throws(
    () => rootSampling({ OTEL_TRACES_SAMPLER: "jaeger_remote" }),
    /OTEL_TRACES_SAMPLER: expected always_on, always_off, traceidratio or their parentbased_ forms, got "jaeger_remote"/,
  );
  assert.throws(
    () => rootSampling({ OTEL_TRACES_SAMPLER: "traceidratio", OTEL_TRACES_SAMPLER_ARG: "2" }),
    /OTEL_TRACES_SAMPLER_ARG: expected a ratio between 0 and 1, got "2"/,
  );
});

test("planner settings: errors name the field and value", async () => {
  assert.throws(() => plannerSettings(""), /cluster must be a non-empty string/);
  assert.throws(
    () => plannerSettings("c", { timeoutMs: 0 }),
    /timeoutMs must be a positive number of milliseconds \(got 0\)/,
  );
});

test("ids: every id is the salted sha256 prefix itself, zeros at either end included", () => {
  const seen = { leading: 0, trailing: 0 };
  for (let i = 0; i < 200; i++) {
    const key = generationTraceKey("c", `uid-${i}`, 1);
    const trace = sha256(key).slice(0, 32);
    const span = sha256(`${key}|root`).slice(0, 16);
    assert.equal(traceIdOf(key), trace, key);
    assert.equal(spanIdOf(key, "root"), span, key);
    for (const id of [trace, span]) {
      if (id.startsWith("0")) seen.leading++;
      if (id.endsWith("0")) seen.trailing++;
    }
  }
  assert.ok(seen.leading > 0 && seen.trailing > 0, JSON.stringify(seen));
  assert.equal(operationTraceKey("c", "u", 1_767_225_612), "cr-status-exporter/v1|c|u|operation=1767225612");
});

test("emitted span ids: the capacity must be a positive integer; one is enough to remember the last span", () => {
  for (const bad of [0, -1, 1.5, Number.NaN]) {
    assert.throws(() => new EmittedSpanIds(bad), new RegExp(`positive integer capacity \\(got ${bad}\\)`));
  }
  const one = new EmittedSpanIds(1);
  assert.equal(one.add("t", "a"), true);
  assert.equal(one.add("t", "a"), false);
  assert.equal(one.add("t", "b"), true);
  assert.equal(one.size, 1);
  assert.equal(one.add("t", "a"), true, "forgotten for b");
  assert.equal(one.add("u", "a"), true, "another trace: another span");
});
