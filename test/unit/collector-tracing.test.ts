// What a collector hands its tracer: every change with the previous and the
// current state (a delete as no current state, a list replay marked), nothing
// for a replayed resourceVersion, the forget of an object another shard took;
// and a tracer or histogram that throws is counted, never losing the object.
import assert from "node:assert/strict";
import { test } from "node:test";
import type { ObjectObservation, StateTracer } from "../../src/tracing/state-tracer.ts";
import { offlineCollector, perObjectText } from "../support/collector.ts";
import { cond, widget } from "../support/objects.ts";

function recordingTracer(options: { throws?: boolean } = {}) {
  const seen: string[] = [];
  const tracer: StateTracer = {
    observe(o: ObjectObservation) {
      const phase = (s: ObjectObservation["current"]) => (s ? `${s.name}@${s.resourceVersion}` : "-");
      seen.push(
        `observe ${phase(o.previous)} → ${phase(o.current)}${o.replay ? " (replay)" : ""} at ${o.nowMs}`,
      );
      if (options.throws) throw new Error("tracer failed");
    },
    traceIdFor: () => "abc",
    forget: (uid) => seen.push(`forget ${uid}`),
    tick: () => {},
    openEpisodes: 0,
    shutdown: async () => {},
  };
  return { tracer, seen };
}

test("every change, delete and handover reaches the tracer; a replayed resourceVersion does not", () => {
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
    "observe a@1 → a@2 at 1000000",
    "observe a@2 → - at 1000000",
    "observe - → b@4 at 1000000",
    "forget uid-b",
  ]);
  assert.equal(c.collector.store.size, 0, "b went to another shard");
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
    assert.deepEqual(seen, removed ? ["observe a@1 → - at 1000000"] : [], `stop(${removed})`);
    assert.equal(c.collector.store.size, 0);
  }
});
