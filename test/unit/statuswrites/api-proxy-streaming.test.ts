// Bounded memory in the proxy, against a small HTTPS upstream that can send
// more than any buffer: a paused client must pause the upstream (backpressure
// end to end), and a huge error body passes through whole while only its
// prefix is read for the Status reason. The real apiserver is in the e2e.
import assert from "node:assert/strict";
import { createServer, request, type Server } from "node:https";
import { after, before, test } from "node:test";
import { setTimeout as sleep } from "node:timers/promises";
import { Registry } from "@prometheus-io/client";
import { silentLogger } from "../../../src/log.ts";
import { closeServer, listenOn } from "../../../src/net/listen.ts";
import { staticKindResolver } from "../../../src/statuswrites/kinds.ts";
import { createStatusWriteMetrics } from "../../../src/statuswrites/metrics.ts";
import { type ApiProxy, startApiProxy } from "../../../src/statuswrites/proxy/api-proxy.ts";
import { HttpJsonClient } from "../../helpers/http-json.ts";
import { makeTestCertificates } from "../../helpers/tls-certs.ts";

const chunk = Buffer.alloc(64 * 1024, "x");
const totalBytes = 64 * 1024 * 1024;
let upstreamWritten = 0;
let upstream: Server;
let proxy: ApiProxy;
const registry = new Registry();
const seenAuthorization: (string | undefined)[] = [];
let endlessUpstreamClosed: Promise<void> | undefined;
let endlessStarted: () => void = () => undefined;

before(async () => {
  const certs = makeTestCertificates();
  upstream = createServer({ cert: certs.serverCertPem, key: certs.serverKeyPem }, (req, res) => {
    seenAuthorization.push(req.headers.authorization);
    if (req.url?.startsWith("/cut")) {
      // Headers and part of a declared body, then the connection dropped.
      res.writeHead(200, {
        "Content-Type": "application/octet-stream",
        "Content-Length": String(1024 * 1024),
      });
      res.write(chunk, () => res.destroy());
      return;
    }
    if (req.url?.startsWith("/endless")) {
      res.writeHead(200, { "Content-Type": "application/json" });
      res.write("{}\n");
      endlessUpstreamClosed = new Promise((resolve) => res.on("close", () => resolve()));
      endlessStarted();
      return;
    }
    if (req.url?.startsWith("/big")) {
      res.writeHead(200, { "Content-Type": "application/octet-stream" });
      const writeMore = (): void => {
        while (upstreamWritten < totalBytes) {
          upstreamWritten += chunk.length;
          if (!res.write(chunk)) {
            res.once("drain", writeMore);
            return;
          }
        }
        res.end();
      };
      writeMore();
      return;
    }
    // A 409 whose Status carries 8 MiB of details after its reason.
    req.resume();
    const status = JSON.stringify({
      kind: "Status",
      apiVersion: "v1",
      status: "Failure",
      message: "the object has been modified",
      reason: "Conflict",
      details: { causes: [{ message: "y".repeat(8 * 1024 * 1024) }] },
      code: 409,
    });
    res.writeHead(409, { "Content-Type": "application/json" });
    res.end(status);
  });
  const { port } = await listenOn(upstream, { host: "127.0.0.1", port: 0 });
  proxy = await startApiProxy(
    {
      listen: "127.0.0.1:0",
      upstream: { server: `https://127.0.0.1:${port}`, caPem: certs.caPem },
      kinds: staticKindResolver([{ group: "example.com", resource: "widgets", kind: "Widget" }], ["ns1"]),
    },
    createStatusWriteMetrics(registry),
    silentLogger,
  );
});

after(async () => {
  await proxy.close();
  await closeServer(upstream);
});

test("a paused client pauses the upstream; the whole body arrives once it reads again", async () => {
  let received = 0;
  const done = new Promise<number>((resolve, reject) => {
    const req = request(`${proxy.url}/big`, { agent: false, ca: proxy.caPem }, (res) => {
      res.on("data", (data: Buffer) => {
        received += data.length;
        if (received >= 1024 * 1024 && received - data.length < 1024 * 1024) {
          res.pause();
          void (async () => {
            // Once socket and stream buffers are full the upstream must stop: wait for it to
            // settle (time varies with machine load), then check how far ahead it got.
            let previous = -1;
            for (let i = 0; i < 50 && upstreamWritten !== previous; i++) {
              previous = upstreamWritten;
              await sleep(200);
            }
            assert.equal(upstreamWritten, previous, "the upstream never stopped sending to a paused client");
            assert.ok(upstreamWritten < 32 * 1024 * 1024, `upstream wrote ${upstreamWritten} bytes ahead`);
            res.resume();
          })().catch(reject);
        }
      });
      res.on("end", () => resolve(received));
      res.on("error", reject);
    });
    req.on("error", reject);
    req.end();
  });
  assert.equal(await done, totalBytes);
});

