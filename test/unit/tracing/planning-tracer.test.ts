// The StateTracer without the SDK (src/tracing/planning-tracer.ts): a sink
// that records the span plans it is handed, so what the tracer adds to the
// planner — leadership, de-duplication, a sink that throws, the record handed
// back, the exemplar's trace id, stopping, and the directory it keeps for
// joins — is seen as plain values.
import assert from "node:assert/strict";
import { test } from "node:test";
import { Registry } from "@prometheus-io/client";
import type { TraceRecord } from "../../../src/core/entry.ts";
import { defaultReadinessRules } from "../../../src/core/judge/readiness.ts";
import type { ObjectState } from "../../../src/core/state.ts";
import { createLogger } from "../../../src/log.ts";
import * as attr from "../../../src/tracing/attributes.ts";
import { generationTraceKey, spanIdOf } from "../../../src/tracing/ids.ts";
import { registerTracingMetrics } from "../../../src/tracing/metrics.ts";
import { type ObjectTraceState, plannerSettings, type SpanPlan } from "../../../src/tracing/planner/model.ts";
import {
  createStateTracer,
  type SpanSink,
  type StateTracerOptions,
} from "../../../src/tracing/planning-tracer.ts";
import type { ObjectObservation, StateTracer } from "../../../src/tracing/state-tracer.ts";
import { at, cluster, condition, generationIds, object, sprockets, T, widgets } from "./support.ts";

class RecordingSink implements SpanSink {
  readonly spans: SpanPlan[] = [];
  shutdowns = 0;
  /** Trace ids not sampled. */
  readonly unsampled = new Set<string>();
  /** Span names whose emit throws. */
  readonly failing = new Set<string>();

  emit(plan: SpanPlan): void {
    if (this.failing.has(plan.name)) throw new Error(`cannot emit ${plan.name}`);
    this.spans.push(plan);
  }

  isSampled(traceId: string): boolean {
    return !this.unsampled.has(traceId);
  }

  async shutdown(): Promise<void> {
    this.shutdowns++;
  }

  names(): string[] {
    return this.spans.splice(0).map((s) => s.name);
  }
}

function setup(options: Partial<StateTracerOptions> = {}) {
  const sink = new RecordingSink();
  const lines: Record<string, unknown>[] = [];
  const logger = createLogger({ level: "debug", write: (line) => lines.push(JSON.parse(line)) });
  const registry = new Registry();
  const metrics = registerTracingMetrics(registry, "cr_");
  const tracer = createStateTracer({ settings: plannerSettings(cluster), sink, logger, metrics, ...options });
  const counter = async (name: string): Promise<number> => {
    const match = new RegExp(`^cr_exporter_tracing_${name}_total (\\d+)$`, "m").exec(
      await registry.metrics(),
    );
    return Number(match?.[1]);
  };
  return { sink, lines, tracer, counter };
}

const observation = (
  current: ObjectState | undefined,
  previous: ObjectState | undefined,
  now: number,
  fields: Partial<ObjectObservation> = {},
): ObjectObservation => ({
  resource: widgets,
  statusSubresource: true,
  readiness: defaultReadinessRules,
  previous,
  current,
  nowMs: at(now),
  replay: false,
  ...fields,
});

const pending = object({ conditions: [condition("Ready", "False", 1)] });
const ready = object({ observedGeneration: 1, conditions: [condition("Ready", "True", 2, "", "", 1)] });

/** Observes `pending` then `ready` (a finished generation 1: two spans), returning the last record. */
function rollout(tracer: StateTracer, record?: TraceRecord): TraceRecord | undefined {
  const first = tracer.observe(observation(pending, undefined, 1), record);
  return tracer.observe(observation(ready, pending, 3), first.record).record;
}

