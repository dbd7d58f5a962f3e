// What the proxy sends upstream and what it counts, against a small HTTPS
// upstream that records each request and answers as the test says: the
// upstream's base path and Host, request targets that are not paths, which
// error bodies are read for their Status reason, the write's duration from
// the proxy's clock, and the kubeconfig it writes for each kind of user.
import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, rmSync, statSync } from "node:fs";
import { request as httpRequest } from "node:http";
import { createServer, type Server } from "node:https";
import { type AddressInfo, connect } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { gzipSync } from "node:zlib";
import { Registry } from "@prometheus-io/client";
import { parse } from "yaml";
import { createLogger } from "../../../src/log.ts";
import { createServingCertificate, loopbackNames } from "../../../src/server/certificates.ts";
import { staticKindResolver } from "../../../src/statuswrites/kinds.ts";
import { createStatusWriteMetrics } from "../../../src/statuswrites/metrics.ts";
import { type ApiProxyOptions, startApiProxy } from "../../../src/statuswrites/proxy/api-proxy.ts";
import { makeTestCertificates } from "../../helpers/tls-certs.ts";

const certs = makeTestCertificates();
const directory = mkdtempSync(join(tmpdir(), "cr-proxy-relay-"));
let upstream: Server;
let upstreamPort: number;

interface Seen {
  url: string | undefined;
  host: string | undefined;
}
const seen: Seen[] = [];

/** What the upstream answers next: code, headers and body. */
let answer: { code: number; headers: Record<string, string>; body: Buffer | string } = {
  code: 200,
  headers: { "Content-Type": "application/json" },
  body: "{}",
};

before(async () => {
  upstream = createServer({ cert: certs.serverCertPem, key: certs.serverKeyPem }, (req, res) => {
    seen.push({ url: req.url, host: req.headers.host });
    req.resume();
    res.writeHead(answer.code, answer.headers);
    res.end(answer.body);
  });
  await new Promise<void>((resolve) => upstream.listen(0, "127.0.0.1", resolve));
  upstreamPort = (upstream.address() as AddressInfo).port;
});

after(async () => {
  upstream.closeAllConnections();
  await new Promise((resolve) => upstream.close(resolve));
  rmSync(directory, { recursive: true, force: true });
});

async function proxyWith(options: Partial<ApiProxyOptions> = {}) {
  const registry = new Registry();
  const logs: Record<string, unknown>[] = [];
  const proxy = await startApiProxy(
    {
      listen: "127.0.0.1:0",
      upstream: { server: `https://127.0.0.1:${upstreamPort}`, caPem: certs.caPem },
      plainHttp: true,
      kinds: staticKindResolver([{ group: "example.com", resource: "widgets", kind: "Widget" }], ["ns1"]),
      ...options,
    },
    createStatusWriteMetrics(registry),
    createLogger({ level: "debug", write: (line) => logs.push(JSON.parse(line)) }),
  );
  return { proxy, registry, logs };
}

/** A request through a plain-HTTP proxy: status and body. */
function send(port: number, method: string, path: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: "127.0.0.1", port, method, path, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (c: Buffer) => chunks.push(c));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString() }));
    });
    req.on("error", reject);
    req.end();
  });
}

/** The value of one sample in the registry's exposition, after the counting promise settles. */
async function sample(registry: Registry, pattern: RegExp): Promise<number | undefined> {
  for (let i = 0; i < 50; i++) {
    const match = pattern.exec(await registry.metrics());
    if (match) return Number(match[1]);
    await new Promise((resolve) => setImmediate(resolve));
  }
  return undefined;
}

const statusPath = "/apis/example.com/v1/namespaces/ns1/widgets/w1/status";

test("requests go to the upstream's base path with the upstream's Host", async () => {
  const { proxy } = await proxyWith({
    upstream: { server: `https://127.0.0.1:${upstreamPort}/base//`, caPem: certs.caPem },
  });
  try {
    answer = { code: 200, headers: { "Content-Type": "application/json" }, body: "{}" };
    seen.length = 0;
    assert.equal((await send(proxy.port, "GET", "/api/v1/pods?limit=1")).status, 200);
    assert.deepEqual(seen, [{ url: "/base/api/v1/pods?limit=1", host: `127.0.0.1:${upstreamPort}` }]);
  } finally {
    await proxy.close();
  }
});

