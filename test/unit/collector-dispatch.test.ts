// What a collector does with each change besides storing it: the held-objects
// and series gauges after every kind of change, the summary schedule's wake,
// the detection sampler, condition times of objects found at start, cut
// counts, the info series on a re-judge, and the log line that says which
// side effect (tracing or histograms) failed for an object.
import assert from "node:assert/strict";
import { test } from "node:test";
import { selectFamilies } from "../../src/core/series/family-selection.ts";
import type { StreamOptions } from "../../src/kube/client.ts";
import { createLogger, type LogFields } from "../../src/log.ts";
import type { StateTracer } from "../../src/tracing/state-tracer.ts";
import { type OfflineCollector, offlineCollector, perObjectText } from "../support/collector.ts";
import { fakeKubeApi, type ListAnswer, untilAborted, waitFor, watchLine } from "../support/fake-kube-api.ts";
import { cond, t, widget } from "../support/objects.ts";

const listOf = (...items: unknown[]): ListAnswer => ({
  status: 200,
  body: { items, metadata: { resourceVersion: "10" } },
});
const ready = (name: string) => widget({ name, status: { conditions: [cond("Ready", "True")] } });

async function values(metric: { get(): Promise<{ values: { value: number }[] }> }): Promise<number[]> {
  return (await metric.get()).values.map((v) => v.value);
}

/** The objects and series gauges, as written for this resource. */
async function gauges(c: OfflineCollector): Promise<{ objects: number[]; series: number[] }> {
  return { objects: await values(c.metrics.objects), series: await values(c.metrics.series) };
}

function recordingLogger() {
  const lines: { msg: string; fields: LogFields }[] = [];
  const logger = createLogger({
    level: "debug",
    write: (line) => {
      const { msg, ...fields } = JSON.parse(line) as { msg: string } & LogFields;
      lines.push({ msg, fields });
    },
  });
  return { logger, messages: () => lines.map((l) => `${l.msg}: ${l.fields.error}`) };
}

function tracerThat(fails: Partial<Record<"observe" | "tick" | "traceIdFor" | "histogram", string>>) {
  const replays: string[] = [];
  const tracer: StateTracer = {
    observe(o) {
      replays.push(`${o.current?.name ?? o.previous?.name}${o.replay ? " (replay)" : ""}`);
      if (fails.observe) throw new Error(fails.observe);
      // An open record, so the clock's tick reaches it.
      return { record: { open: true, tracedGeneration: 1 }, traced: undefined };
    },
    traceIdFor: () => {
      if (fails.traceIdFor) throw new Error(fails.traceIdFor);
      return "abc";
    },
    tick: (record) => {
      if (fails.tick) throw new Error(fails.tick);
      return record;
    },
    endsOpenSpansOnShutdown: false,
    interrupt: () => {},
    shutdown: async () => {},
  };
  return { tracer, replays };
}

test("the gauges follow every ingested change", async () => {
  const c = offlineCollector();
  c.collector.ingest("ADDED", ready("a"));
  assert.deepEqual(await gauges(c), { objects: [1], series: [c.collector.store.series] });
  c.collector.ingest("DELETED", ready("a"));
  assert.deepEqual(await gauges(c), { objects: [0], series: [0] });
});

test("aggregate mode holds no per-object series", async () => {
  const c = offlineCollector({ mode: "aggregate" });
  c.collector.ingest("ADDED", ready("a"));
  assert.equal(c.collector.store.get("uid-a")?.series, undefined);
  assert.equal(c.collector.store.series, 0);
});

