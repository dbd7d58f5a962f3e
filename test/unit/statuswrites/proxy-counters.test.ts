// The hand-over of the API proxy process's status-write counters to the
// exporter: over a real Unix socket, into the exporter's families beside the
// audit receiver's. An exporter restart loses nothing the proxy counted; a
// proxy restart is a counter reset passed through; an unreachable proxy keeps
// its last values with cr_exporter_api_proxy_up 0; late answers never go back.
import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { test } from "node:test";
import { Registry } from "@prometheus-io/client";
import { silentLogger } from "../../../src/log.ts";
import { writeExposition } from "../../../src/metrics/writer.ts";
import { createStatusWriteMetrics, type StatusWriteObservation } from "../../../src/statuswrites/metrics.ts";
import {
  type CountersServer,
  type ProxyCountersSnapshot,
  parseSnapshot,
  readProxyCounters,
  serveProxyCounters,
} from "../../../src/statuswrites/process/counters-channel.ts";
import {
  acceptSnapshot,
  mergeProxyFamilies,
  ProxyCounters,
  registerProxyProcessMetrics,
} from "../../../src/statuswrites/process/proxy-counters.ts";
import { countersSocketPath } from "../../../src/supervisor/roles.ts";
import { parseExposition } from "../../support/exposition-check.ts";

const write = (code: number, source: "proxy" | "audit" = "proxy"): StatusWriteObservation => ({
  source,
  group: "example.com",
  kind: "Widget",
  namespace: "ns",
  verb: "update",
  code,
  failure: code === 409 ? "Conflict" : undefined,
  durationSeconds: 0.02,
  ...(source === "audit" && { user: "operator" }),
});

/** A proxy process: its own registry and families, serving them on a socket. */
async function startProxy(path: string, restarts: number) {
  const registry = new Registry();
  const metrics = createStatusWriteMetrics(registry, "cr_");
  const server = await serveProxyCounters(
    path,
    {
      instance: randomBytes(4).toString("hex"),
      startTimeSeconds: 1_700_000_000 + restarts,
      restarts,
      url: "https://127.0.0.1:8001",
      caPem: "CA",
      registry,
    },
    silentLogger,
  );
  return { metrics, server };
}

/** An exporter process: its registry, the audit receiver's families, the proxy's merged in. */
function startExporter(path: string, exporterRestarts = 0) {
  const registry = new Registry();
  const audit = createStatusWriteMetrics(registry, "cr_");
  const counters = new ProxyCounters({ read: () => readProxyCounters(path, 2_000), logger: silentLogger });
  mergeProxyFamilies(registry, "cr_", counters);
  registerProxyProcessMetrics(registry, "cr_", counters, exporterRestarts);
  return {
    audit,
    counters,
    async scrape(openMetrics = false) {
      let text = "";
      for await (const chunk of writeExposition({ sources: [], registry, prefix: "cr_", openMetrics }))
        text += chunk;
      return { text, samples: parseExposition(text).samples };
    },
  };
}

const requests = (code: string, source = "proxy") =>
  `cr_status_update_requests_total{group="example.com",kind="Widget",namespace="ns",verb="update",code="${code}",source="${source}"}`;
const conflicts =
  'cr_status_update_failures_total{group="example.com",kind="Widget",namespace="ns",reason="Conflict",source="proxy"}';
const durations =
  'cr_status_update_request_duration_seconds_count{group="example.com",kind="Widget",verb="update",source="proxy"}';

async function closing<T>(servers: CountersServer[], run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } finally {
    for (const server of servers) await server.close();
  }
}

test("an exporter restart loses nothing: the next exporter's first scrape has every write the proxy counted meanwhile", async () => {
  const path = countersSocketPath();
  const proxy = await startProxy(path, 0);
  await closing([proxy.server], async () => {
    for (const code of [200, 200, 409]) proxy.metrics.record(write(code));
    const first = startExporter(path);
    const before = (await first.scrape()).samples;
    assert.equal(before.get(requests("200")), 2);
    assert.equal(before.get(conflicts), 1);
    // The exporter is killed; the proxy keeps counting.
    for (const code of [200, 200, 200, 409]) proxy.metrics.record(write(code));
    const next = startExporter(path, 1);
    const after = (await next.scrape()).samples;
    assert.equal(after.get(requests("200")), 5, "2 before, 3 while no exporter ran");
    assert.equal(after.get(requests("409")), 2);
    assert.equal(after.get(conflicts), 2);
    assert.equal(after.get(durations), 7);
    assert.equal(after.get('cr_exporter_process_restarts_total{process="exporter"}'), 1);
    assert.equal(after.get('cr_exporter_process_restarts_total{process="api-proxy"}'), 0);
    assert.equal(after.get("cr_exporter_api_proxy_up"), 1);
  });
});

test("a proxy restart is a counter reset passed through; while it does not answer its last values stay, with up 0", async () => {
  const path = countersSocketPath();
  const first = await startProxy(path, 0);
  const exporter = startExporter(path);
  for (const code of [200, 200, 200, 409]) first.metrics.record(write(code));
  assert.equal((await exporter.scrape()).samples.get(requests("200")), 3);
  await first.server.close();
  const down = (await exporter.scrape()).samples;
  assert.equal(down.get("cr_exporter_api_proxy_up"), 0);
  assert.equal(down.get(requests("200")), 3, "the last values, not a gap");
  assert.equal(down.get(conflicts), 1);

  const second = await startProxy(path, 1);
  await closing([second.server], async () => {
    second.metrics.record(write(200));
    const back = (await exporter.scrape()).samples;
    assert.equal(back.get("cr_exporter_api_proxy_up"), 1);
    assert.equal(back.get(requests("200")), 1, "the new proxy's count: Prometheus sees the reset");
    assert.equal(back.has(conflicts), false, "a series only the old proxy had is gone");
    assert.equal(back.get('cr_exporter_process_restarts_total{process="api-proxy"}'), 1);
  });
});

