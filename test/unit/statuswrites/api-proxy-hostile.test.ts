// The proxy against callers and an upstream that do not play along: an
// upstream that answers 413 before reading a big body and resets the
// connection (as the apiserver does: Go answers, waits, then closes with the
// rest unread), and callers that trickle their TLS handshake, headers or body.
// The answer must pass through unchanged and be counted by its real reason;
// the caller timeouts must hold within their check interval. The real
// apiserver and the shipped timeouts are in test/e2e/hostile-proxy.test.ts.
import assert from "node:assert/strict";
import { createServer, request, type Server } from "node:https";
import { connect as tcpConnect } from "node:net";
import { after, before, test } from "node:test";
import { setTimeout as sleep } from "node:timers/promises";
import { type TLSSocket, connect as tlsConnect } from "node:tls";
import { Registry } from "@prometheus-io/client";
import { silentLogger } from "../../../src/log.ts";
import { closeServer, listenOn } from "../../../src/net/listen.ts";
import { staticKindResolver } from "../../../src/statuswrites/kinds.ts";
import { createStatusWriteMetrics } from "../../../src/statuswrites/metrics.ts";
import { type ApiProxy, startApiProxy } from "../../../src/statuswrites/proxy/api-proxy.ts";
import { proxyTimeouts } from "../../../src/statuswrites/proxy/proxy-server.ts";
import { closedAfter, sendBody } from "../../helpers/hostile-http.ts";
import { makeTestCertificates } from "../../helpers/tls-certs.ts";

const certs = makeTestCertificates();
const registry = new Registry();
let upstream: Server;
/** With the shipped timeouts: a big body may take its time, however loaded the machine. */
let proxy: ApiProxy;
/** With short timeouts, to see them hold. */
let strictProxy: ApiProxy;
const timeouts = { handshakeMs: 600, headersMs: 600, requestMs: 1_200, checkIntervalMs: 100 };
// Room for a loaded machine: still far below Node.js's own limits (120 s for a
// handshake, 60 s for headers, none for a body, checked every 30 s).
const slackMs = 5_000;
const tooLarge = JSON.stringify({
  kind: "Status",
  apiVersion: "v1",
  status: "Failure",
  message: "Request entity too large: limit is 3145728",
  reason: "RequestEntityTooLarge",
  code: 413,
});

before(async () => {
  upstream = createServer({ cert: certs.serverCertPem, key: certs.serverKeyPem }, (req, res) => {
    if (req.url?.includes("/slow/")) {
      // Reads the whole body before answering, as for any body within the limit.
      req.resume();
      req.on("end", () => res.end("{}"));
      return;
    }
    // As the apiserver with a body over its limit (Go's net/http): answer
    // without reading the body, shut the connection for writing at once, and
    // close it a little later with the body unread (the kernel resets it).
    res.writeHead(413, { "Content-Type": "application/json", "Content-Length": Buffer.byteLength(tooLarge) });
    res.end(tooLarge, () => {
      req.socket.end();
      setTimeout(() => req.socket.destroy(), 100);
    });
  });
  const { port } = await listenOn(upstream, { host: "127.0.0.1", port: 0 });
  const options = {
    listen: "127.0.0.1:0",
    upstream: { server: `https://127.0.0.1:${port}`, caPem: certs.caPem },
    kinds: staticKindResolver([{ group: "example.com", resource: "widgets", kind: "Widget" }], ["ns1"]),
  };
  proxy = await startApiProxy(options, createStatusWriteMetrics(registry), silentLogger);
  strictProxy = await startApiProxy(
    { ...options, timeouts },
    createStatusWriteMetrics(new Registry()),
    silentLogger,
  );
});

after(async () => {
  await proxy.close();
  await strictProxy.close();
  upstream.closeAllConnections();
  await closeServer(upstream);
});

/**
 * PUTs `bytes` of body as fast as the connection takes it; resolves with the
 * answer's code, Status reason and Connection header.
 */
