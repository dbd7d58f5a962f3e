// What a collector hands its tracer: every change with the previous and the
// current state (a delete as no current state, a list replay marked) and the
// object's trace record from its store entry, nothing for a replayed
// resourceVersion; the record of an object another shard took goes with its
// entry; and a tracer or histogram that throws is counted, never losing the object.
import assert from "node:assert/strict";
import { test } from "node:test";
import type { TraceRecord } from "../../src/core/entry.ts";
import type { ObjectObservation, StateTracer } from "../../src/tracing/state-tracer.ts";
import { offlineCollector, perObjectText } from "../support/collector.ts";
import { cond, widget } from "../support/objects.ts";

/** A record that says which change made it, so a test sees which record comes back. */
interface NamedRecord extends TraceRecord {
  madeBy: string;
}

function recordingTracer(options: { throws?: boolean } = {}) {
  const seen: string[] = [];
  const tracer: StateTracer = {
    observe(o: ObjectObservation, record: TraceRecord | undefined) {
      const phase = (s: ObjectObservation["current"]) => (s ? `${s.name}@${s.resourceVersion}` : "-");
      const from = record ? ` from ${(record as NamedRecord).madeBy}` : "";
      seen.push(
        `observe ${phase(o.previous)} → ${phase(o.current)}${o.replay ? " (replay)" : ""} at ${o.nowMs}${from}`,
      );
      if (options.throws) throw new Error("tracer failed");
      const next: NamedRecord | undefined = o.current
        ? { open: undefined, tracedGeneration: undefined, madeBy: phase(o.current) }
        : undefined;
      return { record: next, traced: undefined };
    },
    traceIdFor: () => "abc",
    tick: (record) => record,
    endsOpenSpansOnShutdown: false,
    interrupt: () => {},
    shutdown: async () => {},
  };
  return { tracer, seen };
}

test("every change and delete reaches the tracer with the record the last one left; a replayed resourceVersion does not", () => {
  const { tracer, seen } = recordingTracer();
  let owned = true;
  const c = offlineCollector({ tracer, now: 1_000, owns: () => owned });
  c.collector.ingest("ADDED", widget({ name: "a", resourceVersion: "1" }));
  c.collector.ingest("MODIFIED", widget({ name: "a", resourceVersion: "1" }));
  c.collector.ingest("MODIFIED", widget({ name: "a", resourceVersion: "2", status: { phase: "Running" } }));
  c.collector.ingest("DELETED", widget({ name: "a", resourceVersion: "3" }));
  c.collector.ingest("ADDED", widget({ name: "b", resourceVersion: "4" }));
  owned = false;
  void c.collector.reshard(false);
  assert.deepEqual(seen, [
    "observe - → a@1 at 1000000",
    "observe a@1 → a@2 at 1000000 from a@1",
    "observe a@2 → - at 1000000 from a@2",
    "observe - → b@4 at 1000000",
  ]);
  assert.equal(c.collector.store.size, 0, "b went to another shard, with its record and no call to tracing");
});

test("a tracer that throws is counted as a handler error; the object and its series are kept", async () => {
  const { tracer } = recordingTracer({ throws: true });
  const c = offlineCollector({ tracer });
  c.collector.ingest("ADDED", widget({ status: { conditions: [cond("Ready", "True")] } }));
  assert.equal(c.collector.store.size, 1);
  assert.match(await perObjectText(c), /^cr_condition\{[^}]*name="w1"[^}]*status="True"\} 1$/m);
  assert.equal((await c.metrics.handlerErrors.get()).values[0]?.value, 1);
});

test("stop(true) (the resource type went away) reports every held object deleted; a plain stop does not", async () => {
  for (const removed of [true, false, undefined]) {
    const { tracer, seen } = recordingTracer();
    const c = offlineCollector({ tracer, now: 1_000 });
    c.collector.ingest("ADDED", widget({ name: "a" }));
    seen.length = 0;
    await c.collector.stop(removed);
    assert.deepEqual(seen, removed ? ["observe a@1 → - at 1000000 from a@1"] : [], `stop(${removed})`);
    assert.equal(c.collector.store.size, 0);
  }
});

test("a replacing collector hands the replaced one's records to tracing as its first list finds the objects", () => {
  const { tracer, seen } = recordingTracer();
  const old: NamedRecord = { open: undefined, tracedGeneration: 1, madeBy: "the replaced collector" };
  const c = offlineCollector({ tracer, now: 1_000, inheritedTraces: new Map([["uid-a", old]]) });
  c.collector.ingest("ADDED", widget({ name: "a" }));
  c.collector.ingest("ADDED", widget({ name: "b", resourceVersion: "2" }));
  assert.deepEqual(seen, [
    "observe - → a@1 at 1000000 from the replaced collector",
    "observe - → b@2 at 1000000",
  ]);
});

test("the tracing clock ticks open records only and keeps what comes back; the open count reads the store", () => {
  const ticked: string[] = [];
  const interrupted: string[] = [];
  for (const endsOpen of [false, true]) {
    const tracer: StateTracer = {
      observe: (o) => ({
        record: { open: o.current?.name === "open" ? "episode" : undefined, tracedGeneration: 1 },
        traced: undefined,
      }),
      traceIdFor: () => undefined,
      tick(record, nowMs) {
        ticked.push(`${String(record.open)} at ${nowMs}`);
        return { open: undefined, tracedGeneration: 1 };
      },
      endsOpenSpansOnShutdown: endsOpen,
      interrupt: (record) => void interrupted.push(String(record.open)),
      shutdown: async () => {},
    };
    const c = offlineCollector({ tracer });
    c.collector.ingest("ADDED", widget({ name: "open" }));
    c.collector.ingest("ADDED", widget({ name: "closed", resourceVersion: "2" }));
    assert.equal(c.collector.openTraces, 1);
    c.collector.interruptTraces(5);
    assert.deepEqual(
      interrupted,
      endsOpen ? ["episode"] : [],
      `interrupted only when tracing ends open spans (${endsOpen})`,
    );
    c.collector.tickTraces(7);
    assert.equal(c.collector.openTraces, 0, "the record the tick returned is the entry's now");
    c.collector.tickTraces(8);
  }
  assert.deepEqual(
    ticked,
    ["episode at 7", "episode at 7"],
    "closed records are not ticked, before or after",
  );
});