test("the proxy's samples join the audit receiver's in the same families, as one family each, in both formats", async () => {
  const path = countersSocketPath();
  const proxy = await startProxy(path, 0);
  await closing([proxy.server], async () => {
    const exporter = startExporter(path);
    proxy.metrics.record(write(200));
    proxy.metrics.record(write(409));
    exporter.audit.record(write(200, "audit"));
    exporter.audit.record(write(200, "audit"));
    // What one process recording both sources renders (the single-process exporter).
    const single = new Registry();
    const both = createStatusWriteMetrics(single, "cr_");
    for (const o of [write(200), write(409), write(200, "audit"), write(200, "audit")]) both.record(o);
    for (const openMetrics of [false, true]) {
      const { text } = await exporter.scrape(openMetrics);
      let expected = "";
      for await (const chunk of writeExposition({
        sources: [],
        registry: single,
        prefix: "cr_",
        openMetrics,
      }))
        expected += chunk;
      const statusWriteLines = (t: string) =>
        t
          .split("\n")
          .filter((l) => l.includes("cr_status_update_"))
          .sort();
      assert.deepEqual(statusWriteLines(text), statusWriteLines(expected), `openMetrics ${openMetrics}`);
      assert.equal(
        text.split("\n").filter((l) => /^# TYPE cr_status_update_requests(_total)? counter$/.test(l)).length,
        1,
        "one family block",
      );
    }
    // OpenMetrics strips _total from counter names while rendering: it is put back for the next scrape.
    assert.match((await exporter.scrape()).text, /^cr_status_update_requests_total\{/m);
  });
});

test("answers are taken in order: a late answer of the same proxy, or of one already replaced, is dropped", () => {
  const snapshot = (restarts: number, instance: string, sequence: number): ProxyCountersSnapshot => ({
    instance,
    pid: 1,
    startTimeSeconds: 0,
    restarts,
    sequence,
    url: "",
    caPem: undefined,
    families: [],
  });
  const a5 = snapshot(0, "a", 5);
  assert.equal(acceptSnapshot(undefined, a5), a5);
  assert.equal(acceptSnapshot(a5, snapshot(0, "a", 4)), a5, "overtaken by a later answer");
  const a6 = snapshot(0, "a", 6);
  assert.equal(acceptSnapshot(a5, a6), a6);
  const b1 = snapshot(1, "b", 1);
  assert.equal(acceptSnapshot(a6, b1), b1, "a restarted proxy starts its sequence again");
  assert.equal(acceptSnapshot(b1, snapshot(0, "a", 7)), b1, "the replaced proxy's late answer");
  const c1 = snapshot(1, "c", 1);
  assert.equal(
    acceptSnapshot(b1, c1),
    c1,
    "another instance with as many restarts (no supervisor count): taken",
  );
});

test("one read per scrape however many families ask; a failed read never rejects", async () => {
  let reads = 0;
  let fail = false;
  const counters = new ProxyCounters({
    read: async () => {
      reads += 1;
      await new Promise((r) => setTimeout(r, 5));
      if (fail) throw new Error("ECONNREFUSED");
      return parseSnapshot({
        instance: "x",
        pid: 2,
        startTimeSeconds: 1,
        restarts: 0,
        sequence: reads,
        url: "https://127.0.0.1:1",
        families: [
          { name: "cr_status_update_requests_total", values: [{ labels: { code: "200" }, value: 4 }] },
        ],
      });
    },
    logger: silentLogger,
  });
  await Promise.all([counters.refresh(), counters.refresh(), counters.refresh()]);
  assert.equal(reads, 1);
  assert.deepEqual(counters.samples("cr_status_update_requests_total"), [
    { metricName: undefined, labels: { code: "200" }, value: 4 },
  ]);
  fail = true;
  await counters.refresh();
  assert.equal(counters.up, false);
  assert.equal(counters.samples("cr_status_update_requests_total").length, 1);
});

test("a snapshot is checked field by field: anything else on the socket is refused", () => {
  const good = {
    instance: "x",
    pid: 1,
    startTimeSeconds: 1,
    restarts: 0,
    sequence: 1,
    url: "u",
    families: [{ name: "f", values: [{ labels: { le: 0.5, a: "b" }, value: 1, metricName: "f_bucket" }] }],
  };
  assert.equal(parseSnapshot(good).families[0]?.values[0]?.labels.le, 0.5);
  for (const bad of [
    null,
    [],
    { ...good, instance: 1 },
    { ...good, sequence: "1" },
    { ...good, restarts: Number.NaN },
    { ...good, families: {} },
    { ...good, families: [{ name: "f", values: [{ labels: {}, value: "1" }] }] },
    { ...good, families: [{ name: "f", values: [{ labels: { a: {} }, value: 1 }] }] },
    { ...good, caPem: 5 },
  ]) {
    assert.throws(() => parseSnapshot(bad), Error, JSON.stringify(bad));
  }
});
