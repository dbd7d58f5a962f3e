// The Kubernetes HTTP client against a real local HTTP(S) server: URLs and
// headers, bodies, timeouts, watch streams line by line, and errors. Every
// server is closed in t.after.
import assert from "node:assert/strict";
import http from "node:http";
import https from "node:https";
import type { AddressInfo } from "node:net";
import { type TestContext, test } from "node:test";
import { setTimeout as sleep } from "node:timers/promises";
import { KubeConfig } from "@kubernetes/client-node";
import { createKubeClient, type KubeClient, KubeHttpError, userAgent } from "../../src/kube/client.ts";
import { makeTestCertificates } from "../helpers/tls-certs.ts";

interface Seen {
  method: string;
  url: string;
  headers: http.IncomingHttpHeaders;
  body: string;
}

function kubeConfigFor(server: string, extra: { caData?: string; certData?: string; keyData?: string } = {}) {
  const kubeConfig = new KubeConfig();
  const b64 = (pem: string | undefined) => (pem ? Buffer.from(pem).toString("base64") : undefined);
  kubeConfig.loadFromOptions({
    // client-node refuses plain HTTP unless TLS verification is off.
    clusters: [
      { name: "test", server, caData: b64(extra.caData), skipTLSVerify: server.startsWith("http:") },
    ],
    users: [
      extra.certData
        ? { name: "test", certData: b64(extra.certData), keyData: b64(extra.keyData) }
        : { name: "test", token: "s3cret" },
    ],
    contexts: [{ name: "test", cluster: "test", user: "test" }],
    currentContext: "test",
  });
  return kubeConfig;
}

