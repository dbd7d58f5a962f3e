// WatchTelemetry: what the list/watch loops report becomes the self-metrics
// and logs of one resource, and its readiness answers (listed, synced, last
// error). Driven directly through its observer, with a clock and a log sink.
import assert from "node:assert/strict";
import { test } from "node:test";
import { WatchTelemetry } from "../../src/collectors/watch-telemetry.ts";
import { createLogger } from "../../src/log.ts";
import { createSelfMetrics } from "../../src/metrics/self-metrics.ts";

const identity = {
  group: "example.com",
  version: "v1",
  kind: "Widget",
  resource: "widgets",
  namespaced: true,
};
const R = { group: "example.com", version: "v1", kind: "Widget" };

function setup() {
  const metrics = createSelfMetrics("cr_", "0.0.0-test");
  const lines: { level: string; msg: string; [field: string]: unknown }[] = [];
  const logger = createLogger({ level: "debug", write: (line) => lines.push(JSON.parse(line)) });
  const clock = { now: 1_767_225_600 };
  const telemetry = new WatchTelemetry(identity, {
    metrics,
    logger,
    clock: () => clock.now,
    staleAfterSeconds: 600,
  });
  return { metrics, lines, clock, telemetry };
}

interface Readable {
  get(): Promise<{ values: { labels: object; value: number; metricName?: string }[] }>;
}
/** The value of the series with exactly these labels (undefined: no such series). */
async function value(metric: Readable, labels: Record<string, string>): Promise<number | undefined> {
  const { values } = await metric.get();
  const wanted = JSON.stringify(Object.entries(labels).sort());
  return values.find(
    (v) =>
      v.metricName?.endsWith("_bucket") !== true &&
      JSON.stringify(Object.entries(v.labels).sort()) === wanted,
  )?.value;
}

test("the error counters exist at 0 from the start", async () => {
  const { metrics } = setup();
  assert.equal(await value(metrics.handlerErrors, R), 0);
  assert.equal(await value(metrics.seriesDropped, R), 0);
  assert.equal(await value(metrics.labelValuesTruncated, R), 0);
  assert.equal(await value(metrics.conditionsDropped, R), 0);
  assert.equal(await value(metrics.valuesUnreadable, R), 0);
});

test("synced only when every scope is: the gauge, one log line when it becomes so, and the last error cleared", async () => {
  const { metrics, lines, telemetry } = setup();
  const scopes = ["n1", "n2"];
  const n1 = telemetry.observer("n1", scopes, () => 3);
  const n2 = telemetry.observer("n2", scopes, () => 3);
  n1.error("watch", 500, new Error("boom"));
  n1.synced(true);
  assert.equal(await value(metrics.synced, R), 0, "n2 is not synced yet");
  assert.equal(telemetry.syncedAll(scopes), false);
  assert.equal(telemetry.lastError, undefined, "a synced loop clears the last error");
  n2.synced(true);
  assert.equal(await value(metrics.synced, R), 1);
  assert.equal(telemetry.syncedAll(scopes), true);
  n2.synced(true);
  const synced = lines.filter((l) => l.msg === "resource synced");
  assert.equal(synced.length, 1, "logged once, when all scopes became synced");
  assert.equal(synced[0]?.level, "info");
  assert.equal(synced[0]?.objects, 3);
  n1.synced(false);
  assert.equal(await value(metrics.synced, R), 0);
  assert.equal(telemetry.syncedAll(scopes), false);
  n1.synced(true);
  assert.equal(lines.filter((l) => l.msg === "resource synced").length, 2, "synced again after a loss");
});

test("relists are counted by reason; only the ones after the first are logged", async () => {
  const { metrics, lines, telemetry } = setup();
  const o = telemetry.observer("", [""], () => 0);
  o.relist("initial");
  o.relist("expired");
  o.relist("expired");
  assert.equal(await value(metrics.relists, { ...R, reason: "initial" }), 1);
  assert.equal(await value(metrics.relists, { ...R, reason: "expired" }), 2);
  const logged = lines.filter((l) => l.msg === "relisting");
  assert.deepEqual(
    logged.map((l) => [l.level, l.reason, l.resource]),
    [
      ["info", "expired", "example.com/v1/widgets"],
      ["info", "expired", "example.com/v1/widgets"],
    ],
  );
});