test("an upstream that is not https is refused at start", async () => {
  await assert.rejects(
    startApiProxy(
      {
        listen: "127.0.0.1:0",
        upstream: { server: "http://127.0.0.1:6443", caPem: undefined },
        plainHttp: true,
      },
      createStatusWriteMetrics(new Registry()),
      createLogger({ write: () => {} }),
    ),
    { message: 'apiProxy.upstream.server: must be https, got "http://127.0.0.1:6443"' },
  );
});

test("a request target that is not a path is answered 400 with a Status, never forwarded", async () => {
  const { proxy } = await proxyWith();
  try {
    seen.length = 0;
    const raw = await new Promise<string>((resolve, reject) => {
      const socket = connect(proxy.port, "127.0.0.1");
      let text = "";
      socket.on("data", (c) => {
        text += c.toString();
      });
      socket.on("end", () => resolve(text));
      socket.on("error", reject);
      socket.write("GET http://example.com/api HTTP/1.1\r\nHost: example.com\r\nConnection: close\r\n\r\n");
    });
    assert.match(raw, /^HTTP\/1\.1 400 /);
    const body = JSON.parse(raw.slice(raw.indexOf("\r\n\r\n") + 4));
    assert.deepEqual(body, {
      kind: "Status",
      apiVersion: "v1",
      metadata: {},
      status: "Failure",
      message: 'request target must be a path, got "http://example.com/api"',
      reason: "BadRequest",
      code: 400,
    });
    assert.deepEqual(seen, []);
  } finally {
    await proxy.close();
  }
});

test("a status write's duration runs from the request to its end, on the proxy's clock", async () => {
  const times = [1_000, 3_500];
  const { proxy, registry } = await proxyWith({ now: () => times.shift() ?? 9_999 });
  try {
    answer = { code: 200, headers: { "Content-Type": "application/json" }, body: "{}" };
    assert.equal((await send(proxy.port, "PUT", statusPath)).status, 200);
    assert.equal(
      await sample(
        registry,
        /^cr_status_update_request_duration_seconds_sum\{group="example.com",kind="Widget",verb="update",source="proxy"\} (\S+)$/m,
      ),
      2.5,
    );
  } finally {
    await proxy.close();
  }
});

const status = (reason: string) =>
  JSON.stringify({ kind: "Status", apiVersion: "v1", status: "Failure", reason, message: "m", code: 409 });
const failures = (reason: string) =>
  new RegExp(
    `^cr_status_update_failures_total\\{group="example.com",kind="Widget",namespace="ns1",reason="${reason}",source="proxy"\\} (\\d+)$`,
    "m",
  );

test("the Status of a JSON error answer is read; an encoded or non-JSON one, or one past the prefix, is classified by its code", async () => {
  const cases: [string, typeof answer, number | undefined, string][] = [
    [
      "JSON",
      { code: 409, headers: { "Content-Type": "application/json" }, body: status("Invalid") },
      undefined,
      "Invalid",
    ],
    [
      "gzip",
      {
        code: 409,
        headers: { "Content-Type": "application/json", "Content-Encoding": "gzip" },
        body: gzipSync(status("Invalid")),
      },
      undefined,
      "Conflict",
    ],
    [
      "text",
      { code: 409, headers: { "Content-Type": "text/plain" }, body: status("Invalid") },
      undefined,
      "Conflict",
    ],
    ["no type", { code: 409, headers: {}, body: status("Invalid") }, undefined, "Conflict"],
    [
      "a short prefix",
      { code: 409, headers: { "Content-Type": "application/json" }, body: status("Invalid") },
      20,
      "Conflict",
    ],
  ];
  for (const [what, reply, errorPrefixBytes, expected] of cases) {
    const { proxy, registry } = await proxyWith(errorPrefixBytes === undefined ? {} : { errorPrefixBytes });
    try {
      answer = reply;
      const response = await send(proxy.port, "PATCH", statusPath);
      assert.equal(response.status, 409, what);
      assert.equal(await sample(registry, failures(expected)), 1, what);
    } finally {
      await proxy.close();
    }
  }
});

