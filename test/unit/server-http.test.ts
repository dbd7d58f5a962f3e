// The exporter's HTTP server (src/server/http.ts) as a scraper and the kubelet
// see it: /healthz, /readyz with its reasons, /metrics by content negotiation
// (OpenMetrics or text, gzip or not, HEAD), methods refused, further routes, a
// writer failure cutting the answer short, and what listen() reports.
import assert from "node:assert/strict";
import { createServer, request } from "node:http";
import { connect } from "node:net";
import { test } from "node:test";
import { gunzipSync } from "node:zlib";
import type { Readiness } from "../../src/collectors/manager.ts";
import { createLogger, type Logger } from "../../src/log.ts";
import { createSelfMetrics } from "../../src/metrics/self-metrics.ts";
import { openMetricsType, prometheusTextType, type SeriesSource } from "../../src/metrics/writer.ts";
import {
  createApp,
  formatReadiness,
  listen,
  type ServerDeps,
  wantsOpenMetrics,
} from "../../src/server/http.ts";

const readyState: Readiness = {
  ready: true,
  resources: [{ resource: "widgets.example.com", ready: true, detail: "synced, data 3 s old" }],
  missing: [],
  crds: { synced: true, error: undefined },
  overLimit: undefined,
};

function logSink(): { logger: Logger; lines: Record<string, unknown>[] } {
  const lines: Record<string, unknown>[] = [];
  return { logger: createLogger({ level: "debug", write: (l) => lines.push(JSON.parse(l)) }), lines };
}

async function serve(t: { after(fn: () => Promise<void>): void }, deps: Partial<ServerDeps> = {}) {
  const metrics = createSelfMetrics("cr", "test");
  const { logger, lines } = logSink();
  const app = createApp({
    sources: () => [],
    metrics,
    prefix: () => "cr",
    readiness: () => readyState,
    logger,
    ...deps,
  });
  const listening = await listen(app, "127.0.0.1:0");
  t.after(() => listening.close());
  return { url: listening.url, metrics, lines, listening };
}

interface Raw {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: Buffer;
}

/** One request with exactly these headers (fetch always asks for gzip and decodes it). */
function raw(url: string, method = "GET", headers: Record<string, string> = {}): Promise<Raw> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method, headers }, (response) => {
      const chunks: Buffer[] = [];
      response.on("data", (c: Buffer) => chunks.push(c));
      response.on("end", () =>
        resolve({ status: response.statusCode ?? 0, headers: response.headers, body: Buffer.concat(chunks) }),
      );
      response.on("error", reject);
    });
    req.once("error", reject);
    req.end();
  });
}

test("/healthz answers ok to GET and HEAD; other methods are 405 on every path", async (t) => {
  const { url } = await serve(t);
  const get = await raw(`${url}/healthz`);
  assert.equal(get.status, 200);
  assert.equal(get.body.toString(), "ok\n");
  assert.equal((await raw(`${url}/healthz`, "HEAD")).status, 200);
  for (const path of ["/healthz", "/readyz", "/metrics", "/elsewhere"]) {
    for (const method of ["POST", "PUT", "DELETE"]) {
      const answer = await raw(`${url}${path}`, method);
      assert.equal(answer.status, 405, `${method} ${path}`);
    }
  }
});

test("/readyz: 200 with the reasons when ready, 503 when not, as plain text", async (t) => {
  let state = readyState;
  const { url } = await serve(t, { readiness: () => state });
  const ready = await raw(`${url}/readyz`);
  assert.equal(ready.status, 200);
  assert.match(String(ready.headers["content-type"]), /^text\/plain/);
  assert.equal(
    ready.body.toString(),
    "ready\ncustomresourcedefinitions: listed\nwidgets.example.com: synced, data 3 s old\n",
  );
  state = {
    ...readyState,
    ready: false,
    resources: [{ resource: "widgets.example.com", ready: false, detail: "initial list running" }],
  };
  const notReady = await raw(`${url}/readyz`);
  assert.equal(notReady.status, 503);
  assert.match(String(notReady.headers["content-type"]), /^text\/plain/);
  assert.equal(
    notReady.body.toString(),
    "not ready\ncustomresourcedefinitions: listed\nwidgets.example.com: not ready: initial list running\n",
  );
});

