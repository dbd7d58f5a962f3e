// The collectors' stores as the status page's ViewSource: what the pipeline
// keeps (result, generation-requested time, ring) is what the views show;
// get() finds a uid in any kind; deleted objects are gone; the trace id is
// asked of the tracer for one object at a time, never for all.
import assert from "node:assert/strict";
import { test } from "node:test";
import { ObjectStore } from "../../../src/collectors/object-store.ts";
import { storeViewSource } from "../../../src/collectors/view-source.ts";
import type { TraceRecord } from "../../../src/core/entry.ts";
import { offlineCollector } from "../../support/collector.ts";
import { cond, t, widget } from "../../support/objects.ts";

function tracerStub() {
  const calls: string[] = [];
  return {
    calls,
    traceIdFor(uid: string, record: TraceRecord | undefined, generation: number) {
      calls.push(`${uid}/${generation}/${record ? "record" : "no record"}`);
      return uid === "uid-stuck" ? "4bf92f3577b34da6a3ce929d0e0e4736" : undefined;
    },
  };
}

function fleet() {
  const c = offlineCollector({ now: t("2026-01-01T01:00:00Z"), failedAfterSeconds: 600 });
  const ready = (rv: string, name: string, status: "True" | "False", at: string, reason = "Ok") =>
    widget({
      name,
      resourceVersion: rv,
      status: { observedGeneration: 1, conditions: [cond("Ready", status, at, { reason })] },
    });
  c.collector.ingest("ADDED", ready("1", "fine", "True", "2026-01-01T00:10:00Z"));
  c.collector.ingest("ADDED", ready("2", "stuck", "True", "2026-01-01T00:10:00Z"));
  c.clock.now = t("2026-01-01T01:05:00Z");
  c.collector.ingest("MODIFIED", ready("3", "stuck", "False", "2026-01-01T01:04:00Z", "ImagePullBackOff"));
  return c;
}

test("views carry the pipeline's result, ring and generation-requested time", () => {
  const c = fleet();
  const tracer = tracerStub();
  const source = storeViewSource({
    collectors: () => [c.collector],
    tracer,
    settings: () => ({ flappingWindowSeconds: 900 }),
    clock: () => c.clock.now,
  });
  assert.deepEqual(source.kinds(), [
    { group: "example.com", version: "v1", kind: "Widget", resource: "widgets" },
  ]);
  const views = [...source.objects()];
  assert.deepEqual(
    views.map((v) => [v.name, v.result, v.ready?.reason]),
    [
      ["fine", "Current", "Ok"],
      ["stuck", "InProgress", "ImagePullBackOff"],
    ],
  );
  assert.deepEqual(tracer.calls, [], "objects() looks no trace id up: it costs a hash per object");
  assert.equal(views[1]?.traceId, undefined);
  assert.equal(source.traceId?.(views[1] as (typeof views)[number]), "4bf92f3577b34da6a3ce929d0e0e4736");
  assert.deepEqual(
    tracer.calls,
    ["uid-stuck/1/no record"],
    "with the entry's record (none: tracing was off)",
  );
  const stuck = source.get("uid-stuck");
  assert.deepEqual(
    stuck?.recentTransitions.map((r) => [r.what, r.type, r.from, r.to, r.reason]),
    [["condition", "Ready", "True", "False", "ImagePullBackOff"]],
  );
  assert.equal(stuck?.transitionsInWindow, 1);
  assert.equal(stuck?.generationRequestedAt, t("2026-01-01T00:00:00Z"), "generation 1: its creation");
  assert.equal(stuck?.traceId, "4bf92f3577b34da6a3ce929d0e0e4736", "get() looks it up");
  assert.equal(source.get("uid-fine")?.recentTransitions.length, 0, "first sight is not a change");

  // The result is the pipeline's: Ready=False past failedAfter turns Failed when the schedule says so.
  c.clock.now = t("2026-01-01T01:20:00Z");
  c.collector.refreshDue();
  assert.equal(source.get("uid-stuck")?.result, "Failed");
  // Outside the flapping window the change no longer counts.
  assert.equal(source.get("uid-stuck")?.transitionsInWindow, 0);

  c.collector.ingest("DELETED", widget({ name: "stuck" }));
  assert.equal(source.get("uid-stuck"), undefined);
  assert.deepEqual(
    [...source.objects()].map((v) => v.name),
    ["fine"],
  );
});

test("get() finds a uid in any kind; without tracing there is no trace id", () => {
  const a = fleet();
  const b = offlineCollector();
  b.collector.ingest("ADDED", widget({ name: "other", uid: "uid-other" }));
  const source = storeViewSource({
    collectors: () => [a.collector, b.collector],
    tracer: undefined,
    settings: () => ({ flappingWindowSeconds: 900 }),
    clock: () => a.clock.now,
  });
  assert.equal(source.get("uid-other")?.name, "other");
  assert.equal(source.get("uid-stuck")?.traceId, undefined);
  assert.equal(source.traceId?.([...source.objects()][1] as never), undefined);
  assert.equal(source.get("uid-missing"), undefined);
});

test("traceId() asks the tracer with the record of the view's own kind's entry (group and kind both match)", () => {
  const c = fleet();
  const asked: string[] = [];
  const tracer = {
    traceIdFor(uid: string, record: TraceRecord | undefined, generation: number) {
      asked.push(`${uid}/${generation}/${record ? "record" : "no record"}`);
      return "4bf92f3577b34da6a3ce929d0e0e4736";
    },
  };
  const decoy = (group: string, kind: string) => ({
    identity: { ...c.collector.identity, group, kind },
    settings: c.collector.settings,
    store: new ObjectStore(),
  });
  const source = storeViewSource({
    collectors: () => [decoy("example.com", "Gadget"), decoy("example.org", "Widget"), c.collector],
    tracer,
    settings: () => ({ flappingWindowSeconds: 900 }),
    clock: () => c.clock.now,
  });
  const stuck = [...source.objects()].find((v) => v.name === "stuck");
  assert.ok(stuck);
  source.traceId?.(stuck);
  assert.deepEqual(asked, ["uid-stuck/1/no record"], "the decoys hold no such object: asked once");
});