test("observe hands back the record to keep and the generation traced, whose trace id is read when asked", () => {
  const { tracer, sink } = setup();
  const step = tracer.observe(observation(pending, undefined, 1), undefined);
  const record = step.record as ObjectTraceState;
  assert.equal(record.uid, "uid-1");
  assert.equal(record.open?.kind, "generation");
  assert.equal(step.traced?.generation, 1);
  assert.equal(step.traced?.traceId(), generationIds(1).traceId);
  assert.equal(tracer.traceIdFor("uid-1", record, 1), generationIds(1).traceId);
  assert.equal(tracer.traceIdFor("uid-1", record, 2), undefined, "a generation the record does not trace");
  assert.equal(tracer.traceIdFor("uid-1", undefined, 1), undefined, "no record");
  sink.unsampled.add(generationIds(1).traceId);
  assert.equal(step.traced?.traceId(), undefined, "not sampled: no trace id");
  assert.equal(tracer.traceIdFor("uid-1", record, 1), undefined);

  const deleted = tracer.observe(observation(undefined, pending, 2), record);
  assert.deepEqual(
    deleted,
    { record: undefined, traced: undefined },
    "a deleted object leaves nothing to keep",
  );
  assert.deepEqual(tracer.observe(observation(undefined, undefined, 2), record), {
    record,
    traced: undefined,
  });
});

test("the trace id a joined generation is traced under is the trace it joined", () => {
  const { tracer } = setup();
  const request = "0af7651916cd43dd8448eb211c80319c";
  const joined = object({ refs: { traceContext: `00-${request}-b7ad6b7169203331-01` } });
  const step = tracer.observe(observation(joined, undefined, 1), undefined);
  assert.equal(step.traced?.traceId(), request);
  assert.equal(tracer.traceIdFor("uid-1", step.record, 1), request);
});

test("spans go to the sink once: a repeat is counted and logged, not emitted again", async () => {
  const { tracer, sink, counter, lines } = setup();
  rollout(tracer);
  assert.deepEqual(sink.names(), ["condition Ready", "Widget generation"]);
  assert.equal(await counter("spans_emitted"), 2);
  rollout(tracer);
  assert.deepEqual(sink.names(), [], "the same ids again");
  assert.equal(await counter("spans_deduplicated"), 2);
  assert.equal(await counter("spans_emitted"), 2);
  const repeats = lines.filter((l) => l.msg === "span already emitted");
  assert.deepEqual(
    repeats.map((l) => [l.level, l.name, l.traceId]),
    [
      ["debug", "condition Ready", generationIds(1).traceId],
      ["debug", "Widget generation", generationIds(1).traceId],
    ],
  );
});

test("the emitted-span memory holds as many ids as configured", () => {
  const { tracer, sink } = setup({ emittedCapacity: 1 });
  rollout(tracer);
  assert.equal(sink.names().length, 2);
  rollout(tracer);
  assert.deepEqual(
    sink.names(),
    ["condition Ready", "Widget generation"],
    "one id remembered: both out again",
  );
});

test("a span the sink refuses is logged and not counted, and the spans after it still go out", async () => {
  const { tracer, sink, counter, lines } = setup();
  sink.failing.add("condition Ready");
  rollout(tracer);
  assert.deepEqual(sink.names(), ["Widget generation"]);
  assert.equal(await counter("spans_emitted"), 1);
  assert.deepEqual(
    lines.filter((l) => l.msg === "span not emitted").map((l) => [l.level, l.name, l.error, l.traceId]),
    [["warn", "condition Ready", "cannot emit condition Ready", generationIds(1).traceId]],
  );
});

test("a replica that does not lead emits nothing and remembers nothing as emitted", () => {
  let leading = false;
  const { tracer, sink } = setup({ isLeader: () => leading });
  const record = rollout(tracer);
  assert.deepEqual(sink.names(), []);
  assert.equal((record as ObjectTraceState).closedGeneration, 1, "the state moves on all the same");
  leading = true;
  rollout(tracer);
  assert.deepEqual(sink.names(), ["condition Ready", "Widget generation"], "not recorded as emitted before");
});