test("formatReadiness: every part of the state gets its line", () => {
  assert.equal(
    formatReadiness({
      ready: false,
      resources: [
        { resource: "a.example.com", ready: true, detail: "synced" },
        { resource: "b.example.com", ready: false, detail: "stale" },
      ],
      missing: ["c.example.com"],
      crds: { synced: true, error: "watch restarted" },
      overLimit: "3 of 5 watched",
      apiProxy: "starting",
    }),
    [
      "not ready",
      "customresourcedefinitions: listed (watch restarted)",
      "a.example.com: synced",
      "b.example.com: not ready: stale",
      "watch limit: 3 of 5 watched",
      "c.example.com: configured, but no such CRD is installed",
      "api proxy: not ready: starting",
      "",
    ].join("\n"),
  );
  const base = { ready: true, resources: [], missing: [], overLimit: undefined };
  assert.equal(
    formatReadiness({ ...base, crds: { synced: false, error: undefined } }),
    "ready\ncustomresourcedefinitions: not listed yet\n",
  );
  assert.equal(formatReadiness({ ...base, crds: undefined }), "ready\n");
});

test("wantsOpenMetrics: only an Accept naming application/openmetrics-text", () => {
  assert.equal(wantsOpenMetrics(undefined), false);
  assert.equal(wantsOpenMetrics("text/plain;version=0.0.4"), false);
  assert.equal(wantsOpenMetrics("application/openmetrics-text;version=1.0.0,text/plain;q=0.5"), true);
});

