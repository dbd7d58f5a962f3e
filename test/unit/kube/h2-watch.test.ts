// Watch streams over HTTP/2 against a local node:http2 TLS server (a
// throw-away CA and certificates): lines arrive, a connection whose PINGs go
// unanswered (a relay that stops forwarding) fails its streams within
// quiet + answer, a server that speaks HTTP/1.1 only gets its watches that
// way, and a session full to its stream limit makes room in a new one.
// Timings are shrunk through the client's tuning; nothing sleeps a fixed time.
import assert from "node:assert/strict";
import http2 from "node:http2";
import https from "node:https";
import type { AddressInfo } from "node:net";
import { type TestContext, test } from "node:test";
import { KubeConfig } from "@kubernetes/client-node";
import { createKubeClient, h2Headers, type StreamTransport, viaProxy } from "../../../src/kube/client.ts";
import { type H2Tuning, livenessCheckMs, sessionKey } from "../../../src/kube/h2-watch.ts";
import { createLogger } from "../../../src/log.ts";
import { makeTestCertificates } from "../../helpers/tls-certs.ts";
import { startTcpRelay } from "../../support/tcp-relay.ts";

const certs = makeTestCertificates("test-user");

function kubeConfigFor(server: string): KubeConfig {
  const kubeConfig = new KubeConfig();
  kubeConfig.loadFromOptions({
    clusters: [{ name: "test", server, caData: Buffer.from(certs.caPem).toString("base64") }],
    users: [{ name: "test", token: "s3cret" }],
    contexts: [{ name: "test", cluster: "test", user: "test" }],
    currentContext: "test",
  });
  return kubeConfig;
}

interface Served {
  url: string;
  /** Request paths and headers, as the server saw them. */
  seen: { path: string; headers: http2.IncomingHttpHeaders }[];
  /** TLS connections accepted. */
  connections(): number;
}