/** A plain-HTTP server on loopback whose routes the test supplies; closed when the test ends. */
async function serve(
  t: TestContext,
  route: (req: http.IncomingMessage, res: http.ServerResponse, seen: Seen) => void,
): Promise<{ client: KubeClient; seen: Seen[]; url: string }> {
  const seen: Seen[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const entry = {
        method: req.method ?? "",
        url: req.url ?? "",
        headers: req.headers,
        body: Buffer.concat(chunks).toString("utf8"),
      };
      seen.push(entry);
      route(req, res, entry);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  t.after(
    () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  );
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  // Trailing slashes on the server URL must not double up with the path's.
  return { client: createKubeClient(kubeConfigFor(`${url}//`)), seen, url };
}

const json = (res: http.ServerResponse, status: number, body: unknown): void => {
  res.writeHead(status, { "content-type": "application/json" });
  res.end(JSON.stringify(body));
};

test("request: URL from server, path and defined query values; Accept JSON; the kubeconfig's token; parsed JSON back", async (t) => {
  const { client, seen } = await serve(t, (_req, res) => json(res, 200, { kind: "List", items: [1] }));
  const response = await client.request("GET", "/apis/example.com/v1/widgets", {
    query: { limit: 500, continue: undefined, labelSelector: "a=b,c", watch: false },
  });
  assert.deepEqual(response, { status: 200, body: { kind: "List", items: [1] } });
  assert.equal(seen[0]?.method, "GET");
  assert.equal(seen[0]?.url, "/apis/example.com/v1/widgets?limit=500&labelSelector=a%3Db%2Cc&watch=false");
  assert.equal(seen[0]?.headers.accept, "application/json");
  assert.equal(seen[0]?.headers.authorization, "Bearer s3cret");
  assert.equal(seen[0]?.headers["content-type"], undefined, "no body, no content type");
  assert.match(
    seen[0]?.headers["user-agent"] ?? "",
    /^cr-status-exporter\/\d+\.\d+\.\d+ \(linux\/\w+\) node\/v24\./,
  );
  assert.equal(seen[0]?.headers["user-agent"], userAgent);
});

test("request: an object body is sent as JSON with its byte length; a string body as is, with the given content type", async (t) => {
  const { client, seen } = await serve(t, (_req, res) => json(res, 201, {}));
  await client.request("POST", "/a", { body: { note: "café ✓" } });
  await client.request("PATCH", "/b", { body: '{"x":1}', contentType: "application/merge-patch+json" });
  assert.equal(seen[0]?.method, "POST");
  assert.equal(seen[0]?.body, '{"note":"café ✓"}');
  assert.equal(seen[0]?.headers["content-type"], "application/json");
  assert.equal(seen[0]?.headers["content-length"], String(Buffer.byteLength('{"note":"café ✓"}')));
  assert.equal(seen[1]?.body, '{"x":1}');
  assert.equal(seen[1]?.headers["content-type"], "application/merge-patch+json");
  assert.equal(seen[1]?.headers["content-length"], "7");
});

test("request: a body that is not JSON comes back as text, an empty one as undefined; any status is returned, not thrown", async (t) => {
  const { client } = await serve(t, (req, res) => {
    if (req.url === "/text") {
      res.writeHead(503);
      res.end("upstream not ready");
    } else {
      res.writeHead(204);
      res.end();
    }
  });
  assert.deepEqual(await client.request("GET", "/text"), { status: 503, body: "upstream not ready" });
  assert.deepEqual(await client.request("DELETE", "/empty"), { status: 204, body: undefined });
});

test("request: a given parse reads a 2xx answer's text; any other answer is read as usual", async (t) => {
  const { client } = await serve(t, (req, res) => {
    res.writeHead(req.url === "/ok" ? 200 : 400, { "Content-Type": "application/json" });
    res.end('{"kind":"Status","message":"no"}');
  });
  const parse = (text: string) => ({ length: text.length });
  assert.deepEqual(await client.request("GET", "/ok", { parse }), { status: 200, body: { length: 32 } });
  assert.deepEqual(await client.request("GET", "/bad", { parse }), {
    status: 400,
    body: { kind: "Status", message: "no" },
  });
});

test("request: no answer within timeoutMs fails with the time in the message", async (t) => {
  const { client } = await serve(t, () => {
    // Never answers.
  });
  await assert.rejects(client.request("GET", "/slow", { timeoutMs: 200 }), /request timed out after 200 ms/);
});

test("request: an aborted signal fails the request", async (t) => {
  const { client } = await serve(t, () => {});
  const controller = new AbortController();
  const pending = client.request("GET", "/slow", { signal: controller.signal });
  setTimeout(() => controller.abort(), 20);
  await assert.rejects(pending, { name: "AbortError" });
});

test("stream: onOpen once the 2xx headers arrive, one onLine per non-empty line (CRLF too), onActivity per chunk", async (t) => {
  const { client, seen } = await serve(t, (_req, res) => {
    res.writeHead(200, { "content-type": "application/json" });
    res.write('{"type":"ADDED"}\n\n');
    setTimeout(() => {
      res.write('{"type":"MOD');
      setTimeout(() => res.end('IFIED"}\r\n{"type":"DELETED"}\n'), 20);
    }, 20);
  });
  const events: string[] = [];
  await client.stream("/apis/example.com/v1/widgets", {
    query: { watch: 1, resourceVersion: "5" },
    signal: new AbortController().signal,
    onOpen: () => events.push("open"),
    onActivity: () => events.push("activity"),
    onLine: (line) => events.push(line),
  });
  assert.equal(seen[0]?.url, "/apis/example.com/v1/widgets?watch=1&resourceVersion=5");
  assert.equal(seen[0]?.headers.accept, "application/json");
  assert.equal(events[0], "open");
  assert.deepEqual(
    events.filter((e) => e !== "open" && e !== "activity"),
    ['{"type":"ADDED"}', '{"type":"MODIFIED"}', '{"type":"DELETED"}'],
    "the empty line is skipped",
  );
  assert.ok(events.filter((e) => e === "activity").length >= 3, events.join(" "));
});

test("stream: a non-2xx answer is a KubeHttpError with the status, the Status body and its Retry-After", async (t) => {
  const { client } = await serve(t, (_req, res) =>
    json(res, 429, { kind: "Status", code: 429, message: "slow down", details: { retryAfterSeconds: 7 } }),
  );
  let opened = false;
  const error = await client
    .stream("/apis/x", {
      signal: new AbortController().signal,
      onLine: () => {},
      onOpen: () => (opened = true),
    })
    .then(
      () => assert.fail("expected a rejection"),
      (e: unknown) => e,
    );
  assert.ok(error instanceof KubeHttpError);
  assert.equal(error.status, 429);
  assert.equal(error.retryAfterSeconds, 7);
  assert.equal((error.body as { message: string }).message, "slow down");
  assert.equal(error.message, "GET /apis/x: HTTP 429: slow down");
  assert.equal(opened, false);
  // 300 is the first status that is not success.
  const redirect = await serve(t, (_req, res) => json(res, 300, {}));
  await assert.rejects(
    redirect.client.stream("/y", { signal: new AbortController().signal, onLine: () => {} }),
    (e: unknown) => e instanceof KubeHttpError && e.status === 300,
  );
});

test("stream: a final status below 200 (Node's client accepts 099 from a broken proxy) is an error, no opened watch", async (t) => {
  // Node's own server refuses to write such a status, so the raw bytes go on the socket.
  const { client } = await serve(t, (_req, res) =>
    res.socket?.end('HTTP/1.1 099 Odd\r\nContent-Length: 17\r\n\r\n{"type":"ADDED"}\n'),
  );
  const lines: string[] = [];
  let opened = false;
  await assert.rejects(
    client.stream("/z", {
      signal: new AbortController().signal,
      onLine: (line) => lines.push(line),
      onOpen: () => (opened = true),
    }),
    (e: unknown) => e instanceof KubeHttpError && e.status === 99,
  );
  assert.equal(opened, false);
  assert.deepEqual(lines, [], "its body is no watch event");
});

test("stream: an error body of up to 1 MiB is read; past that the request fails and the connection is closed", async (t) => {
  let endlessClosed: Promise<void> | undefined;
  const { client } = await serve(t, (req, res) => {
    res.writeHead(500);
    if (req.url === "/limit") return void res.end("x".repeat(1024 * 1024));
    // An error body that never ends: only the client closing the connection stops it.
    endlessClosed = new Promise((resolve) => res.once("close", () => resolve()));
    const chunk = "x".repeat(64 * 1024);
    const pump = (): void => {
      while (!res.destroyed && res.write(chunk));
      if (!res.destroyed) res.once("drain", pump);
    };
    pump();
  });
  const options = { signal: new AbortController().signal, onLine: () => {} };
  await assert.rejects(
    client.stream("/limit", options),
    (e: unknown) => e instanceof KubeHttpError && (e.body as string).length === 1024 * 1024,
  );
  await assert.rejects(client.stream("/endless", options), /body larger than 1048576 bytes/);
  // Bounded, so a client that leaves the connection open fails here instead of hanging the test.
  const closed = await Promise.race([endlessClosed?.then(() => true), sleep(5_000).then(() => false)]);
  assert.ok(closed, "the client closed the connection of the oversized response");
});

test("request: a large list page (8 MiB) is read whole; a body cut off mid-way fails", async (t) => {
  const page = JSON.stringify({ items: ["y".repeat(8 * 1024 * 1024)] });
  const { client } = await serve(t, (req, res) => {
    if (req.url === "/page") return json(res, 200, JSON.parse(page));
    res.writeHead(200, { "content-length": "1000" });
    res.write("{");
    setTimeout(() => res.socket?.destroy(), 20);
  });
  const response = await client.request<{ items: string[] }>("GET", "/page");
  assert.equal(response.body.items[0]?.length, 8 * 1024 * 1024);
  await assert.rejects(client.request("GET", "/cut"), /the body was cut off/);
});

test("stream: aborting the signal, or the server cutting the connection, rejects", async (t) => {
  const { client } = await serve(t, (req, res) => {
    res.writeHead(200);
    res.write('{"type":"ADDED"}\n');
    if (req.url === "/cut") setTimeout(() => res.socket?.destroy(), 20);
  });
  const controller = new AbortController();
  const lines: string[] = [];
  const aborted = client.stream("/hold", {
    signal: controller.signal,
    onLine: (line) => lines.push(line),
    onOpen: () => setTimeout(() => controller.abort(), 20),
  });
  await assert.rejects(aborted);
  assert.deepEqual(lines, ['{"type":"ADDED"}']);
  await assert.rejects(
    client.stream("/cut", { signal: new AbortController().signal, onLine: () => {} }),
    /watch stream aborted/,
  );
});

test("TLS: the server is verified against the kubeconfig's CA and the client certificate is presented", async (t) => {
  const certs = makeTestCertificates("test-user");
  const server = https.createServer(
    { cert: certs.serverCertPem, key: certs.serverKeyPem, ca: certs.caPem, requestCert: true },
    (req, res) => {
      const peer = (req.socket as import("node:tls").TLSSocket).getPeerCertificate();
      json(res, 200, { client: peer.subject?.CN ?? null });
    },
  );
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  t.after(() => new Promise<void>((resolve) => server.close(() => resolve())));
  const url = `https://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const client = createKubeClient(
    kubeConfigFor(url, { caData: certs.caPem, certData: certs.clientCertPem, keyData: certs.clientKeyPem }),
  );
  assert.deepEqual(await client.request("GET", "/version"), { status: 200, body: { client: "test-user" } });
  const stranger = createKubeClient(kubeConfigFor(url));
  await assert.rejects(stranger.request("GET", "/version"), /certificate/);
});

test("KubeHttpError: Retry-After only from a positive number; the message without a Status message is just the status", () => {
  const retry = (value: unknown) =>
    new KubeHttpError(429, { details: { retryAfterSeconds: value } }, "GET /x").retryAfterSeconds;
  assert.equal(retry(3), 3);
  assert.equal(retry(0), undefined);
  assert.equal(retry(-1), undefined);
  assert.equal(retry("3"), undefined);
  assert.equal(new KubeHttpError(500, undefined, "GET /x").retryAfterSeconds, undefined);
  assert.equal(new KubeHttpError(500, undefined, "GET /x").message, "GET /x: HTTP 500");
  assert.equal(new KubeHttpError(500, { message: "" }, "GET /x").message, "GET /x: HTTP 500");
});

test("a kubeconfig without a current cluster is refused with a hint", () => {
  const kubeConfig = new KubeConfig();
  kubeConfig.loadFromOptions({ clusters: [], users: [], contexts: [], currentContext: "" });
  assert.throws(
    () => createKubeClient(kubeConfig),
    /no current cluster \(check KUBECONFIG and the current context\)/,
  );
});
