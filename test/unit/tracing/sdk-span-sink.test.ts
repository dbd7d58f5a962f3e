// The SDK edge (src/tracing/sdk-span-sink.ts, planned-id-generator.ts): span
// plans handed to a real OpenTelemetry tracer provider (in-memory exporter)
// come out as spans with exactly the planned ids, parent, tracestate, times,
// links, events and status; a child is sampled exactly when its root is.
import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { test } from "node:test";
import {
  AlwaysOffSampler,
  AlwaysOnSampler,
  InMemorySpanExporter,
  ParentBasedSampler,
  type Sampler,
  SimpleSpanProcessor,
  TraceIdRatioBasedSampler,
  TracerProvider,
} from "@opentelemetry/sdk-trace";
import { PlannedIdGenerator } from "../../../src/tracing/planned-id-generator.ts";
import type { SpanPlan } from "../../../src/tracing/planner/model.ts";
import { hrTime, SdkSpanSink } from "../../../src/tracing/sdk-span-sink.ts";
import { at, view } from "./support.ts";

const traceId = "4bf92f3577b34da6a3ce929d0e0e4736";
const rootId = "00f067aa0ba902b7";
const childId = "b7ad6b7169203331";

function sinkWith(root: Sampler = new AlwaysOnSampler()) {
  const exporter = new InMemorySpanExporter();
  const ids = new PlannedIdGenerator();
  let shutdowns = 0;
  const processor = new SimpleSpanProcessor({ exporter });
  const provider = new TracerProvider({
    sampler: new ParentBasedSampler({ root }),
    idGenerator: ids,
    spanProcessors: [processor],
  });
  const sink = new SdkSpanSink(provider.getTracer("test"), ids, root, async () => {
    shutdowns++;
  });
  /** The spans ended so far (the processor hands them over once the resource is complete). */
  const finished = async () => {
    await processor.forceFlush();
    return exporter.getFinishedSpans();
  };
  return { sink, finished, shutdowns: () => shutdowns };
}

const plan = (fields: Partial<SpanPlan> = {}): SpanPlan => ({
  traceId,
  spanId: rootId,
  parentSpanId: undefined,
  name: "Widget generation",
  startMs: at(1),
  endMs: at(3),
  attributes: { "cr_status.outcome": "ready" },
  links: [],
  events: [],
  status: { code: "unset" },
  ...fields,
});

test("a root plan becomes a root span with the planned ids, times, attributes, links and events", async () => {
  const { sink, finished } = sinkWith();
  sink.emit(
    plan({
      startMs: at(1) + 0.5,
      links: [
        { traceId: "1".repeat(32), spanId: "2".repeat(16), attributes: { "cr_status.link.reason": "owner" } },
      ],
      events: [{ name: "k8s.event", timeMs: at(2), attributes: { "k8s.event.count": 3 } }],
      status: { code: "ok" },
    }),
  );
  const [span] = await finished();
  assert.ok(span);
  assert.equal(span.spanContext().traceFlags, 1, "sampled");
  assert.equal(span.parentSpanContext, undefined);
  assert.equal(span.kind, 0, "INTERNAL");
  assert.deepEqual(view(span), {
    name: "Widget generation",
    traceId,
    spanId: rootId,
    parentSpanId: undefined,
    startMs: at(1) + 0.5,
    endMs: at(3),
    status: "ok",
    attributes: { "cr_status.outcome": "ready" },
    links: [
      { traceId: "1".repeat(32), spanId: "2".repeat(16), attributes: { "cr_status.link.reason": "owner" } },
    ],
    events: [{ name: "k8s.event", timeMs: at(2), attributes: { "k8s.event.count": 3 } }],
  });
  assert.equal(span.links[0]?.context.traceFlags, 1, "links point at sampled spans");
  assert.equal(span.links[0]?.context.isRemote, true);
});