test("a stopped aggregate collector exports no counts", async () => {
  const c = offlineCollector({ mode: "aggregate" });
  c.collector.ingest("ADDED", ready("a"));
  assert.match(await perObjectText(c), /^cr_aggregate_objects\{/m);
  await c.collector.stop();
  assert.doesNotMatch(await perObjectText(c), /^cr_aggregate/m);
});

test("a new shard assignment updates the gauges to the objects kept", async () => {
  let owned = (_uid: string) => true;
  const c = offlineCollector({ owns: (uid) => owned(uid) });
  c.collector.ingest("ADDED", ready("a"));
  c.collector.ingest("ADDED", ready("b"));
  owned = (uid) => uid !== "uid-b";
  await c.collector.reshard(false);
  assert.deepEqual(await gauges(c), { objects: [1], series: [c.collector.store.series] });
});

test("reshard(true) of a collector that was never started lists nothing", async (ctx) => {
  const { client, calls } = fakeKubeApi({ lists: [listOf(ready("a"))] });
  const c = offlineCollector({ client });
  ctx.after(() => c.collector.stop());
  await c.collector.reshard(true);
  assert.deepEqual(calls, []);
});

test("an empty label selector lists without one", async (ctx) => {
  const { client, calls } = fakeKubeApi({ lists: [listOf(ready("a"))] });
  const c = offlineCollector({ client, labelSelector: "" });
  ctx.after(() => c.collector.stop());
  c.collector.start();
  await waitFor(
    () => calls.length > 0,
    "the first list",
    () => calls,
  );
  assert.equal(calls[0]?.query.labelSelector, undefined);
});

test("objects found by the first list carry condition times 'since exporter start', later ones 'first seen'; list objects are traced as a replay", async (ctx) => {
  const noTime = (name: string) =>
    widget({ name, status: { conditions: [{ type: "Ready", status: "True" }] } });
  const { tracer, replays } = tracerThat({});
  const { client } = fakeKubeApi({
    lists: [listOf(noTime("listed"))],
    watches: [
      (options: StreamOptions) => {
        options.onOpen?.();
        options.onLine(watchLine("ADDED", noTime("watched")));
        return untilAborted(options.signal);
      },
    ],
  });
  const c = offlineCollector({ client, tracer });
  ctx.after(() => c.collector.stop());
  c.collector.start();
  await waitFor(
    () => c.collector.store.size === 2,
    "the listed and the watched object",
    () => [...c.collector.store.values()].map((e) => e.state.name),
  );
  const source = (uid: string) => c.collector.store.get(uid)?.state.conditions[0]?.sinceSource;
  assert.equal(source("uid-listed"), "exporter_start");
  assert.equal(source("uid-watched"), "first_seen");
  assert.deepEqual(replays, ["listed (replay)", "watched"]);
});

test("an object ingested from a watch event is 'first seen' even before any list finished", () => {
  const c = offlineCollector();
  c.collector.ingest("ADDED", widget({ status: { conditions: [{ type: "Ready", status: "True" }] } }));
  assert.equal(c.collector.store.get("uid-w1")?.state.conditions[0]?.sinceSource, "first_seen");
});

test("a summary that changes with the clock alone is re-evaluated when it is due, without any event", async (ctx) => {
  const since = "2026-01-01T00:01:00Z";
  const due = t(since) + 300;
  const c = offlineCollector({ now: due - 0.01 });
  ctx.after(() => c.collector.stop());
  c.collector.ingest("ADDED", widget({ status: { conditions: [cond("Ready", "False", since)] } }));
  assert.equal(c.collector.store.get("uid-w1")?.summary, "InProgress");
  c.clock.now = due;
  await waitFor(
    () => c.collector.store.get("uid-w1")?.summary === "Failed",
    "Failed once failedAfter passed",
    () => c.collector.store.get("uid-w1")?.summary,
  );
});

test("refreshDue at exactly the due time applies the change", () => {
  const since = "2026-01-01T00:01:00Z";
  const c = offlineCollector({ now: t(since) + 60 });
  c.collector.ingest("ADDED", widget({ status: { conditions: [cond("Ready", "False", since)] } }));
  const due = c.collector.store.get("uid-w1")?.changesAt;
  assert.equal(due, t(since) + 300);
  c.collector.refreshDue(due);
  assert.equal(c.collector.store.get("uid-w1")?.summary, "Failed");
});

test("the detection sampler gets the first objects until it wants no more, and nothing after", () => {
  const sampled: unknown[] = [];
  const sampler = { sample: (raw: unknown) => sampled.push(raw) < 2 };
  const c = offlineCollector({ sampler });
  for (const name of ["a", "b", "c"]) c.collector.ingest("ADDED", ready(name));
  assert.deepEqual(
    sampled.map((raw) => (raw as { metadata: { name: string } }).metadata.name),
    ["a", "b"],
  );
});

test("an object seen again at the same resourceVersion counts its cut labels once", async () => {
  const c = offlineCollector();
  const long = widget({ status: { phase: "x".repeat(200) } });
  c.collector.ingest("ADDED", long);
  c.collector.ingest("MODIFIED", long);
  assert.deepEqual(await values(c.metrics.labelValuesTruncated), [1]);
});

test("a new family selection drops this kind's per-kind series of the families denied, and the series gauge follows", async () => {
  const c = offlineCollector();
  c.collector.ingest("ADDED", widget({ generation: 2, status: { observedGeneration: 1 } }));
  c.clock.now += 10;
  c.collector.ingest(
    "MODIFIED",
    widget({ generation: 2, resourceVersion: "2", status: { observedGeneration: 2 } }),
  );
  assert.equal((await values(c.metrics.kinds.reconcileDuration)).length > 0, true, "a reconcile observed");
  const before = c.collector.store.series;
  c.collector.reselect(
    selectFamilies("cr_", [
      { allow: undefined, optIn: undefined, deny: ["cr_reconcile_duration_seconds", "cr_metadata*"] },
    ]),
    "cr_",
  );
  assert.deepEqual(await values(c.metrics.kinds.reconcileDuration), []);
  assert.ok(c.collector.store.series < before);
  assert.deepEqual((await gauges(c)).series, [c.collector.store.series]);
});

test("a re-judge replaces the info series and the gauges follow a lowered series cap", async () => {
  const c = offlineCollector();
  c.collector.ingest("ADDED", ready("a"));
  c.collector.ingest("ADDED", ready("b"));
  const perObject = c.collector.store.series / 2;
  const settings = c.collector.settings;
  c.metrics.resourceInfo.set({ group: "example.com", version: "v1", kind: "Widget", ...settings.info }, 1);
  c.collector.rejudge({
    ...settings,
    maxSeries: perObject,
    info: { ...settings.info, ready_condition: "Available" },
  });
  const info = (await c.metrics.resourceInfo.get()).values.map(
    (v) => (v.labels as Record<string, unknown>).ready_condition,
  );
  assert.deepEqual(info, ["Available"]);
  assert.equal(c.collector.store.series, perObject);
  assert.deepEqual((await gauges(c)).series, [perObject]);
});

test("a failing tracer or histogram is logged as what failed", () => {
  for (const [fails, ingest, expected] of [
    [{ observe: "observe broke" }, false, "tracing failed for an object: observe broke"],
    [{ tick: "tick broke" }, true, "tracing failed for an object: tick broke"],
    [{ histogram: "histogram broke" }, false, "histograms failed for an object: histogram broke"],
  ] as const) {
    const { logger, messages } = recordingLogger();
    const { tracer } = tracerThat(fails);
    const c = offlineCollector({ tracer, logger });
    if ("histogram" in fails) {
      c.metrics.kinds.reconcileDuration.observe = () => {
        throw new Error(fails.histogram);
      };
    }
    c.collector.ingest("ADDED", widget({ generation: 2, status: { observedGeneration: 1 } }));
    c.collector.ingest(
      "MODIFIED",
      widget({ generation: 2, resourceVersion: "2", status: { observedGeneration: 2 } }),
    );
    if (ingest) c.collector.tickTraces(0);
    assert.ok(messages().includes(expected), `${expected} in ${JSON.stringify(messages())}`);
  }
});

test("a started collector reads as stale once its data is older than the watch's silence bound (75 s by default)", async (ctx) => {
  const { client, calls } = fakeKubeApi({
    lists: [listOf(ready("a"))],
    watches: [
      (options: StreamOptions) => {
        options.onOpen?.();
        return untilAborted(options.signal);
      },
    ],
  });
  const c = offlineCollector({ client });
  ctx.after(() => c.collector.stop());
  c.collector.start();
  await waitFor(
    () => c.collector.status().ready,
    "ready once listed and watching",
    () => calls,
  );
  c.clock.now += 76;
  const status = c.collector.status();
  assert.equal(status.ready, false);
  assert.match(status.detail, /^stale: data not confirmed for 76 s \(more than 75 s\)/);
});

test("an object without uid is counted as skipped, whatever the shard assignment", async () => {
  const c = offlineCollector({ owns: () => false });
  c.collector.ingest("ADDED", { metadata: { name: "nameless" } });
  assert.deepEqual(await values(c.metrics.handlerErrors), [1]);
});

test("a write that changes metadata only (no transition) is stored and is no error", async () => {
  const c = offlineCollector();
  c.collector.ingest("ADDED", ready("a"));
  c.collector.ingest(
    "MODIFIED",
    widget({
      name: "a",
      resourceVersion: "2",
      labels: { team: "a" },
      status: { conditions: [cond("Ready", "True")] },
    }),
  );
  assert.equal(c.collector.store.get("uid-a")?.state.resourceVersion, "2");
  assert.ok(
    (await values(c.metrics.handlerErrors)).every((v) => v === 0),
    "no handler error",
  );
});
