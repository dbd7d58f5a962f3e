// How old a resource's data is, and when it is stale: the data timestamp
// gauge (from the start, the oldest scope when several namespaces are
// watched) and the readiness that follows it, driven through the list/watch
// observer the loops call. The silence bound itself is derived in
// kube/list-watch.ts; the real stall (a blackholed connection) is in
// test/e2e/reliability.test.ts.
import assert from "node:assert/strict";
import { test } from "node:test";
import { WatchTelemetry } from "../../../src/collectors/watch-telemetry.ts";
import { livenessCheckMs } from "../../../src/kube/h2-watch.ts";
import {
  defaultWatchTimeoutSeconds,
  livenessGraceMs,
  silenceBoundMs,
  silenceGraceMs,
} from "../../../src/kube/list-watch.ts";
import { createLogger } from "../../../src/log.ts";
import { createSelfMetrics } from "../../../src/metrics/self-metrics.ts";
import { parseExposition } from "../../support/exposition-check.ts";

const identity = {
  group: "example.com",
  version: "v1",
  kind: "Widget",
  resource: "widgets",
  namespaced: true,
};
const labels = 'group="example.com",version="v1",kind="Widget"';

function setup(staleAfterSeconds = 75) {
  const metrics = createSelfMetrics("cr_", "test");
  let now = 1000;
  const telemetry = new WatchTelemetry(identity, {
    metrics,
    logger: createLogger({ write: () => {} }),
    clock: () => now,
    staleAfterSeconds,
  });
  return {
    telemetry,
    at: (seconds: number) => {
      now = seconds;
    },
    sample: async (name: string) =>
      parseExposition(await metrics.registry.metrics()).samples.get(`${name}{${labels}}`),
  };
}

test("the silence bound is the longest watch timeout plus the grace: 75 s by default", () => {
  assert.deepEqual(defaultWatchTimeoutSeconds, [50, 60]);
  assert.equal(silenceGraceMs, 15_000);
  assert.equal(silenceBoundMs({}), 75_000);
  assert.equal(silenceBoundMs({ watchTimeoutSeconds: [5, 10] }), 25_000);
  assert.equal(silenceBoundMs({ watchTimeoutSeconds: [5, 10], inactivityMs: 30_000 }), 30_000);
});

test("over HTTP/2 the silence bound is the connection's PING check plus a grace: 30 s by default, whatever the watch timeout", () => {
  const h2Check = livenessCheckMs({ pingAfterQuietMs: 15_000, pingAnswerMs: 10_000 });
  assert.equal(h2Check, 25_000);
  assert.equal(livenessGraceMs, 5_000);
  assert.equal(silenceBoundMs({}, h2Check), 30_000);
  assert.equal(silenceBoundMs({ watchTimeoutSeconds: [100, 200] }, h2Check), 30_000);
  assert.equal(silenceBoundMs({ inactivityMs: 12_000 }, h2Check), 12_000, "a set inactivity wins");
});

test("the bound a watch reports when it opens is the one readiness keeps; word of its connection confirms the data", () => {
  const { telemetry, at } = setup(75);
  const observer = telemetry.observer("", [""], () => 3);
  at(1000);
  telemetry.listFinished("", [""]);
  observer.silenceBound?.(30_000);
  observer.synced(true);
  assert.deepEqual(telemetry.readiness(1030), { ready: true, detail: "synced, data 30 s old" });
  assert.deepEqual(telemetry.readiness(1031), {
    ready: false,
    detail: "stale: data not confirmed for 31 s (more than 30 s)",
  });
  at(1025);
  observer.alive?.();
  assert.deepEqual(telemetry.readiness(1055), { ready: true, detail: "synced, data 30 s old" });
  observer.silenceBound?.(75_000);
  assert.deepEqual(telemetry.readiness(1100), { ready: true, detail: "synced, data 75 s old" });
});

test("the data and last-event timestamps exist at 0 before anything arrives; the resource is not ready", async () => {
  const { telemetry, sample } = setup();
  assert.equal(await sample("cr_exporter_resource_data_timestamp_seconds"), 0);
  assert.equal(await sample("cr_exporter_last_event_timestamp_seconds"), 0);
  assert.deepEqual(telemetry.readiness(1000), { ready: false, detail: "initial list in progress" });
});