test("watch events are counted by type and stamp the time of the last one", async () => {
  const { metrics, clock, telemetry } = setup();
  const o = telemetry.observer("", [""], () => 0);
  o.watchEvent("ADDED");
  clock.now += 7;
  o.watchEvent("MODIFIED");
  o.watchEvent("MODIFIED");
  assert.equal(await value(metrics.watchEvents, { ...R, type: "ADDED" }), 1);
  assert.equal(await value(metrics.watchEvents, { ...R, type: "MODIFIED" }), 2);
  assert.equal(await value(metrics.lastEvent, R), clock.now);
});

test("errors are counted by operation and code; the first of a kind warns, repeats go to debug", async () => {
  const { metrics, lines, telemetry } = setup();
  const o = telemetry.observer("n1", ["n1"], () => 0);
  o.error("list", 403, new Error("forbidden"));
  o.error("list", 403, new Error("forbidden"));
  o.error("watch", 0, "reset");
  assert.equal(await value(metrics.watchErrors, { ...R, operation: "list", code: "403" }), 2);
  assert.equal(await value(metrics.watchErrors, { ...R, operation: "watch", code: "0" }), 1);
  assert.equal(telemetry.lastError, "watch failed: reset", "no HTTP code without one");
  const logged = lines.filter((l) => /failed$/.test(l.msg));
  assert.deepEqual(
    logged.map((l) => [l.level, l.msg, l.error, l.resource]),
    [
      ["warn", "list failed", "list failed (HTTP 403): forbidden", "example.com/v1/widgets in n1"],
      ["debug", "list failed", "list failed (HTTP 403): forbidden", "example.com/v1/widgets in n1"],
      ["warn", "watch failed", "watch failed: reset", "example.com/v1/widgets in n1"],
    ],
  );
});

test("a finished list marks its scope listed and stamps the sync time; list durations are observed and logged", async () => {
  const { metrics, lines, clock, telemetry } = setup();
  telemetry.listFinished("n1", ["n1", "n2"]);
  assert.equal(telemetry.listedAll(["n1"]), true);
  assert.equal(telemetry.listedAll(["n1", "n2"]), false);
  assert.equal(await value(metrics.lastSync, R), clock.now);
  telemetry.observer("n1", ["n1"], () => 0).listDuration(0.25, 10);
  assert.deepEqual(
    lines.filter((l) => l.msg === "list finished").map((l) => [l.level, l.resource, l.objects, l.seconds]),
    [["debug", "example.com/v1/widgets in n1", 10, 0.25]],
  );
  const { values } = await metrics.listDuration.get();
  assert.equal(values.find((v) => v.metricName?.endsWith("_sum"))?.value, 0.25);
  assert.equal(values.find((v) => v.metricName?.endsWith("_count"))?.value, 1);
});

test("skipped objects and handler errors are counted and logged at debug", async () => {
  const { metrics, lines, telemetry } = setup();
  telemetry.objectSkipped(new Error("no name"));
  telemetry.observer("", [""], () => 0).handlerError("not an object");
  assert.equal(await value(metrics.handlerErrors, R), 2);
  assert.deepEqual(
    lines.filter((l) => l.msg === "object skipped").map((l) => [l.level, l.error]),
    [
      ["debug", "no name"],
      ["debug", "not an object"],
    ],
  );
});

test("held objects and series are written to their gauges; remove() drops the per-resource gauges", async () => {
  const { metrics, telemetry } = setup();
  telemetry.held(4, 40);
  assert.equal(await value(metrics.objects, R), 4);
  assert.equal(await value(metrics.series, R), 40);
  telemetry.held(4, 41);
  assert.equal(await value(metrics.series, R), 41);
  telemetry.observer("", [""], () => 0).synced(true);
  telemetry.listFinished("", [""]);
  telemetry.remove();
  for (const gauge of [metrics.synced, metrics.objects, metrics.series, metrics.lastSync])
    assert.equal(await value(gauge, R), undefined);
});