test("a malformed trace-context annotation is counted and logged once, when its generation opens", async () => {
  const { tracer, counter, lines } = setup();
  const malformed = object({ refs: { traceContext: "00-not-a-traceparent" } });
  const first = tracer.observe(observation(malformed, undefined, 1), undefined);
  tracer.observe(observation(malformed, malformed, 2), first.record);
  assert.equal(await counter("trace_context_malformed"), 1);
  assert.deepEqual(
    lines
      .filter((l) => l.msg === "trace-context annotation malformed: ignored")
      .map((l) => [l.level, l.uid, l.kind]),
    [["debug", "uid-1", "Widget"]],
  );
});

test("tick ends a root past its timeout, and hands back the same record when nothing is due", () => {
  const { tracer, sink } = setup();
  const record = tracer.observe(observation(pending, undefined, 1), undefined).record as TraceRecord;
  assert.equal(tracer.tick(record, at(3599)), record);
  const ended = tracer.tick(record, at(3600)) as ObjectTraceState;
  assert.equal(ended.open, undefined);
  assert.equal(ended.closedGeneration, 1);
  assert.deepEqual(sink.names(), ["condition Ready", "Widget generation"]);
  assert.equal(tracer.tick(ended, at(9999)), ended, "nothing open");
});

test("warnings are recorded on an open root only", () => {
  const { tracer } = setup();
  const warning = { reason: "BackOff", message: "restarting", count: 1, atMs: at(2) };
  const open = tracer.observe(observation(pending, undefined, 1), undefined).record as TraceRecord;
  const noted = tracer.warning?.(open, warning, at(2)) as ObjectTraceState;
  assert.equal(noted.open?.warnings?.events.length, 1);
  const closed = rollout(tracer) as TraceRecord;
  assert.equal(tracer.warning?.(closed, warning, at(4)), closed);
});

test("interrupt ends the open roots now, by the tracer's clock unless given a time", () => {
  const { tracer, sink } = setup({ nowMs: () => at(7) });
  assert.equal(tracer.endsOpenSpansOnShutdown, false, "off by default");
  const record = tracer.observe(observation(pending, undefined, 1), undefined).record as TraceRecord;
  tracer.interrupt(record, at(5));
  const root = sink.spans.find((s) => s.name === "Widget generation");
  assert.equal(root?.endMs, at(5));
  assert.equal(root?.attributes[attr.OUTCOME], "interrupted");
  sink.names();
  const closed = rollout(tracer) as TraceRecord;
  sink.names();
  tracer.interrupt(closed, at(8));
  assert.deepEqual(sink.names(), [], "nothing open: nothing to end");
  (tracer.interrupt as (record: TraceRecord) => void)(
    tracer.observe(observation(object({ uid: "uid-2" }), undefined, 1), undefined).record as TraceRecord,
  );
  assert.equal(sink.spans.at(-1)?.endMs, at(7));
  assert.equal(setup({ endOpenSpansOnShutdown: true }).tracer.endsOpenSpansOnShutdown, true);
});

test("after shutdown nothing is planned or emitted, and the sink is shut down once", async () => {
  const { tracer, sink } = setup();
  const record = tracer.observe(observation(pending, undefined, 1), undefined).record as TraceRecord;
  await tracer.shutdown();
  await tracer.shutdown();
  assert.equal(sink.shutdowns, 1);
  assert.deepEqual(tracer.observe(observation(ready, pending, 3), record), { record, traced: undefined });
  assert.equal(tracer.tick(record, at(9999)), record);
  assert.equal(
    tracer.warning?.(record, { reason: "r", message: "m", count: 1, atMs: undefined }, at(2)),
    record,
  );
  tracer.interrupt(record, at(5));
  assert.deepEqual(sink.names(), []);
});

// The directory the tracer keeps: a Sprocket owned by the Widget joins the Widget's open root.
const byOwner = { parent: "owner" as const, source: undefined };
const ownedSprocket = object({
  uid: "sprocket-1",
  name: "s1",
  creationTimestamp: T + 5,
  specChangedAt: T + 5,
  refs: { owner: { uid: "uid-1", apiVersion: "example.com/v1", kind: "Widget", name: "w1" } },
});