test("a child plan hangs under its planned parent, in the trace and tracestate planned", async () => {
  const { sink, finished } = sinkWith();
  sink.emit(
    plan({ spanId: childId, parentSpanId: rootId, name: "condition Ready", traceState: "congo=t61rcWkgMzE" }),
  );
  sink.emit(plan({ spanId: "c".repeat(16), parentSpanId: rootId, name: "phase Running" }));
  const [child, plain] = await finished();
  assert.equal(child?.spanContext().traceId, traceId);
  assert.equal(child?.spanContext().spanId, childId);
  assert.equal(child?.parentSpanContext?.spanId, rootId);
  assert.equal(child?.parentSpanContext?.isRemote, true);
  assert.equal(child?.spanContext().traceState?.serialize(), "congo=t61rcWkgMzE");
  assert.equal(plain?.spanContext().traceState, undefined, "no tracestate planned: none");
  assert.equal(plain?.parentSpanContext?.spanId, rootId);
});

test("the status: ERROR with the planned message (empty when none), OK, or unset", async () => {
  const { sink, finished } = sinkWith();
  sink.emit(plan({ status: { code: "error", message: "Stalled" } }));
  sink.emit(plan({ spanId: childId, status: { code: "error" } }));
  sink.emit(plan({ spanId: "c".repeat(16), status: { code: "unset" } }));
  assert.deepEqual(
    (await finished()).map((s) => s.status),
    [{ code: 2, message: "Stalled" }, { code: 2, message: "" }, { code: 0 }],
  );
});

test("children follow their root's sampling decision, though they are started before it", async () => {
  const off = sinkWith(new AlwaysOffSampler());
  off.sink.emit(plan({ spanId: childId, parentSpanId: rootId }));
  off.sink.emit(plan());
  assert.deepEqual(await off.finished(), []);
  assert.equal(off.sink.isSampled(traceId), false);

  const ratio = new TraceIdRatioBasedSampler(0.5);
  const half = sinkWith(ratio);
  const kept: string[] = [];
  for (let i = 0; i < 16; i++) {
    const id = createHash("sha256").update(String(i)).digest("hex").slice(0, 32);
    const sampled = half.sink.isSampled(id);
    if (sampled) kept.push(id);
    half.sink.emit(plan({ traceId: id, spanId: childId, parentSpanId: rootId }));
    half.sink.emit(plan({ traceId: id }));
  }
  assert.ok(kept.length > 0 && kept.length < 16, `some kept (${kept.length}/16)`);
  const exported = (await half.finished()).map((s) => s.spanContext().traceId);
  assert.deepEqual(
    exported,
    kept.flatMap((id) => [id, id]),
    "a trace is exported whole or not at all",
  );
});

test("shutdown is handed to the function given", async () => {
  const { sink, shutdowns } = sinkWith();
  await sink.shutdown();
  assert.equal(shutdowns(), 1);
});

test("hrTime: sub-millisecond parts as nanoseconds, rounded", () => {
  assert.deepEqual(hrTime(999), [0, 999_000_000]);
  assert.deepEqual(hrTime(1_767_225_600_001.5), [1_767_225_600, 1_500_000]);
  // 0.1 ms after the second is 0.10009765625 ms in a double this large: whole nanoseconds all the same.
  assert.deepEqual(hrTime(1_767_225_600_000.1), [1_767_225_600, 100_098]);
});

test("planned ids: the next span started gets them, any other span random ones", () => {
  const ids = new PlannedIdGenerator();
  assert.equal(
    ids.with(traceId, rootId, () => `${ids.generateTraceId()}/${ids.generateSpanId()}`),
    `${traceId}/${rootId}`,
  );
  assert.notEqual(ids.generateTraceId(), traceId, "cleared after the span");
  assert.match(ids.generateTraceId(), /^[0-9a-f]{32}$/);
  assert.match(ids.generateSpanId(), /^[0-9a-f]{16}$/);
  const twice = ids.with(traceId, rootId, () => [
    ids.generateSpanId(),
    ids.generateSpanId(),
    ids.generateTraceId(),
    ids.generateTraceId(),
  ]);
  assert.equal(twice[0], rootId);
  assert.notEqual(twice[1], rootId, "each planned id is handed out once");
  assert.equal(twice[2], traceId);
  assert.notEqual(twice[3], traceId);
  assert.throws(() =>
    ids.with(traceId, rootId, () => {
      throw new Error("start failed");
    }),
  );
  assert.notEqual(ids.generateSpanId(), rootId, "cleared after a start that threw");
  assert.notEqual(ids.generateTraceId(), traceId);
});