test("the first objects and series counts are written, whatever they are", async () => {
  const { metrics, telemetry } = setup();
  telemetry.held(1, 1);
  assert.equal(await value(metrics.objects, R), 1);
  assert.equal(await value(metrics.series, R), 1);
});

test("synced, objects and series exist at 0 from the start, in the order resources were created, whichever fills first", async () => {
  const { metrics, telemetry } = setup();
  const second = new WatchTelemetry(
    { ...identity, group: "events.k8s.io", kind: "Event", resource: "events" },
    {
      metrics,
      logger: createLogger({ level: "error", write: () => {} }),
      clock: () => 0,
      staleAfterSeconds: 600,
    },
  );
  for (const gauge of [metrics.synced, metrics.objects, metrics.series])
    assert.equal(await value(gauge, R), 0);
  second.held(3, 9);
  telemetry.held(2, 8);
  const kinds = (await metrics.objects.get()).values.map((v) => (v.labels as { kind: string }).kind);
  assert.deepEqual(kinds, ["Widget", "Event"]);
});

test("held() writes a gauge only when its value changed", (t) => {
  const { metrics, telemetry } = setup();
  const objects = t.mock.method(metrics.objects, "set");
  const series = t.mock.method(metrics.series, "set");
  telemetry.held(4, 40);
  telemetry.held(4, 40);
  telemetry.held(4, 41);
  telemetry.held(5, 41);
  assert.deepEqual(
    objects.mock.calls.map((c) => (c.arguments as unknown[])[1]),
    [4, 5],
  );
  assert.deepEqual(
    series.mock.calls.map((c) => (c.arguments as unknown[])[1]),
    [40, 41],
  );
});

test("each watch event type binds its counter once, not per event", async (t) => {
  const { metrics, telemetry } = setup();
  const bind = t.mock.method(metrics.watchEvents, "labels");
  const o = telemetry.observer("", [""], () => 0);
  for (const type of ["ADDED", "MODIFIED", "MODIFIED", "MODIFIED", "ADDED"]) o.watchEvent(type);
  assert.deepEqual(
    bind.mock.calls.map((c) => (c.arguments[0] as { type: string }).type),
    ["ADDED", "MODIFIED"],
  );
  assert.equal(await value(metrics.watchEvents, { ...R, type: "MODIFIED" }), 3);
});

test("what the projection cut is counted: truncated label values and dropped conditions apart", async () => {
  const { metrics, telemetry } = setup();
  telemetry.cuts({ labelValues: 2, conditions: 0, unreadableValues: 0 });
  telemetry.cuts({ labelValues: 0, conditions: 3, unreadableValues: 0 });
  telemetry.cuts({ labelValues: 1, conditions: 1, unreadableValues: 0 });
  assert.equal(await value(metrics.labelValuesTruncated, R), 3);
  assert.equal(await value(metrics.conditionsDropped, R), 4);
  assert.equal(await value(metrics.valuesUnreadable, R), 0);
});

test("unreadable values are counted on every version and logged once per value name, with the object and why", async () => {
  const { metrics, lines, telemetry } = setup();
  const replicas = { name: "replicas", reason: '"three" is not a number' };
  const expiry = { name: "notAfter", reason: '"soon" is not an RFC 3339 time' };
  const w1 = { namespace: "team-a", name: "w1" };
  telemetry.cuts({ labelValues: 0, conditions: 0, unreadableValues: 2, firstUnreadable: replicas }, w1);
  telemetry.cuts({ labelValues: 0, conditions: 0, unreadableValues: 1, firstUnreadable: replicas }, w1);
  telemetry.cuts(
    { labelValues: 0, conditions: 0, unreadableValues: 1, firstUnreadable: expiry },
    { namespace: "", name: "c" },
  );
  assert.equal(await value(metrics.valuesUnreadable, R), 4);
  const warnings = lines.filter((l) => l.level === "warn");
  assert.deepEqual(
    warnings.map((l) => [l.value, l.reason, l.object, l.resource]),
    [
      ["replicas", '"three" is not a number', "team-a/w1", "example.com/v1/widgets"],
      ["notAfter", '"soon" is not an RFC 3339 time', "c", "example.com/v1/widgets"],
    ],
  );
  assert.match(String(warnings[0]?.msg), /no series/);
});