function bigPut(bytes: number): Promise<string> {
  return new Promise((resolve) => {
    const req = request(
      `${proxy.url}/apis/example.com/v1/namespaces/ns1/widgets/w1/status`,
      {
        method: "PUT",
        agent: false,
        ca: proxy.caPem,
        headers: { Authorization: "Bearer t", "Content-Type": "application/json", "Content-Length": bytes },
      },
      (res) => {
        let body = "";
        res.on("data", (data: Buffer) => {
          body += data.toString();
        });
        res.on("end", () =>
          resolve(`${res.statusCode} ${JSON.parse(body).reason} ${res.headers.connection}`),
        );
        res.on("error", (error) => resolve(`response error ${error.message}`));
        res.on("close", () => resolve("response cut"));
      },
    );
    req.on("error", (error) => resolve(`request error ${error.message}`));
    req.on("close", () => resolve("no answer"));
    sendBody(req, bytes);
  });
}

test("an answer given before the body was read passes through unchanged, counted by its real reason", async () => {
  const outcomes: string[] = [];
  for (let i = 0; i < 8; i++) outcomes.push(await bigPut(32 * 1024 * 1024));
  // Closed after the answer, as the apiserver closes it: the rest of the body is not wanted.
  assert.deepEqual(outcomes, Array(8).fill("413 RequestEntityTooLarge close"));
  await sleep(20);
  const text = await registry.metrics();
  assert.match(
    text,
    /cr_status_update_failures_total\{group="example.com",kind="Widget",namespace="ns1",reason="TooLarge",source="proxy"\} 8/,
  );
  assert.doesNotMatch(text, /reason="ServerError"/);
});

test("the shipped caller timeouts", () => {
  assert.deepEqual(proxyTimeouts, {
    handshakeMs: 10_000,
    headersMs: 30_000,
    requestMs: 60_000,
    checkIntervalMs: 2_000,
    keepAliveMs: 120_000,
  });
});

/** A TLS connection to the proxy with short timeouts, once its handshake is done. */
async function connectStrict(): Promise<TLSSocket> {
  const socket = tlsConnect({
    host: "127.0.0.1",
    port: strictProxy.port,
    ca: strictProxy.caPem,
    servername: "localhost",
  });
  await new Promise<void>((resolve) => socket.once("secureConnect", () => resolve()));
  return socket;
}

test("a caller that never starts its TLS handshake is cut off at the handshake timeout", async () => {
  const started = performance.now();
  const socket = tcpConnect({ host: "127.0.0.1", port: strictProxy.port });
  const ms = await closedAfter(socket, started, 30_000);
  assert.ok(ms >= timeouts.handshakeMs - 50 && ms < timeouts.handshakeMs + slackMs, `closed after ${ms} ms`);
});

test("a caller that trickles its headers is cut off at the headers timeout", async () => {
  const socket = await connectStrict();
  const started = performance.now();
  socket.write("GET /api HTTP/1.1\r\nHost: localhost\r\n");
  let answer = "";
  socket.on("data", (data: Buffer) => {
    answer += data.toString();
  });
  const trickle = setInterval(() => socket.writable && socket.write("X-Slow: 1\r\n"), 50);
  const ms = await closedAfter(socket, started, 30_000).finally(() => clearInterval(trickle));
  assert.ok(ms < timeouts.headersMs + slackMs, `closed after ${ms} ms`);
  assert.ok(ms >= timeouts.headersMs - 50, `closed after ${ms} ms`);
  assert.match(answer, /^HTTP\/1\.1 408/);
});

test("a caller that trickles its body is cut off at the request timeout", async () => {
  const socket = await connectStrict();
  const started = performance.now();
  socket.write(
    "PUT /apis/example.com/v1/namespaces/ns1/slow/w1/status HTTP/1.1\r\nHost: localhost\r\nContent-Length: 100000\r\n\r\n",
  );
  const trickle = setInterval(() => socket.writable && socket.write("x"), 50);
  const ms = await closedAfter(socket, started, 30_000).finally(() => clearInterval(trickle));
  assert.ok(ms >= timeouts.requestMs - 50, `closed after ${ms} ms`);
  assert.ok(ms < timeouts.requestMs + slackMs, `closed after ${ms} ms`);
});