test("a failed status write is logged at debug with what it wrote to and why it failed; a success is not", async () => {
  const { proxy, logs } = await proxyWith();
  try {
    answer = { code: 409, headers: { "Content-Type": "application/json" }, body: status("Conflict") };
    await send(proxy.port, "PUT", statusPath);
    answer = { code: 200, headers: { "Content-Type": "application/json" }, body: "{}" };
    await send(proxy.port, "PUT", statusPath);
    await send(proxy.port, "GET", "/api/v1/pods");
    for (let i = 0; i < 50 && !logs.some((l) => l.msg === "status write failed"); i++) {
      await new Promise((resolve) => setImmediate(resolve));
    }
    const failed = logs.filter((l) => l.msg === "status write failed");
    assert.equal(failed.length, 1);
    const { time: _, ...line } = failed[0] as Record<string, unknown>;
    assert.deepEqual(line, {
      level: "debug",
      msg: "status write failed",
      component: "api-proxy",
      group: "example.com",
      kind: "Widget",
      namespace: "ns1",
      name: "w1",
      code: 409,
      reason: "Conflict",
      statusReason: "Conflict",
    });
  } finally {
    await proxy.close();
  }
});

test("an error answer to anything but a status write is relayed and not counted", async () => {
  const { proxy, registry } = await proxyWith();
  try {
    answer = { code: 409, headers: { "Content-Type": "application/json" }, body: status("Conflict") };
    const response = await send(proxy.port, "PUT", "/apis/example.com/v1/namespaces/ns1/widgets/w1");
    assert.equal(response.status, 409);
    assert.equal(JSON.parse(response.body).reason, "Conflict");
    await new Promise((resolve) => setImmediate(resolve));
    assert.doesNotMatch(await registry.metrics(), /^cr_status_update_requests_total\{/m);
  } finally {
    await proxy.close();
  }
});

test("the written kubeconfig: 0600 with the user's own inline secret, 0644 with a token file, the default token file otherwise", async () => {
  const cases: [string, Partial<ApiProxyOptions>, number, Record<string, unknown>][] = [
    ["secret", { user: { user: { token: "abc" }, holdsSecret: true } }, 0o600, { token: "abc" }],
    [
      "exec",
      { user: { user: { exec: { command: "x" } }, holdsSecret: false }, tokenFile: "/t" },
      0o644,
      { exec: { command: "x" } },
    ],
    ["token-file", { tokenFile: "/operator/token" }, 0o644, { tokenFile: "/operator/token" }],
    ["default", {}, 0o644, { tokenFile: "/var/run/secrets/kubernetes.io/serviceaccount/token" }],
  ];
  for (const [name, options, mode, user] of cases) {
    const kubeconfigPath = join(directory, `${name}.kubeconfig`);
    const { proxy, logs } = await proxyWith({ ...options, kubeconfigPath, plainHttp: false });
    try {
      assert.equal(statSync(kubeconfigPath).mode & 0o777, mode, name);
      const written = parse(readFileSync(kubeconfigPath, "utf8"));
      assert.deepEqual(written.users[0].user, user, name);
      assert.equal(written.clusters[0].cluster.server, proxy.url);
      const listening = logs.find((l) => l.msg === "api proxy listening");
      assert.deepEqual(
        [listening?.url, listening?.upstream, listening?.kubeconfig, listening?.servingNames],
        [proxy.url, `https://127.0.0.1:${upstreamPort}`, kubeconfigPath, ["localhost", "127.0.0.1", "::1"]],
      );
    } finally {
      await proxy.close();
    }
  }
});

test("a plain-HTTP proxy says it listens without serving names, and warns", async () => {
  const { proxy, logs } = await proxyWith();
  try {
    assert.equal(proxy.caPem, undefined);
    assert.equal(proxy.url, `http://127.0.0.1:${proxy.port}`);
    const listening = logs.find((l) => l.msg === "api proxy listening");
    assert.equal(listening?.servingNames, undefined);
    assert.ok(
      logs.some((l) => l.level === "warn" && String(l.msg).startsWith("api proxy serves plain HTTP")),
    );
  } finally {
    await proxy.close();
  }
});

/** What the proxy answers to `request` written as it is on a new connection (until it closes). */
function raw(port: number, request: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, "127.0.0.1");
    let text = "";
    socket.on("data", (c) => {
      text += c.toString();
    });
    socket.on("end", () => {
      socket.end();
      resolve(text);
    });
    socket.on("error", reject);
    socket.write(request);
  });
}