test("/metrics: text or OpenMetrics by Accept, gzip when asked, Vary: Accept-Encoding", async (t) => {
  const { url } = await serve(t);
  const plain = await raw(`${url}/metrics`);
  assert.equal(plain.status, 200);
  assert.equal(plain.headers["content-type"], prometheusTextType);
  assert.equal(plain.headers["content-encoding"], undefined);
  assert.match(String(plain.headers.vary), /Accept-Encoding/);
  const text = plain.body.toString();
  assert.match(text, /^# TYPE crexporter_scrape_duration_seconds histogram$/m);
  assert.doesNotMatch(text, /# EOF/);

  const om = await raw(`${url}/metrics`, "GET", {
    Accept: "application/openmetrics-text;version=1.0.0",
    "Accept-Encoding": "gzip",
  });
  assert.equal(om.status, 200);
  assert.equal(om.headers["content-type"], openMetricsType);
  assert.equal(om.headers["content-encoding"], "gzip");
  assert.match(String(om.headers.vary), /Accept-Encoding/);
  assert.match(gunzipSync(om.body).toString(), /# EOF\n$/);

  const refused = await raw(`${url}/metrics`, "GET", { "Accept-Encoding": "gzip;q=0, identity" });
  assert.equal(refused.headers["content-encoding"], undefined);
  assert.match(refused.body.toString(), /^# TYPE crexporter_scrape_duration_seconds histogram$/m);
});

test("HEAD /metrics: the headers of a scrape, no body, nothing written", async (t) => {
  let asked = 0;
  const { url, metrics } = await serve(t, {
    sources: () => {
      asked++;
      return [];
    },
  });
  const head = await raw(`${url}/metrics`, "HEAD", {
    Accept: "application/openmetrics-text",
    "Accept-Encoding": "gzip",
  });
  assert.equal(head.status, 200);
  assert.equal(head.headers["content-type"], openMetricsType);
  assert.equal(head.headers["content-encoding"], "gzip");
  assert.equal(head.body.length, 0);
  assert.equal(asked, 0, "no exposition is written for HEAD");
  const duration = await metrics.scrapeDuration.get();
  assert.equal(duration.values.find((v) => v.metricName?.endsWith("_count"))?.value ?? 0, 0);
});

test("a complete scrape is timed in the scrape duration histogram", async (t) => {
  const { url, metrics } = await serve(t);
  await raw(`${url}/metrics`);
  await raw(`${url}/metrics`, "GET", { "Accept-Encoding": "gzip" });
  const duration = await metrics.scrapeDuration.get();
  assert.equal(duration.values.find((v) => v.metricName?.endsWith("_count"))?.value, 2);
});

test("a writer failure is logged and the scrape is cut short, not answered as complete", async (t) => {
  const failing: SeriesSource = {
    // biome-ignore lint/correctness/useYield: it fails before its first line
    *write() {
      throw new Error("store went away");
    },
  };
  const { url, lines, metrics } = await serve(t, { sources: () => [failing] });
  await assert.rejects(raw(`${url}/metrics`));
  const logged = lines.find((l) => l.msg === "writing /metrics failed");
  assert.ok(logged, JSON.stringify(lines));
  assert.equal(logged.level, "error");
  assert.equal(logged.error, "store went away");
  assert.match(String(logged.stack), /store went away/);
  const duration = await metrics.scrapeDuration.get();
  assert.equal(duration.values.find((v) => v.metricName?.endsWith("_count"))?.value ?? 0, 0);
});

test("a scrape whose client goes away is not timed as a scrape", async (t) => {
  let ended: () => void = () => {};
  const sourceEnded = new Promise<void>((resolve) => {
    ended = resolve;
  });
  const endless: SeriesSource = {
    *write(_family, out) {
      try {
        for (;;) {
          out.write(`${"x".repeat(1000)}\n`);
          yield;
        }
      } finally {
        ended();
      }
    },
  };
  const { url, metrics } = await serve(t, { sources: () => [endless] });
  // The client reads the first bytes and hangs up (destroying the request is reported as an error: ignored).
  await new Promise<void>((resolve) => {
    const req = request(`${url}/metrics`, (response) => {
      response.once("data", () => req.destroy());
    });
    req.once("error", () => undefined);
    req.once("close", resolve);
    req.end();
  });
  await sourceEnded;
  // The scrape's end runs a few promise turns after the source is closed.
  for (let i = 0; i < 5; i++) await new Promise((resolve) => setImmediate(resolve));
  const duration = await metrics.scrapeDuration.get();
  assert.equal(duration.values.find((v) => v.metricName?.endsWith("_count"))?.value ?? 0, 0);
});

test("other paths go to the given routes in order, and are 404 without one", async (t) => {
  const { url } = await serve(t, {
    routes: [
      async (ctx, next) => {
        if (ctx.path === "/first") ctx.body = "first\n";
        else await next();
      },
      async (ctx) => {
        if (ctx.path === "/second") ctx.body = "second\n";
      },
    ],
  });
  assert.equal((await raw(`${url}/first`)).body.toString(), "first\n");
  assert.equal((await raw(`${url}/second`)).body.toString(), "second\n");
  assert.equal((await raw(`${url}/third`)).status, 404);
  const bare = await serve(t);
  assert.equal((await raw(`${bare.url}/third`)).status, 404);
});

test("an error thrown by a route is a 500 and is logged as a warning", async (t) => {
  const { url, lines } = await serve(t, {
    routes: [
      async () => {
        throw new Error("route broke");
      },
    ],
  });
  assert.equal((await raw(`${url}/broken`)).status, 500);
  const logged = lines.find((l) => l.msg === "http error");
  assert.ok(logged, JSON.stringify(lines));
  assert.equal(logged.level, "warn");
  assert.equal(logged.error, "route broke");
});

test("listen: the URL names the bound port, IPv6 in brackets, all interfaces without a host", async (t) => {
  const app = createApp({
    sources: () => [],
    metrics: createSelfMetrics("cr", "test"),
    prefix: () => "cr",
    readiness: () => readyState,
    logger: logSink().logger,
  });
  const any = await listen(app, ":0");
  t.after(() => any.close());
  assert.match(any.url, /^http:\/\/0\.0\.0\.0:\d+$/);
  const port = Number(any.url.split(":").at(-1));
  assert.ok(port > 0);
  assert.equal(any.server.requestTimeout, 120_000);
  assert.equal(any.server.headersTimeout, 30_000);
  assert.equal(any.server.keepAliveTimeout, 65_000);
  assert.equal((await raw(`http://127.0.0.1:${port}/healthz`)).status, 200);
  const v6 = await listen(app, "[::1]:0");
  t.after(() => v6.close());
  assert.match(v6.url, /^http:\/\/\[::1\]:\d+$/);
  assert.equal((await raw(`${v6.url}/healthz`)).status, 200);
});

test("listen: a port in use is an error; close() ends the server and tells the factory", async (t) => {
  const app = createApp({
    sources: () => [],
    metrics: createSelfMetrics("cr", "test"),
    prefix: () => "cr",
    readiness: () => readyState,
    logger: logSink().logger,
  });
  let closed = 0;
  const first = await listen(app, "127.0.0.1:0", {
    scheme: "https",
    create: (handler) => createServer(handler),
    closed: () => closed++,
  });
  assert.match(first.url, /^https:\/\/127\.0\.0\.1:\d+$/);
  const port = Number(first.url.split(":").at(-1));
  await assert.rejects(listen(app, `127.0.0.1:${port}`), /EADDRINUSE/);
  assert.equal(closed, 0);
  await first.close();
  assert.equal(closed, 1);
  assert.equal(first.server.listening, false);
  t.after(() => undefined);
});

test("a request the parser refuses is answered 400, not reset", async (t) => {
  const { url } = await serve(t);
  const port = Number(url.split(":").at(-1));
  const answer = await new Promise<string>((resolve, reject) => {
    const socket = connect(port, "127.0.0.1", () => socket.write("NOT HTTP AT ALL\r\n\r\n"));
    let text = "";
    socket.on("data", (d) => {
      text += d.toString();
    });
    socket.on("close", () => resolve(text));
    socket.on("error", reject);
  });
  assert.match(answer, /^HTTP\/1\.1 400 Bad Request\r\n/);
});