test("an upstream answer cut short reaches the caller cut short, not as a complete answer", async () => {
  const outcome = await new Promise<string>((resolve) => {
    const req = request(`${proxy.url}/cut`, { agent: false, ca: proxy.caPem }, (res) => {
      let bytes = 0;
      res.on("data", (data: Buffer) => {
        bytes += data.length;
      });
      res.on("end", () => resolve(`ended cleanly after ${bytes} bytes`));
      res.on("error", () => resolve("cut"));
      res.on("aborted", () => resolve("cut"));
    });
    req.on("error", () => resolve("cut"));
    req.end();
  });
  assert.equal(outcome, "cut");
});

test("a caller that hangs up mid-answer ends the upstream request too", async () => {
  const started = new Promise<void>((resolve) => {
    endlessStarted = resolve;
  });
  const req = request(`${proxy.url}/endless`, { agent: false, ca: proxy.caPem }, (res) => {
    res.once("data", () => req.destroy());
  });
  req.on("error", () => undefined);
  req.end();
  await started;
  // Resolves only when the proxy lets go of its upstream request (the test times out otherwise).
  await endlessUpstreamClosed;
});

test("a huge error body passes through whole; its Status prefix classifies the failure", async () => {
  const { status, bytes } = await new Promise<{ status: number; bytes: number }>((resolve, reject) => {
    const req = request(
      `${proxy.url}/apis/example.com/v1/namespaces/ns1/widgets/w1/status`,
      {
        method: "PUT",
        agent: false,
        ca: proxy.caPem,
        headers: { Authorization: "Bearer caller-token", "Content-Type": "application/json" },
      },
      (res) => {
        let bytes = 0;
        res.on("data", (data: Buffer) => {
          bytes += data.length;
        });
        res.on("end", () => resolve({ status: res.statusCode ?? 0, bytes }));
        res.on("error", reject);
      },
    );
    req.on("error", reject);
    req.end("{}");
  });
  assert.equal(status, 409);
  assert.ok(bytes > 8 * 1024 * 1024, `client got ${bytes} bytes`);
  await sleep(10);
  assert.match(
    await registry.metrics(),
    /cr_status_update_failures_total\{group="example.com",kind="Widget",namespace="ns1",reason="Conflict",source="proxy"\} 1/,
  );
  assert.equal(
    seenAuthorization.at(-1),
    "Bearer caller-token",
    "the caller's own token is forwarded unchanged",
  );
  assert.equal(seenAuthorization[0], undefined, "a request without a token gets none added");
});

test("an unwritable kubeconfig path fails start-up naming the field, and frees the port", async () => {
  await assert.rejects(
    startApiProxy(
      {
        listen: "127.0.0.1:0",
        upstream: { server: "https://127.0.0.1:1", caPem: undefined },
        kubeconfigPath: "/nonexistent-dir/kubeconfig",
      },
      createStatusWriteMetrics(new Registry()),
      silentLogger,
    ),
    /apiProxy\.kubeconfigPath: cannot write "\/nonexistent-dir\/kubeconfig"/,
  );
});

test("an upstream that cannot be reached gets a 502 Status and counts as ServerError", async () => {
  const local = new Registry();
  const unreachable = await startApiProxy(
    { listen: "127.0.0.1:0", upstream: { server: "https://127.0.0.1:1", caPem: undefined } },
    createStatusWriteMetrics(local),
    silentLogger,
  );
  try {
    const client = new HttpJsonClient(unreachable.url, undefined, unreachable.caPem);
    const response = await client.send<{ kind?: string }>(
      "PATCH",
      "/apis/example.com/v1/widgets/g1/status",
      {},
    );
    client.close();
    assert.equal(response.status, 502);
    assert.equal(response.body.kind, "Status");
    await sleep(10);
    assert.match(await local.metrics(), /reason="ServerError",source="proxy"\} 1/);
  } finally {
    await unreachable.close();
  }
});