test("a connection upgrade (exec, attach, port-forward) is answered 501 with a Status and closed", async () => {
  const { proxy } = await proxyWith();
  try {
    seen.length = 0;
    const text = await raw(
      proxy.port,
      "GET /api/v1/namespaces/ns1/pods/p1/exec HTTP/1.1\r\nHost: x\r\nConnection: Upgrade\r\nUpgrade: SPDY/3.1\r\n\r\n",
    );
    const [head = "", body = ""] = text.split("\r\n\r\n");
    const expected = JSON.stringify({
      kind: "Status",
      apiVersion: "v1",
      metadata: {},
      status: "Failure",
      message: "connection upgrades (exec, attach, port-forward) are not proxied",
      reason: "NotAcceptable",
      code: 501,
    });
    assert.equal(
      head,
      `HTTP/1.1 501 Not Implemented\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(expected)}\r\nConnection: close`,
    );
    assert.equal(body, expected);
    assert.deepEqual(seen, [], "nothing forwarded");
  } finally {
    await proxy.close();
  }
});

test("a request the HTTP parser refuses is answered (400 or 431) and logged at debug", async () => {
  const { proxy, logs } = await proxyWith();
  try {
    assert.match(await raw(proxy.port, "NOT HTTP AT ALL\r\n\r\n"), /^HTTP\/1\.1 400 Bad Request\r\n/);
    assert.ok(logs.some((l) => l.level === "debug" && l.msg === "malformed client request"));
    const huge = `GET /api/v1/pods HTTP/1.1\r\nHost: x\r\nX-Big: ${"x".repeat(20_000)}\r\n\r\n`;
    assert.match(await raw(proxy.port, huge), /^HTTP\/1\.1 431 /);
  } finally {
    await proxy.close();
  }
});

test("a caller that stalls its headers gets 408, logged as timed out", async () => {
  const { proxy, logs } = await proxyWith({
    timeouts: { headersMs: 200, requestMs: 300, checkIntervalMs: 50 },
  });
  try {
    const text = await raw(proxy.port, "GET /api/v1/pods HTTP/1.1\r\nHost: x\r\n");
    assert.match(text, /^HTTP\/1\.1 408 Request Timeout\r\n/);
    assert.ok(logs.some((l) => l.level === "debug" && l.msg === "client request timed out"));
  } finally {
    await proxy.close();
  }
});

test("a failed TLS handshake is logged at debug and its connection closed", async () => {
  const { proxy, logs } = await proxyWith({ plainHttp: false });
  try {
    // Plain HTTP to the TLS listener is no ClientHello.
    const text = await raw(proxy.port, "GET / HTTP/1.1\r\nHost: x\r\n\r\n");
    assert.equal(text, "");
    assert.ok(logs.some((l) => l.level === "debug" && l.msg === "TLS handshake failed"));
  } finally {
    await proxy.close();
  }
});

test("an upstream at an IPv6 address is reached at that address", async (t) => {
  const material = createServingCertificate({ ...loopbackNames, validityDays: 1 });
  const hosts: (string | undefined)[] = [];
  const v6 = createServer({ cert: material.certPem, key: material.keyPem }, (req, res) => {
    hosts.push(req.headers.host);
    req.resume();
    res.writeHead(200, { "Content-Type": "application/json" });
    res.end("{}");
  });
  await new Promise<void>((resolve) => v6.listen(0, "::1", resolve));
  t.after(async () => {
    v6.closeAllConnections();
    await new Promise((resolve) => v6.close(resolve));
  });
  const port = (v6.address() as AddressInfo).port;
  const { proxy } = await proxyWith({ upstream: { server: `https://[::1]:${port}`, caPem: material.caPem } });
  try {
    assert.equal((await send(proxy.port, "GET", "/version")).status, 200);
    assert.deepEqual(hosts, [`[::1]:${port}`]);
  } finally {
    await proxy.close();
  }
});
