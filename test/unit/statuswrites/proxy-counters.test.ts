// The hand-over of the API proxy process's status-write counters to the
// exporter: over a real Unix socket, into the exporter's families beside the
// audit receiver's. An exporter restart loses nothing the proxy counted; a
// proxy restart is a counter reset passed through; an unreachable proxy keeps
// its last values with cr_exporter_api_proxy_up 0; late answers never go back.
import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createServer, request as httpRequest, type IncomingMessage, type ServerResponse } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { Registry } from "@prometheus-io/client";
import { createLogger, silentLogger } from "../../../src/log.ts";
import { writeExposition } from "../../../src/metrics/writer.ts";
import { createStatusWriteMetrics, type StatusWriteObservation } from "../../../src/statuswrites/metrics.ts";
import {
  type CountersServer,
  type ProxyCountersSnapshot,
  parseSnapshot,
  readProxyCounters,
  serveProxyCounters,
  socketAddress,
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

test("a snapshot missing any other field, or with a value that is not finite, is refused; caPem may be absent", () => {
  const good = {
    instance: "x",
    pid: 1,
    startTimeSeconds: 1,
    restarts: 0,
    sequence: 1,
    url: "u",
    families: [{ name: "f", values: [{ labels: { a: "b" }, value: 1 }] }],
  };
  assert.equal(parseSnapshot(good).caPem, undefined);
  assert.deepEqual(parseSnapshot({ ...good, caPem: "CA" }), {
    ...good,
    caPem: "CA",
    families: [{ name: "f", values: [{ metricName: undefined, labels: { a: "b" }, value: 1 }] }],
  });
  const refusals: [unknown, RegExp][] = [
    [{ ...good, url: 1 }, /^Error: no instance or url$/],
    [{ ...good, pid: undefined }, /^Error: pid is not a number$/],
    [{ ...good, startTimeSeconds: Number.POSITIVE_INFINITY }, /^Error: startTimeSeconds is not a number$/],
    [{ ...good, families: [{ values: [] }] }, /^Error: a family without a name and values$/],
    [{ ...good, families: [{ name: "f", values: {} }] }, /^Error: a family without a name and values$/],
    [{ ...good, families: ["f"] }, /^Error: a family without a name and values$/],
    [{ ...good, families: [{ name: "f", values: [{ labels: {}, value: Number.NaN }] }] }, /finite value/],
    [{ ...good, families: [{ name: "f", values: [{ labels: [], value: 1 }] }] }, /finite value/],
    [{ ...good, families: [{ name: "f", values: [{ value: 1 }] }] }, /finite value/],
    [{ ...good, families: [{ name: "f", values: [null] }] }, /finite value/],
    [
      { ...good, families: [{ name: "f", values: [{ labels: { a: true }, value: 1 }] }] },
      /^Error: label a is not a value$/,
    ],
    [
      { ...good, families: [{ name: "f", values: [{ labels: {}, value: 1, metricName: 3 }] }] },
      /^Error: a sample whose metricName is not a string$/,
    ],
    ["text", /^Error: the counters are not a JSON object$/],
    [{ ...good, caPem: 5 }, /^Error: caPem is not a string$/],
    [{ ...good, families: {} }, /^Error: no families$/],
  ];
  for (const [bad, message] of refusals)
    assert.throws(() => parseSnapshot(bad), message, JSON.stringify(bad));
});

/** A GET on the counters socket with another method or path: the status code. */
function requestOn(path: string, method: string, url: string): Promise<number | undefined> {
  return new Promise((resolve, reject) => {
    const req = httpRequest({ socketPath: socketAddress(path), method, path: url, agent: false }, (res) => {
      res.resume();
      resolve(res.statusCode);
    });
    req.on("error", reject);
    req.end();
  });
}

/** A server on a counters socket that answers as `handle` says. */
async function fakeCountersServer(path: string, handle: (req: IncomingMessage, res: ServerResponse) => void) {
  const server = createServer(handle);
  await new Promise<void>((resolve) => server.listen(socketAddress(path), resolve));
  return {
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

test("the counters socket answers GET /counters only", async () => {
  const path = countersSocketPath();
  const proxy = await startProxy(path, 0);
  await closing([proxy.server], async () => {
    assert.equal(await requestOn(path, "GET", "/counters"), 200);
    assert.equal(await requestOn(path, "POST", "/counters"), 404);
    assert.equal(await requestOn(path, "GET", "/metrics"), 404);
  });
});

test("a registry that cannot be read answers 500 and is logged; the reader rejects naming the code", async () => {
  const path = countersSocketPath();
  const lines: Record<string, unknown>[] = [];
  const server = await serveProxyCounters(
    path,
    {
      instance: "x",
      startTimeSeconds: 1,
      restarts: 0,
      url: "u",
      caPem: undefined,
      registry: {
        getMetricsAsJSON: async () => {
          throw new Error("broken");
        },
      } as unknown as Registry,
    },
    createLogger({ write: (line) => lines.push(JSON.parse(line)) }),
  );
  await closing([server], async () => {
    await assert.rejects(readProxyCounters(path, 2_000), /^Error: the API proxy answered HTTP 500$/);
  });
  assert.deepEqual(
    lines.map((l) => [l.level, l.msg, l.error]),
    [["error", "reading the status-write counters failed", "Error: broken"]],
  );
});

test("each snapshot a proxy serves has the next sequence number, its pid and its fields", async () => {
  const path = countersSocketPath();
  const registry = new Registry();
  createStatusWriteMetrics(registry, "cr_").record(write(200));
  const server = await serveProxyCounters(
    path,
    { instance: "i1", startTimeSeconds: 12, restarts: 2, url: "https://p", caPem: "CA", registry },
    silentLogger,
  );
  await closing([server], async () => {
    const first = await readProxyCounters(path, 2_000);
    const second = await readProxyCounters(path, 2_000);
    assert.deepEqual(
      [first.sequence, second.sequence, first.instance, first.pid, first.startTimeSeconds, first.restarts],
      [1, 2, "i1", process.pid, 12, 2],
    );
    assert.deepEqual([first.url, first.caPem], ["https://p", "CA"]);
    const histogram = first.families.find((f) => f.name === "cr_status_update_request_duration_seconds");
    assert.ok(
      histogram?.values.some((v) => v.metricName === "cr_status_update_request_duration_seconds_bucket"),
      "histogram samples keep their metric name",
    );
  });
});

test("the reader rejects an answer that is not JSON, one over 32 MiB, and a proxy that does not answer in time", async () => {
  const path = countersSocketPath();
  let mode: "text" | "huge" | "silent" = "text";
  const server = await fakeCountersServer(path, (_req, res) => {
    if (mode === "text") res.end("not json");
    else if (mode === "huge") {
      res.writeHead(200);
      const chunk = Buffer.alloc(1024 * 1024, 0x20);
      let sent = 0;
      const more = (): void => {
        while (sent < 40) {
          sent++;
          if (!res.write(chunk)) {
            res.once("drain", more);
            return;
          }
        }
        res.end();
      };
      res.on("error", () => {});
      more();
    }
  });
  await closing([server as CountersServer], async () => {
    await assert.rejects(readProxyCounters(path, 2_000), SyntaxError);
    mode = "huge";
    await assert.rejects(
      readProxyCounters(path, 5_000),
      /^Error: the API proxy's counters are over 33554432 bytes$/,
    );
    mode = "silent";
    await assert.rejects(readProxyCounters(path, 50), /^Error: the API proxy did not answer within 50 ms$/);
  });
});

test("a counters socket given as a file path replaces a stale file and removes it when closed", async () => {
  const directory = mkdtempSync(join(tmpdir(), "cr-counters-"));
  try {
    const path = join(directory, "counters.sock");
    writeFileSync(path, "stale");
    assert.equal(socketAddress(path), path, "a file path is used as it is");
    const proxy = await startProxy(path, 0);
    assert.equal((await readProxyCounters(path, 2_000)).restarts, 0);
    await proxy.server.close();
    assert.equal(existsSync(path), false);
  } finally {
    rmSync(directory, { recursive: true, force: true });
  }
  assert.equal(socketAddress("@name/x"), "\0name/x", "an abstract name");
});

test("the reader logs a lost proxy once, and when it is readable again or was restarted", async () => {
  const lines: Record<string, unknown>[] = [];
  let answer: ProxyCountersSnapshot | Error = new Error("ECONNREFUSED");
  const snapshot = (instance: string, restarts: number, sequence: number): ProxyCountersSnapshot => ({
    instance,
    pid: 7,
    startTimeSeconds: 1,
    restarts,
    sequence,
    url: "u",
    caPem: undefined,
    families: [],
  });
  const counters = new ProxyCounters({
    read: async () => {
      if (answer instanceof Error) throw answer;
      return answer;
    },
    logger: createLogger({ write: (line) => lines.push(JSON.parse(line)) }),
  });
  const said = () => lines.splice(0).map((l) => [l.level, l.msg]);
  await counters.refresh();
  assert.deepEqual(
    [counters.up, counters.snapshot, said()],
    [false, undefined, []],
    "never up: nothing to say",
  );
  answer = snapshot("a", 0, 1);
  await counters.refresh();
  assert.deepEqual([counters.up, said()], [true, []], "the first answer is no news");
  answer = new Error("ECONNREFUSED");
  await counters.refresh();
  await counters.refresh();
  assert.deepEqual(
    [counters.up, said()],
    [false, [["warn", "cannot read the API proxy's counters; its last values stay exposed"]]],
    "said once",
  );
  answer = snapshot("a", 0, 2);
  await counters.refresh();
  assert.deepEqual([counters.up, said()], [true, [["info", "the API proxy's counters are readable again"]]]);
  answer = snapshot("b", 1, 1);
  await counters.refresh();
  assert.deepEqual(said(), [
    ["info", "the API proxy process was restarted; its counters started again from zero"],
  ]);
  answer = snapshot("b", 1, 2);
  await counters.refresh();
  assert.deepEqual(said(), [], "a later answer of the same process");
  assert.equal(counters.snapshot?.sequence, 2);
});

test("the restart counter is set afresh at each scrape, not added to", async () => {
  const registry = new Registry();
  createStatusWriteMetrics(registry, "cr_");
  const snapshot = { restarts: 2 } as ProxyCountersSnapshot;
  registerProxyProcessMetrics(registry, "cr_", { refresh: async () => {}, up: true, snapshot }, 4);
  for (let i = 0; i < 2; i++) {
    const samples = parseExposition(await registry.metrics()).samples;
    assert.equal(samples.get('cr_exporter_process_restarts_total{process="exporter"}'), 4);
    assert.equal(samples.get('cr_exporter_process_restarts_total{process="api-proxy"}'), 2);
    assert.equal(samples.get("cr_exporter_api_proxy_up"), 1);
  }
});

test("merging needs the status-write families registered first", () => {
  const counters = new ProxyCounters({
    read: async () => Promise.reject(new Error("x")),
    logger: silentLogger,
  });
  assert.throws(
    () => mergeProxyFamilies(new Registry(), "cr_", counters),
    /^Error: cr_status_update_requests_total is not registered$/,
  );
});

test("resetting a merged family resets the local samples", async () => {
  const registry = new Registry();
  const audit = createStatusWriteMetrics(registry, "cr_");
  const counters = new ProxyCounters({
    read: async () => Promise.reject(new Error("x")),
    logger: silentLogger,
  });
  mergeProxyFamilies(registry, "cr_", counters);
  audit.record(write(200, "audit"));
  assert.equal(parseExposition(await registry.metrics()).samples.get(requests("200", "audit")), 1);
  registry.resetMetrics();
  assert.equal(parseExposition(await registry.metrics()).samples.has(requests("200", "audit")), false);
});

test("anything but an object is refused as such; another instance with as many restarts is taken whatever its sequence", () => {
  for (const bad of [null, [], "text", 5]) {
    assert.throws(
      () => parseSnapshot(bad),
      { message: "the counters are not a JSON object" },
      JSON.stringify(bad),
    );
  }
  const snapshot = (instance: string, sequence: number): ProxyCountersSnapshot => ({
    instance,
    pid: 1,
    startTimeSeconds: 0,
    restarts: 2,
    sequence,
    url: "",
    caPem: undefined,
    families: [],
  });
  const old = snapshot("a", 40);
  const replacement = snapshot("b", 1);
  assert.equal(acceptSnapshot(old, replacement), replacement);
});

test("the counters are answered as JSON with their length; a file socket needs no stale file", async () => {
  const directory = mkdtempSync(join(tmpdir(), "cr-counters-"));
  try {
    const path = join(directory, "fresh.sock");
    const proxy = await startProxy(path, 0);
    try {
      const headers = await new Promise<Record<string, unknown>>((resolve, reject) => {
        const req = httpRequest({ socketPath: path, path: "/counters", agent: false }, (res) => {
          let length = 0;
          res.on("data", (c: Buffer) => {
            length += c.length;
          });
          res.on("end", () => resolve({ ...res.headers, received: length }));
        });
        req.on("error", reject);
        req.end();
      });
      assert.equal(headers["content-type"], "application/json");
      assert.equal(Number(headers["content-length"]), headers.received);
    } finally {
      await proxy.server.close();
    }
    assert.equal(existsSync(path), false);
  } finally {
    rmSync(directory, { recursive: true, force: true });
  }
});