/** An HTTP/2 TLS server; `handle` answers each stream. Closed (sessions too) when the test ends. */
async function serveH2(
  t: TestContext,
  handle: (stream: http2.ServerHttp2Stream, headers: http2.IncomingHttpHeaders) => void,
  settings: http2.Settings = {},
): Promise<Served> {
  const seen: Served["seen"] = [];
  const sessions = new Set<http2.ServerHttp2Session>();
  let connections = 0;
  const server = http2.createSecureServer({ cert: certs.serverCertPem, key: certs.serverKeyPem, settings });
  server.on("secureConnection", () => connections++);
  server.on("session", (session) => {
    sessions.add(session);
    session.once("close", () => sessions.delete(session));
  });
  server.on("stream", (stream, headers) => {
    seen.push({ path: String(headers[":path"]), headers });
    stream.on("error", () => {});
    handle(stream, headers);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  t.after(
    () =>
      new Promise<void>((resolve) => {
        for (const session of sessions) session.destroy();
        server.close(() => resolve());
      }),
  );
  return {
    url: `https://127.0.0.1:${(server.address() as AddressInfo).port}`,
    seen,
    connections: () => connections,
  };
}

/** Small timings, so a dead connection is found in well under a second. */
const quick: Partial<H2Tuning> = {
  pingAfterQuietMs: 100,
  pingAnswerMs: 150,
  aliveNoticeMs: 20,
  idleSessionMs: 200,
};

/** Answers a watch with these lines and holds it open. */
const holdWith =
  (...lines: string[]) =>
  (stream: http2.ServerHttp2Stream): void => {
    stream.respond({ ":status": 200, "content-type": "application/json" });
    for (const line of lines) stream.write(`${line}\n`);
  };

function until(what: string, check: () => boolean, timeoutMs = 2_000): Promise<void> {
  const deadline = performance.now() + timeoutMs;
  return new Promise((resolve, reject) => {
    const poll = (): void => {
      if (check()) resolve();
      else if (performance.now() > deadline) reject(new Error(`timed out waiting for ${what}`));
      else setTimeout(poll, 5);
    };
    poll();
  });
}

test("a watch goes over h2: its lines arrive, with fresh headers in h2's form, and the transport says it checks the connection", {
  timeout: 10_000,
}, async (t) => {
  const served = await serveH2(t, (stream) => {
    stream.respond({ ":status": 200 });
    stream.end('{"type":"ADDED","object":{}}\n\n{"type":"BOOKMARK"}\n');
  });
  const client = createKubeClient(kubeConfigFor(served.url), { h2: quick });
  const lines: string[] = [];
  let transport: StreamTransport | undefined;
  await client.stream("/apis/example.com/v1/widgets", {
    query: { watch: 1 },
    signal: new AbortController().signal,
    onLine: (line) => lines.push(line),
    onOpen: (opened) => {
      transport = opened;
    },
  });
  assert.deepEqual(lines, ['{"type":"ADDED","object":{}}', '{"type":"BOOKMARK"}']);
  assert.deepEqual(transport, { protocol: "h2", livenessCheckMs: 250 });
  assert.equal(served.seen[0]?.path, "/apis/example.com/v1/widgets?watch=1");
  assert.equal(served.seen[0]?.headers.authorization, "Bearer s3cret");
  assert.equal(served.seen[0]?.headers.accept, "application/json");
  assert.match(String(served.seen[0]?.headers["user-agent"]), /^cr-status-exporter\//);
});

test("over h2 a non-2xx answer is the same KubeHttpError as over HTTP/1.1", {
  timeout: 10_000,
}, async (t) => {
  const served = await serveH2(t, (stream) => {
    stream.respond({ ":status": 403, "content-type": "application/json" });
    stream.end(JSON.stringify({ kind: "Status", code: 403, message: "forbidden: no watch" }));
  });
  const client = createKubeClient(kubeConfigFor(served.url), { h2: quick });
  await assert.rejects(
    client.stream("/apis/x", { signal: new AbortController().signal, onLine: () => {} }),
    (error: { status?: number; message?: string }) =>
      error.status === 403 && error.message === "GET /apis/x: HTTP 403: forbidden: no watch",
  );
});

test("watches to one server share a session; an aborted watch ends without touching the others", {
  timeout: 10_000,
}, async (t) => {
  const served = await serveH2(t, holdWith('{"type":"BOOKMARK"}'));
  const client = createKubeClient(kubeConfigFor(served.url), { h2: quick });
  const first = new AbortController();
  const second = new AbortController();
  let lines = 0;
  const watch = (signal: AbortSignal) => client.stream("/w", { signal, onLine: () => lines++ });
  const a = watch(first.signal);
  const b = watch(second.signal);
  await until("both watches' first lines", () => lines === 2);
  assert.equal(served.connections(), 1, "one TLS connection carries both");
  first.abort();
  await assert.rejects(a);
  const third = new AbortController();
  const c = watch(third.signal);
  await until("the third watch's line", () => lines === 3);
  assert.equal(served.connections(), 1, "still the same connection");
  second.abort();
  third.abort();
  await Promise.allSettled([b, c]);
});

test("a connection whose PINGs go unanswered fails its watches within quiet + answer, logged once with the server", {
  timeout: 10_000,
}, async (t) => {
  const served = await serveH2(t, holdWith('{"type":"BOOKMARK"}'));
  const target = new URL(served.url);
  const relay = await startTcpRelay(t, { host: target.hostname, port: Number(target.port) });
  const logs: string[] = [];
  const client = createKubeClient(kubeConfigFor(`https://127.0.0.1:${relay.port}`), {
    h2: quick,
    logger: createLogger({ write: (line) => logs.push(line) }),
  });
  let lines = 0;
  const watches = [0, 1].map(() =>
    client.stream("/w", { signal: new AbortController().signal, onLine: () => lines++ }),
  );
  await until("both watches' lines", () => lines === 2);
  const frozenAt = performance.now();
  relay.freeze(10_000);
  for (const watch of watches)
    await assert.rejects(watch, /no answer to a PING from https:\/\/127\.0\.0\.1:\d+ within 150 ms/);
  const tookMs = performance.now() - frozenAt;
  assert.ok(tookMs >= 150, `not before a PING went unanswered (${tookMs} ms)`);
  assert.ok(
    tookMs < livenessCheckMs({ pingAfterQuietMs: 100, pingAnswerMs: 150 }) + 200,
    `found in ${tookMs} ms`,
  );
  const dropped = logs.map((l) => JSON.parse(l)).filter((l) => l.msg.includes("PING went unanswered"));
  assert.equal(dropped.length, 1, "one line for the connection, not one per watch");
  assert.equal(dropped[0].level, "warn");
  assert.equal(dropped[0].server, `https://127.0.0.1:${relay.port}`);
  assert.equal(dropped[0].streams, 2);
  assert.ok(dropped[0].silentSeconds >= 0.1);
  relay.pass();
  // The next watch opens a new connection (the relay passes new ones).
  const again = new AbortController();
  const next = client.stream("/w", { signal: again.signal, onLine: () => lines++ });
  await until("a watch on a new connection", () => lines === 3);
  again.abort();
  await assert.rejects(next);
});

test("a quiet watch hears that its connection is alive: from answered PINGs, and from another watch's bytes", {
  timeout: 10_000,
}, async (t) => {
  const busy: http2.ServerHttp2Stream[] = [];
  const served = await serveH2(t, (stream, headers) => {
    stream.respond({ ":status": 200 });
    if (headers[":path"] === "/busy") busy.push(stream);
  });
  const client = createKubeClient(kubeConfigFor(served.url), {
    h2: { ...quick, pingAfterQuietMs: 60_000, aliveNoticeMs: 0 },
  });
  let alive = 0;
  const quiet = new AbortController();
  const loud = new AbortController();
  const quietWatch = client.stream("/quiet", {
    signal: quiet.signal,
    onLine: () => {},
    onAlive: () => alive++,
  });
  const loudWatch = client.stream("/busy", { signal: loud.signal, onLine: () => {} });
  await until("the busy watch", () => busy.length === 1);
  const before = alive;
  busy[0]?.write('{"type":"BOOKMARK"}\n');
  await until("word of the other watch's bytes", () => alive > before);
  loud.abort();
  quiet.abort();
  await Promise.allSettled([quietWatch, loudWatch]);

  // PINGs alone (nothing else is said on the connection).
  const pinged = createKubeClient(kubeConfigFor(served.url), { h2: { ...quick, aliveNoticeMs: 0 } });
  let heard = 0;
  const idle = new AbortController();
  const idleWatch = pinged.stream("/quiet", {
    signal: idle.signal,
    onLine: () => {},
    onAlive: () => heard++,
  });
  await until("two answered PINGs", () => heard >= 2);
  idle.abort();
  await assert.rejects(idleWatch);
});

/** Two watches, one after the other, each of one BOOKMARK line, both over HTTP/1.1. */
async function twoBookmarkWatchesOverHttp1(client: ReturnType<typeof createKubeClient>): Promise<void> {
  const transports: (StreamTransport | undefined)[] = [];
  for (let i = 0; i < 2; i++) {
    const lines: string[] = [];
    await client.stream("/w", {
      signal: new AbortController().signal,
      onLine: (line) => lines.push(line),
      onOpen: (transport) => transports.push(transport),
    });
    assert.deepEqual(lines, ['{"type":"BOOKMARK"}']);
  }
  assert.deepEqual(transports, [{ protocol: "http/1.1" }, { protocol: "http/1.1" }]);
}

test("a server that speaks HTTP/1.1 only gets its watches that way, and is not asked for h2 again", {
  timeout: 10_000,
}, async (t) => {
  const server = https.createServer({ cert: certs.serverCertPem, key: certs.serverKeyPem }, (_req, res) => {
    res.writeHead(200, { "content-type": "application/json" });
    res.end('{"type":"BOOKMARK"}\n');
  });
  let connections = 0;
  server.on("secureConnection", () => connections++);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  t.after(
    () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  );
  const client = createKubeClient(
    kubeConfigFor(`https://127.0.0.1:${(server.address() as AddressInfo).port}`),
    {
      h2: quick,
    },
  );
  await twoBookmarkWatchesOverHttp1(client);
  // The h2 attempt (ALPN said http/1.1), then HTTP/1.1's own connection, kept alive for the second watch.
  assert.equal(connections, 2);
});

test("a server that resets a watch's h2 stream with HTTP_1_1_REQUIRED gets it over HTTP/1.1, and later ones that way", {
  timeout: 10_000,
}, async (t) => {
  const versions: string[] = [];
  const server = http2.createSecureServer(
    { cert: certs.serverCertPem, key: certs.serverKeyPem, allowHTTP1: true },
    (req, res) => {
      versions.push(req.httpVersion);
      if (req.httpVersion === "2.0") req.stream.close(http2.constants.NGHTTP2_HTTP_1_1_REQUIRED);
      else {
        res.writeHead(200, { "content-type": "application/json" });
        res.end('{"type":"BOOKMARK"}\n');
      }
    },
  );
  const sessions = new Set<http2.ServerHttp2Session>();
  server.on("session", (session) => sessions.add(session));
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  t.after(
    () =>
      new Promise<void>((resolve) => {
        for (const session of sessions) session.destroy();
        server.close(() => resolve());
      }),
  );
  const client = createKubeClient(
    kubeConfigFor(`https://127.0.0.1:${(server.address() as AddressInfo).port}`),
    { h2: quick },
  );
  await twoBookmarkWatchesOverHttp1(client);
  // Asked over h2 once, then HTTP/1.1 for both watches.
  assert.deepEqual(versions, ["2.0", "1.1", "1.1"]);
});

test("a session full to the server's stream limit, or to the client's cap, makes room in a new session", {
  timeout: 10_000,
}, async (t) => {
  const limited = await serveH2(t, holdWith('{"type":"BOOKMARK"}'), { maxConcurrentStreams: 2 });
  const client = createKubeClient(kubeConfigFor(limited.url), { h2: quick });
  const stop = new AbortController();
  let lines = 0;
  const watch = () => client.stream("/w", { signal: stop.signal, onLine: () => lines++ });
  const open = [watch(), watch()];
  await until("two watches", () => lines === 2);
  open.push(watch());
  await until("the third watch, not waiting for a slot", () => lines === 3);
  assert.equal(limited.connections(), 2, "the server allows 2 streams a connection: a second one");
  stop.abort();
  await Promise.allSettled(open);

  const roomy = await serveH2(t, holdWith('{"type":"BOOKMARK"}'));
  const capped = createKubeClient(kubeConfigFor(roomy.url), { h2: { ...quick, maxStreamsPerSession: 2 } });
  const stopCapped = new AbortController();
  let cappedLines = 0;
  const cappedOpen = [0, 1, 2, 3, 4].map(() =>
    capped.stream("/w", { signal: stopCapped.signal, onLine: () => cappedLines++ }),
  );
  await until("five watches", () => cappedLines === 5);
  assert.equal(roomy.connections(), 3, "2 + 2 + 1 streams");
  stopCapped.abort();
  await Promise.allSettled(cappedOpen);
});

test("sessions are keyed by server and TLS identity: another client certificate, CA or server name is another session", () => {
  const material = { ca: Buffer.from("ca"), cert: Buffer.from("cert-1"), key: Buffer.from("key-1") };
  const key = sessionKey("https://a:6443", material);
  assert.equal(sessionKey("https://a:6443", { ...material }), key);
  assert.notEqual(sessionKey("https://a:6443", { ...material, cert: Buffer.from("cert-2") }), key);
  assert.notEqual(sessionKey("https://a:6443", { ...material, key: Buffer.from("key-2") }), key);
  assert.notEqual(sessionKey("https://a:6443", { ...material, ca: Buffer.from("ca-2") }), key);
  assert.notEqual(sessionKey("https://a:6443", { ...material, servername: "api" }), key);
  assert.notEqual(sessionKey("https://a:6443", { ...material, rejectUnauthorized: false }), key);
  assert.notEqual(sessionKey("https://b:6443", material), key);
});

test("through a proxy (proxy-url, or a proxy agent) watches stay on HTTP/1.1; h2 headers are lower-case, basic auth a header", () => {
  class ProxyAgent extends https.Agent {}
  assert.equal(viaProxy(new https.Agent(), undefined), false);
  assert.equal(viaProxy(undefined, undefined), false);
  assert.equal(viaProxy(new https.Agent(), "http://proxy:3128"), true);
  assert.equal(viaProxy(new ProxyAgent(), undefined), true);
  assert.deepEqual(h2Headers({ headers: { Authorization: "Bearer x", "User-Agent": "u" } }), {
    authorization: "Bearer x",
    "user-agent": "u",
  });
  assert.deepEqual(h2Headers({ headers: {}, auth: "me:pw" }), {
    authorization: `Basic ${Buffer.from("me:pw").toString("base64")}`,
  });
});