function sprocketParent(tracer: StateTracer, now: number): string | undefined {
  const step = tracer.observe(
    observation(ownedSprocket, undefined, now, { resource: sprockets, joinRules: byOwner }),
    undefined,
  );
  return (step.record as ObjectTraceState).open?.parentSpanId;
}

test("the tracer enters what it observes in its directory, so an owned object's root joins its owner's", () => {
  const { tracer } = setup();
  tracer.observe(observation(pending, undefined, 1), undefined);
  assert.equal(sprocketParent(tracer, 6), generationIds(1).root);
  const request = "0af7651916cd43dd8448eb211c80319c";
  const { tracer: second } = setup();
  second.observe(
    observation(object({ refs: { traceContext: `00-${request}-b7ad6b7169203331-01` } }), undefined, 1),
    undefined,
  );
  const step = second.observe(
    observation(ownedSprocket, undefined, 6, { resource: sprockets, joinRules: byOwner }),
    undefined,
  );
  assert.equal((step.record as ObjectTraceState).open?.traceId, request, "in the trace the owner joined");

  const { tracer: third } = setup();
  const record = third.observe(observation(pending, undefined, 1), undefined).record;
  third.observe(observation(undefined, pending, 2), record);
  assert.equal(sprocketParent(third, 6), undefined, "a deleted owner is forgotten");
});

test("index enters another shard's objects as join targets, and forgets them when gone", () => {
  const { tracer } = setup();
  tracer.index?.(observation(pending, undefined, 1));
  assert.equal(sprocketParent(tracer, 6), generationIds(1).root);
  tracer.index?.(observation(undefined, pending, 2));
  assert.equal(sprocketParent(tracer, 6), undefined);
  tracer.index?.(observation(undefined, undefined, 2));
  // An object with references, indexed for a resource without tracing options: entered with none.
  const referring = object({ uid: "uid-3", name: "w3", refs: { source: { namespace: "ns", name: "w1" } } });
  tracer.index?.(observation(referring, undefined, 1));
  const owned = object({
    ...ownedSprocket,
    refs: { owner: { uid: "uid-3", apiVersion: "example.com/v1", kind: "Widget", name: "w3" } },
  });
  const step = tracer.observe(
    observation(owned, undefined, 6, { resource: sprockets, joinRules: byOwner }),
    undefined,
  );
  assert.equal(
    (step.record as ObjectTraceState).open?.parentSpanId,
    spanIdOf(generationTraceKey(cluster, "uid-3", 1), "root"),
  );
});

test("an object whose current generation got no root here is entered under that generation's own trace", () => {
  const { tracer } = setup();
  const request = "0af7651916cd43dd8448eb211c80319c";
  const first = object({ refs: { traceContext: `00-${request}-b7ad6b7169203331-01` } });
  const record = tracer.observe(observation(first, undefined, 1), undefined).record;
  // Listed again at generation 2, already settled (a relist after a restart): no root for it here.
  const settled = object({
    generation: 2,
    specChangedAt: T + 3,
    observedGeneration: 2,
    conditions: [condition("Ready", "True", 4, "", "", 2)],
  });
  const step = tracer.observe(observation(settled, undefined, 5, { replay: true }), record);
  assert.equal((step.record as ObjectTraceState).tracedGeneration, 1);
  const child = tracer.observe(
    observation(ownedSprocket, undefined, 6, { resource: sprockets, joinRules: byOwner }),
    undefined,
  );
  const links = (child.record as ObjectTraceState).open?.links ?? [];
  assert.deepEqual(
    links.map((l) => [l.attributes[attr.LINK_REASON], l.traceId, l.spanId]),
    [["owner", generationIds(2).traceId, generationIds(2).root]],
    "the owner's generation 2, settled before the child began: a link into its own trace",
  );
});
