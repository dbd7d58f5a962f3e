// One OTLP/HTTP POST with bounded retries (src/otlp-metrics/transport.ts),
// against a real loopback server answering what each case needs: what is
// sent (POST, headers, gzip level 1), which answers succeed, fail or are
// retried (and when the export's deadline forbids it), how much of an answer
// is read, and what the result reports.
import assert from "node:assert/strict";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import { createServer as createTcpServer, type Socket } from "node:net";
import { mock, test } from "node:test";
import { gunzipSync, gzipSync } from "node:zlib";
import { type RequestSettings, retryAfterMs, send } from "../../../src/otlp-metrics/transport.ts";

interface Received {
  method: string;
  headers: IncomingMessage["headers"];
  body: Buffer;
  remotePort: number | undefined;
}

/** A loopback server calling `handler` with the request's index (0-based), recording every request. */
async function serve(handler: (res: ServerResponse, n: number) => void) {
  const received: Received[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      received.push({
        method: req.method ?? "",
        headers: req.headers,
        body: Buffer.concat(chunks),
        remotePort: req.socket.remotePort,
      });
      handler(res, received.length - 1);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as { port: number };
  return {
    received,
    settings: (over: Partial<RequestSettings> = {}): RequestSettings => ({
      url: `http://127.0.0.1:${port}/v1/metrics`,
      contentType: "application/x-protobuf",
      headers: {},
      compression: "none",
      timeoutMs: 1_000,
      ...over,
    }),
    close: () => {
      server.closeAllConnections();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

const payload = new TextEncoder().encode("points");
/** Settings for a URL no test server of serve() answers (a closed port, a TLS probe). */
const plainSettings = (url: string): RequestSettings => ({
  url,
  contentType: "x",
  headers: {},
  compression: "none",
  timeoutMs: 1_000,
});
const soon = (ms = 5_000) => Date.now() + ms;
const reply =
  (status: number, body = "", headers: Record<string, string> = {}) =>
  (res: ServerResponse) =>
    res.writeHead(status, headers).end(body);

test("POSTs the body with content-type, content-length and the configured headers; a 2xx is a success", async (t) => {
  const s = await serve(reply(204));
  t.after(s.close);
  const r = await send(s.settings({ headers: { "x-tenant": "t1" } }), payload, soon());
  assert.deepEqual(r, { ok: true, attempts: 1, bytes: payload.length, rejectedPoints: 0 });
  const [got] = s.received;
  assert.equal(got?.method, "POST");
  assert.equal(got?.headers["content-type"], "application/x-protobuf");
  assert.equal(got?.headers["content-length"], String(payload.length));
  assert.equal(got?.headers["x-tenant"], "t1");
  assert.equal(got?.headers["content-encoding"], undefined);
  assert.deepEqual(got?.body, Buffer.from(payload));
});

test("gzip: the body is compressed at level 1, decompresses to the payload and says content-encoding: gzip", async (t) => {
  const s = await serve(reply(200));
  t.after(s.close);
  const big = new TextEncoder().encode(
    Array.from({ length: 4_000 }, (_, i) => `cr_object_info{name="w${i % 97}",kind="Widget"} ${i}\n`).join(
      "",
    ),
  );
  const level1 = gzipSync(big, { level: 1 });
  // Otherwise the level would not show in the byte count.
  assert.notEqual(level1.length, gzipSync(big).length);
  const r = await send(s.settings({ compression: "gzip" }), big, soon());
  assert.deepEqual(r, { ok: true, attempts: 1, bytes: level1.length, rejectedPoints: 0 });
  const [got] = s.received;
  assert.equal(got?.headers["content-encoding"], "gzip");
  assert.equal(got?.headers["content-length"], String(level1.length));
  assert.deepEqual(got?.body, level1);
  assert.deepEqual(gunzipSync(got?.body ?? Buffer.alloc(0)), Buffer.from(big));
});

test("partial success: rejectedDataPoints is read as a string or a number, with or without spaces", async (t) => {
  const bodies: [string, number][] = [
    ['{"partialSuccess":{"rejectedDataPoints":"12","errorMessage":"too old"}}', 12],
    ['{"partialSuccess":{"rejectedDataPoints" :  34}}', 34],
    ['{"partialSuccess":{}}', 0],
    ["", 0],
  ];
  const s = await serve((res, n) => res.writeHead(200).end(bodies[n]?.[0]));
  t.after(s.close);
  for (const [body, rejected] of bodies) {
    const r = await send(s.settings(), payload, soon());
    assert.deepEqual(r, { ok: true, attempts: 1, bytes: payload.length, rejectedPoints: rejected }, body);
  }
});

test("a refusal (4xx, 3xx) is not retried; its error carries the status and at most 200 characters of the answer", async (t) => {
  const long = "e".repeat(300);
  const answers: [number, string, string][] = [
    [400, "bad points", "HTTP 400: bad points"],
    [400, "", "HTTP 400"],
    [413, long, `HTTP 413: ${"e".repeat(200)}`],
    [300, "", "HTTP 300"],
  ];
  const s = await serve((res, n) => res.writeHead(answers[n]?.[0] ?? 500).end(answers[n]?.[1]));
  t.after(s.close);
  for (const [status, , error] of answers) {
    const r = await send(s.settings(), payload, soon());
    assert.deepEqual(r, { ok: false, attempts: 1, bytes: payload.length, error }, String(status));
  }
  assert.equal(s.received.length, answers.length);
});

test("a status below 200 is no success", async (t) => {
  // node:http cannot answer one; a raw socket can.
  const server = createTcpServer((socket) =>
    socket.once("data", () => socket.end("HTTP/1.1 099 Odd\r\ncontent-length: 0\r\n\r\n")),
  );
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  t.after(() => new Promise<void>((resolve) => server.close(() => resolve())));
  const { port } = server.address() as { port: number };
  const r = await send(plainSettings(`http://127.0.0.1:${port}/`), payload, soon());
  assert.deepEqual(r, { ok: false, attempts: 1, bytes: payload.length, error: "HTTP 99" });
});

test("a 503 is retried after the backoff, and the next success counts both attempts", async (t) => {
  const s = await serve((res, n) => res.writeHead(n === 0 ? 503 : 200).end());
  t.after(s.close);
  const start = Date.now();
  const r = await send(s.settings(), payload, soon());
  const took = Date.now() - start;
  assert.deepEqual(r, { ok: true, attempts: 2, bytes: payload.length, rejectedPoints: 0 });
  assert.ok(took >= 390 && took < 1_500, `${took} ms`);
});

test("Retry-After is honoured: a wait that would pass the deadline ends the export at once", async (t) => {
  const s = await serve(reply(429, "slow down", { "retry-after": "1" }));
  t.after(s.close);
  const start = Date.now();
  // Backoff alone (at most 600 ms) would leave room for a second attempt.
  const r = await send(s.settings(), payload, soon(800));
  assert.deepEqual(r, {
    ok: false,
    attempts: 1,
    bytes: payload.length,
    error: "HTTP 429: slow down (no time left to retry)",
  });
  assert.ok(Date.now() - start < 300);
  assert.equal(s.received.length, 1);
});

test("a wait that ends exactly at the deadline is not taken", async (t) => {
  const s = await serve(reply(503, "", { "retry-after": "1" }));
  t.after(s.close);
  t.after(() => mock.timers.reset());
  mock.timers.enable({ apis: ["Date"], now: 1_000_000 });
  const r = await send(s.settings(), payload, 1_000_000 + 1_000);
  assert.deepEqual(r, {
    ok: false,
    attempts: 1,
    bytes: payload.length,
    error: "HTTP 503 (no time left to retry)",
  });
});

test("no attempt once the deadline has come", async (t) => {
  const s = await serve(reply(200));
  t.after(s.close);
  t.after(() => mock.timers.reset());
  mock.timers.enable({ apis: ["Date"], now: 5_000_000 });
  const r = await send(s.settings(), payload, 5_000_000);
  assert.deepEqual(r, { ok: false, attempts: 0, bytes: payload.length, error: "export timeout" });
  assert.equal(s.received.length, 0);
});

test("an attempt that gets no answer ends at its timeout with TimeoutError", {
  timeout: 3_000,
}, async (t) => {
  const s = await serve(() => {});
  t.after(s.close);
  const start = Date.now();
  const r = await send(s.settings({ timeoutMs: 60 }), payload, soon(300));
  assert.deepEqual(r, {
    ok: false,
    attempts: 1,
    bytes: payload.length,
    error: "TimeoutError (no time left to retry)",
  });
  assert.ok(Date.now() - start < 250);
});

test("an attempt never outlasts the export's deadline, whatever the request timeout", {
  timeout: 3_000,
}, async (t) => {
  const s = await serve(() => {});
  t.after(s.close);
  const start = Date.now();
  const r = await send(s.settings({ timeoutMs: 10_000 }), payload, soon(150));
  const took = Date.now() - start;
  assert.equal(r.ok, false);
  assert.equal(r.attempts, 1);
  assert.ok(took >= 140 && took < 600, `${took} ms`);
});

test("no timer is left behind once an answer came", async (t) => {
  const s = await serve(reply(200));
  t.after(s.close);
  const timers = () => process.getActiveResourcesInfo().filter((r) => r === "Timeout").length;
  const before = timers();
  const r = await send(s.settings({ timeoutMs: 5_000 }), payload, soon());
  assert.equal(r.ok, true);
  assert.equal(timers(), before);
});

test("a connection error is retryable: its code, and no retry when the deadline leaves no room", async () => {
  const probe = createTcpServer();
  await new Promise<void>((resolve) => probe.listen(0, "127.0.0.1", resolve));
  const { port } = probe.address() as { port: number };
  await new Promise<void>((resolve) => probe.close(() => resolve()));
  const r = await send(plainSettings(`http://127.0.0.1:${port}/`), payload, soon(300));
  assert.deepEqual(r, {
    ok: false,
    attempts: 1,
    bytes: payload.length,
    error: "ECONNREFUSED (no time left to retry)",
  });
});

test("an answer cut off in its body fails the attempt with the connection's error", {
  timeout: 3_000,
}, async (t) => {
  const s = await serve((res) => {
    res.writeHead(200, { "content-length": "1000" });
    res.write("x".repeat(10), () => setTimeout(() => res.socket?.destroy(), 20));
  });
  t.after(s.close);
  const start = Date.now();
  const r = await send(s.settings({ timeoutMs: 2_000 }), payload, soon(300));
  assert.equal(r.ok, false);
  assert.equal(r.attempts, 1);
  assert.match(r.ok ? "" : r.error, /^ECONNRESET/);
  assert.ok(Date.now() - start < 1_000);
});

test("at most 64 KiB of an answer is read: a partial success past it is not seen, one before it is", async (t) => {
  const marker = '{"rejectedDataPoints":"5"}';
  const cases: [number, number][] = [
    [1_000, 5],
    [64 * 1024, 0],
  ];
  const s = await serve((res, n) => {
    res.writeHead(200);
    // Separate writes a little apart arrive as separate chunks.
    res.write("x".repeat(cases[n]?.[0] ?? 0), () => setTimeout(() => res.end(marker), 30));
  });
  t.after(s.close);
  for (const [padding, rejected] of cases) {
    const r = await send(s.settings(), payload, soon());
    assert.deepEqual(
      r,
      { ok: true, attempts: 1, bytes: payload.length, rejectedPoints: rejected },
      String(padding),
    );
  }
});

test("requests to one receiver reuse a kept-alive connection", async (t) => {
  const s = await serve(reply(200));
  t.after(s.close);
  await send(s.settings(), payload, soon());
  await send(s.settings(), payload, soon());
  assert.equal(s.received.length, 2);
  assert.equal(s.received[0]?.headers.connection, "keep-alive");
  assert.equal(s.received[1]?.remotePort, s.received[0]?.remotePort);
});

test("an https endpoint is spoken to over TLS", async (t) => {
  let first: number | undefined;
  const sockets: Socket[] = [];
  const server = createTcpServer((socket) => {
    sockets.push(socket);
    socket.once("data", (b: Buffer) => {
      first ??= b[0];
      socket.destroy();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  t.after(() => {
    for (const s of sockets) s.destroy();
    return new Promise<void>((resolve) => server.close(() => resolve()));
  });
  const { port } = server.address() as { port: number };
  const r = await send(plainSettings(`https://127.0.0.1:${port}/`), payload, soon(300));
  assert.equal(r.ok, false);
  // 0x16: a TLS handshake record (a ClientHello), not an HTTP request line.
  assert.equal(first, 0x16);
});

test("Retry-After: seconds (0 included) or an HTTP date; anything else, negative or infinite, is no wait", () => {
  const now = Date.parse("2026-06-01T00:00:00Z");
  assert.equal(retryAfterMs("0", 0), 0);
  assert.equal(retryAfterMs("2.5", now), 2500);
  assert.equal(retryAfterMs("Infinity", now), undefined);
  assert.equal(retryAfterMs(new Date(now + 7_000).toUTCString(), now), 7_000);
  assert.equal(retryAfterMs(new Date(now - 7_000).toUTCString(), now), 0);
  // Not a number of seconds; Date.parse reads it as a year long past.
  assert.equal(retryAfterMs("-1", now), 0);
});

test("a stopping exporter does not retry", async (t) => {
  const s = await serve(reply(503));
  t.after(s.close);
  const start = Date.now();
  const r = await send(s.settings(), payload, soon(), () => true);
  assert.deepEqual(r, { ok: false, attempts: 1, bytes: payload.length, error: "HTTP 503" });
  assert.ok(Date.now() - start < 300);
});