test("a list, a watch opening, events and bookmarks confirm the data; silence past the bound makes it stale", async () => {
  const { telemetry, at, sample } = setup();
  const observer = telemetry.observer("", [""], () => 3);
  observer.synced(false);
  at(1010);
  telemetry.listFinished("", [""]);
  assert.equal(await sample("cr_exporter_resource_data_timestamp_seconds"), 1010);
  at(1012);
  observer.synced(true);
  assert.equal(await sample("cr_exporter_resource_data_timestamp_seconds"), 1012);
  at(1050);
  observer.watchEvent("BOOKMARK");
  assert.equal(await sample("cr_exporter_resource_data_timestamp_seconds"), 1050);
  assert.equal(await sample("cr_exporter_last_event_timestamp_seconds"), 1050);
  assert.deepEqual(telemetry.readiness(1125), { ready: true, detail: "synced, data 75 s old" });
  assert.deepEqual(telemetry.readiness(1126), {
    ready: false,
    detail: "stale: data not confirmed for 76 s (more than 75 s)",
  });
  // The watch went silent and was cut: it is down, with the reason, until it opens again.
  at(1126);
  observer.error("watch", 0, new Error("no data on the watch for 75000 ms; reconnecting"));
  observer.synced(false);
  const down = telemetry.readiness(1140);
  assert.equal(down.ready, false);
  assert.match(
    down.detail,
    /^stale: data not confirmed for 90 s \(more than 75 s\), watch down for 14 s; last error: watch failed: no data on the watch for 75000 ms/,
  );
  at(1141);
  observer.synced(true);
  assert.deepEqual(telemetry.readiness(1141), { ready: true, detail: "synced, data 0 s old" });
});

test("a watch that is down but whose data is still recent is ready, and says it is down", () => {
  const { telemetry, at } = setup();
  const observer = telemetry.observer("", [""], () => 0);
  at(1000);
  telemetry.listFinished("", [""]);
  observer.synced(true);
  at(1020);
  observer.error("watch", 0, new Error("connect ECONNREFUSED"));
  observer.synced(false);
  assert.deepEqual(telemetry.readiness(1030), {
    ready: true,
    detail: "synced, data 30 s old, watch down for 10 s; last error: watch failed: connect ECONNREFUSED",
  });
});

test("with several namespaces the data timestamp is the oldest namespace's", async () => {
  const { telemetry, at, sample } = setup();
  const scopes = ["a", "b", "c"];
  const observers = scopes.map((s) => telemetry.observer(s, scopes, () => 0));
  at(1000);
  telemetry.listFinished("a", scopes);
  telemetry.listFinished("b", scopes);
  assert.equal(await sample("cr_exporter_resource_data_timestamp_seconds"), 0, "c is not listed yet");
  assert.equal(telemetry.readiness(1000).ready, false);
  at(1005);
  telemetry.listFinished("c", scopes);
  assert.equal(await sample("cr_exporter_resource_data_timestamp_seconds"), 1000);
  at(1030);
  observers[0]?.watchEvent("BOOKMARK");
  observers[2]?.watchEvent("ADDED");
  assert.equal(await sample("cr_exporter_resource_data_timestamp_seconds"), 1000, "b is still the oldest");
  at(1040);
  observers[1]?.watchEvent("BOOKMARK");
  assert.equal(await sample("cr_exporter_resource_data_timestamp_seconds"), 1030);
  assert.deepEqual(telemetry.readiness(1100), { ready: true, detail: "synced, data 70 s old" });
});

test("removing the resource removes its timestamps", async () => {
  const { telemetry, sample } = setup();
  telemetry.remove();
  assert.equal(await sample("cr_exporter_resource_data_timestamp_seconds"), undefined);
  assert.equal(await sample("cr_exporter_last_event_timestamp_seconds"), undefined);
});

test("a watch counts as down only once it was lost after a list, not while it has yet to open", () => {
  const { telemetry, at } = setup();
  const observer = telemetry.observer("", [""], () => 0);
  at(1000);
  observer.synced(false);
  at(1010);
  telemetry.listFinished("", [""]);
  assert.deepEqual(
    telemetry.readiness(1011),
    { ready: true, detail: "synced, data 1 s old" },
    "the failure before the first list was the initial list's",
  );
  const scopes = ["a", "b"];
  const several = setup();
  const a = several.telemetry.observer("a", scopes, () => 0);
  several.at(1000);
  several.telemetry.listFinished("a", scopes);
  several.telemetry.listFinished("b", scopes);
  a.synced(true);
  assert.deepEqual(
    several.telemetry.readiness(1010),
    { ready: true, detail: "synced, data 10 s old" },
    "a watch opening while another has yet to is no watch down",
  );
});
