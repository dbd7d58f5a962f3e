// The receiver as a real HTTPS server, posted to by Node's client: auth,
// malformed batches (400 and a log line, never a crash), size limit.
import assert from "node:assert/strict";
import { Agent, request } from "node:https";
import { connect } from "node:net";
import { after, before, test } from "node:test";
import { Registry } from "@prometheus-io/client";
import { createLogger } from "../../../src/log.ts";
import {
  type AuditReceiver,
  type AuditReceiverOptions,
  receiverTimeouts,
  startAuditReceiver,
} from "../../../src/statuswrites/audit/audit-receiver.ts";
import { staticKindResolver } from "../../../src/statuswrites/kinds.ts";
import { createStatusWriteMetrics } from "../../../src/statuswrites/metrics.ts";
import { makeTestCertificates, type TestCertificates } from "../../helpers/tls-certs.ts";

const token = "s3cret-token";
let certs: TestCertificates;
let receiver: AuditReceiver;
let registry: Registry;
const logLines: { level: string; msg: string; [key: string]: unknown }[] = [];

before(async () => {
  certs = makeTestCertificates();
  registry = new Registry();
  const logger = createLogger({ level: "debug", write: (line) => logLines.push(JSON.parse(line)) });
  receiver = await startAuditReceiver(
    {
      listen: "127.0.0.1:0",
      certPem: certs.serverCertPem,
      keyPem: certs.serverKeyPem,
      bearerToken: token,
      clientCaPem: certs.caPem,
      maxBodyBytes: 64 * 1024,
      kinds: staticKindResolver([{ group: "example.com", resource: "widgets", kind: "Widget" }], ["ns1"]),
    },
    createStatusWriteMetrics(registry),
    logger,
  );
});

after(() => receiver.close());

interface PostOptions {
  path?: string;
  method?: string;
  authorization?: string;
  clientCert?: boolean;
  /** Another receiver's port (this file's receiver by default). */
  port?: number;
  /** A keep-alive agent, to see whether the receiver ends the connection (none by default). */
  agent?: Agent;
}

function post(
  body: string,
  options: PostOptions = {},
): Promise<{ status: number; text: string; headers: Record<string, unknown> }> {
  const headers: Record<string, string> = { "Content-Type": "application/json" };
  if (options.authorization !== undefined) headers.Authorization = options.authorization;
  return new Promise((resolve, reject) => {
    const req = request(
      `https://127.0.0.1:${options.port ?? receiver.port}${options.path ?? "/audit"}`,
      {
        method: options.method ?? "POST",
        headers,
        ca: certs.caPem,
        cert: options.clientCert ? certs.clientCertPem : undefined,
        key: options.clientCert ? certs.clientKeyPem : undefined,
        agent: options.agent ?? false,
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (c: Buffer) => chunks.push(c));
        res.on("end", () =>
          resolve({
            status: res.statusCode ?? 0,
            text: Buffer.concat(chunks).toString(),
            headers: res.headers,
          }),
        );
      },
    );
    req.on("error", reject);
    req.end(body);
  });
}

function batch(code: number, user: string, reason?: string): string {
  return JSON.stringify({
    kind: "EventList",
    apiVersion: "audit.k8s.io/v1",
    items: [
      {
        stage: "ResponseComplete",
        verb: "update",
        user: { username: user },
        objectRef: {
          resource: "widgets",
          namespace: "ns1",
          name: "w1",
          apiGroup: "example.com",
          apiVersion: "v1",
          subresource: "status",
        },
        responseStatus: reason ? { code, reason, status: "Failure" } : { code },
      },
    ],
  });
}

async function metricValue(pattern: RegExp): Promise<number | undefined> {
  // Recording waits on kind resolution (promises) and on turns of the event loop: let it settle first.
  await new Promise((resolve) => setImmediate(resolve));
  const match = pattern.exec(await registry.metrics());
  return match ? Number(match[1]) : undefined;
}

/** The value once the sample shows up (recording is asynchronous), or undefined after 5 s. */
async function eventualValue(pattern: RegExp): Promise<number | undefined> {
  const deadline = performance.now() + 5_000;
  for (;;) {
    const value = await metricValue(pattern);
    if (value !== undefined || performance.now() > deadline) return value;
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

test("a batch with the bearer token is counted by user, code and reason", async () => {
  const response = await post(batch(409, "controller-a", "Conflict"), { authorization: `Bearer ${token}` });
  assert.equal(response.status, 200);
  assert.equal(
    await metricValue(
      /cr_status_update_failures_total\{group="example.com",kind="Widget",namespace="ns1",reason="Conflict",source="audit"\} (\d+)/,
    ),
    1,
  );
  assert.equal(
    await metricValue(
      /cr_status_update_requests_by_user_total\{user="controller-a",group="example.com",kind="Widget",code="409"\} (\d+)/,
    ),
    1,
  );
});

test("a batch with a client certificate signed by the configured CA is accepted", async () => {
  const response = await post(batch(200, "controller-b"), { clientCert: true });
  assert.equal(response.status, 200);
  assert.equal(
    await metricValue(/cr_status_update_requests_by_user_total\{user="controller-b",[^}]*code="200"\} (\d+)/),
    1,
  );
});

test("no token, a wrong token, or a token of another length gets 401 and nothing is counted", async () => {
  for (const authorization of [undefined, "Bearer wrong-token!", "Bearer x", `Basic ${token}`]) {
    const options: PostOptions = authorization === undefined ? {} : { authorization };
    const response = await post(batch(200, "intruder"), options);
    assert.equal(response.status, 401, String(authorization));
  }
  assert.equal(await metricValue(/user="intruder"[^}]*\} (\d+)/), undefined);
  assert.ok(logLines.some((l) => l.msg === "rejected unauthenticated audit request"));
});

test("malformed batches get 400 and a log line; the receiver keeps serving", async () => {
  const bodies = [
    "not json at all",
    "{",
    "null",
    JSON.stringify({ kind: "Event", apiVersion: "audit.k8s.io/v1" }),
    JSON.stringify({ kind: "EventList", apiVersion: "audit.k8s.io/v1", items: "nope" }),
  ];
  for (const body of bodies) {
    const before = logLines.length;
    const response = await post(body, { authorization: `Bearer ${token}` });
    assert.equal(response.status, 400, body);
    const logged = logLines.slice(before);
    assert.ok(
      logged.some((l) => l.level === "warn" && String(l.msg).startsWith("rejected audit batch")),
      `a warn line for ${body}`,
    );
  }
  const healthy = await post(batch(200, "controller-c"), { authorization: `Bearer ${token}` });
  assert.equal(healthy.status, 200);
});

test("malformed events inside a valid batch are skipped with a log line, the rest counted", async () => {
  const body = JSON.parse(batch(422, "controller-d", "Invalid")) as { items: unknown[] };
  body.items.unshift(null, { stage: "ResponseComplete" });
  const response = await post(JSON.stringify({ kind: "EventList", apiVersion: "audit.k8s.io/v1", ...body }), {
    authorization: `Bearer ${token}`,
  });
  assert.equal(response.status, 200);
  assert.ok(logLines.some((l) => l.msg === "skipped malformed audit events" && l.malformed === 2));
  assert.equal(await metricValue(/reason="Invalid",source="audit"\} (\d+)/), 1);
});

test("wrong path, wrong method and oversize batches are refused", async () => {
  assert.equal(
    (await post(batch(200, "x"), { path: "/other", authorization: `Bearer ${token}` })).status,
    404,
  );
  assert.equal((await post("", { method: "GET", authorization: `Bearer ${token}` })).status, 405);
  const huge = JSON.stringify({
    kind: "EventList",
    apiVersion: "audit.k8s.io/v1",
    items: ["x".repeat(100_000)],
  });
  const response = await post(huge, { authorization: `Bearer ${token}` }).catch((error: unknown) => ({
    status: -1,
    text: String(error),
    headers: {},
  }));
  // The receiver answers 413 from Content-Length alone and closes; the client may see the answer or the reset.
  assert.ok(response.status === 413 || response.status === -1, `got ${response.status}`);
  assert.ok(logLines.some((l) => l.msg === "rejected audit batch: too large"));
});

test("a receiver without any authentication is refused at start", async () => {
  await assert.rejects(
    startAuditReceiver(
      { listen: "127.0.0.1:0", certPem: certs.serverCertPem, keyPem: certs.serverKeyPem },
      createStatusWriteMetrics(new Registry()),
      createLogger({ write: () => {} }),
    ),
    /auditReceiver: set bearerToken and\/or clientCaPem/,
  );
});

test("a bearer token of only spaces is refused at start", async () => {
  await assert.rejects(
    startAuditReceiver(
      { listen: "127.0.0.1:0", certPem: certs.serverCertPem, keyPem: certs.serverKeyPem, bearerToken: "  " },
      createStatusWriteMetrics(new Registry()),
      createLogger({ write: () => {} }),
    ),
    { message: "auditReceiver.bearerToken: must not be empty" },
  );
});

test("the shipped connection limits", () => {
  assert.deepEqual(receiverTimeouts, {
    handshakeMs: 10_000,
    headersMs: 10_000,
    requestMs: 30_000,
    checkIntervalMs: 2_000,
    keepAliveMs: 120_000,
    maxConnections: 128,
  });
});

test("answers are short plain-text lines; a bad batch also ends the connection", async (t) => {
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  t.after(() => agent.destroy());
  const auth = { authorization: `Bearer ${token}`, agent };
  const answers = [
    await post(batch(200, "x"), { ...auth, path: "/other" }),
    await post(batch(200, "x"), { agent }),
    await post("", { ...auth, method: "PUT" }),
    await post("{", auth),
    await post(batch(200, "controller-e"), auth),
  ];
  assert.deepEqual(
    answers.map((a) => [a.status, a.text]),
    [
      [404, "not found; audit batches go to /audit\n"],
      [401, "unauthorized\n"],
      [405, "only POST is accepted\n"],
      [400, "body is not JSON\n"],
      [200, "ok\n"],
    ],
  );
  for (const answer of answers) {
    assert.equal(answer.headers["content-type"], "text/plain; charset=utf-8");
    assert.equal(answer.headers["content-length"], String(Buffer.byteLength(answer.text)));
    assert.equal(answer.headers["retry-after"], undefined);
  }
  assert.deepEqual(
    answers.map((a) => a.headers.connection === "close"),
    [false, false, false, true, false],
  );
});

test("a query string does not change the path; the batch is logged at debug with its counts", async () => {
  const before = logLines.length;
  const response = await post(batch(200, "controller-f"), {
    authorization: `Bearer ${token}`,
    path: "/audit?timeout=30s",
  });
  assert.equal(response.status, 200);
  const line = logLines.slice(before).find((l) => l.msg === "audit batch");
  assert.deepEqual([line?.level, line?.events, line?.statusWrites], ["debug", 1, 1]);
});

test("a failure before a success to the same new namespace in one batch: the success confirms it for both", async () => {
  const failed = JSON.parse(batch(409, "controller-g", "Conflict")) as {
    items: { objectRef: { namespace: string } }[];
  };
  const succeeded = JSON.parse(batch(200, "controller-g")) as {
    items: { objectRef: { namespace: string } }[];
  };
  const items = [...failed.items, ...succeeded.items];
  for (const item of items) item.objectRef.namespace = "fresh-ns";
  const response = await post(JSON.stringify({ kind: "EventList", apiVersion: "audit.k8s.io/v1", items }), {
    authorization: `Bearer ${token}`,
  });
  assert.equal(response.status, 200);
  assert.equal(
    await eventualValue(
      /requests_total\{[^}]*namespace="fresh-ns",verb="update",code="409",source="audit"\} (\d+)/,
    ),
    1,
  );
  assert.equal(
    await eventualValue(
      /requests_total\{[^}]*namespace="fresh-ns",verb="update",code="200",source="audit"\} (\d+)/,
    ),
    1,
  );
});

async function otherReceiver(options: Partial<AuditReceiverOptions>, logs: Record<string, unknown>[] = []) {
  return startAuditReceiver(
    { listen: "127.0.0.1:0", certPem: certs.serverCertPem, keyPem: certs.serverKeyPem, ...options },
    createStatusWriteMetrics(new Registry()),
    createLogger({ write: (line) => logs.push(JSON.parse(line)) }),
  );
}

test("with a token alone a client certificate does not authenticate; with a CA alone a token does not", async () => {
  const logs: Record<string, unknown>[] = [];
  const tokenOnly = await otherReceiver({ bearerToken: token, path: "/batches" }, logs);
  try {
    assert.match(tokenOnly.url, /^https:\/\/127\.0\.0\.1:\d+\/batches$/);
    assert.equal(tokenOnly.url, `https://127.0.0.1:${tokenOnly.port}/batches`);
    const port = tokenOnly.port;
    assert.equal((await post(batch(200, "x"), { port, path: "/batches", clientCert: true })).status, 401);
    assert.equal(
      (await post(batch(200, "x"), { port, path: "/batches", authorization: `Bearer ${token}` })).status,
      200,
    );
  } finally {
    await tokenOnly.close();
  }
  const listening = logs.find((l) => l.msg === "audit receiver listening");
  assert.deepEqual(
    [listening?.component, listening?.bearerToken, listening?.clientCa],
    ["audit-receiver", true, false],
  );
  const caOnly = await otherReceiver({ clientCaPem: certs.caPem });
  try {
    const port = caOnly.port;
    assert.equal((await post(batch(200, "x"), { port, authorization: `Bearer ${token}` })).status, 401);
    assert.equal((await post(batch(200, "x"), { port, clientCert: true })).status, 200);
  } finally {
    await caOnly.close();
  }
});

test("a failed TLS handshake is logged at debug", async () => {
  const before = logLines.length;
  await new Promise<void>((resolve) => {
    const socket = connect(receiver.port, "127.0.0.1");
    socket.on("error", () => {});
    socket.on("close", () => resolve());
    socket.resume();
    socket.end("GET /audit HTTP/1.1\r\nHost: x\r\n\r\n");
  });
  for (let i = 0; i < 50 && !logLines.slice(before).some((l) => l.msg === "TLS handshake failed"); i++) {
    await new Promise((resolve) => setImmediate(resolve));
  }
  const line = logLines.slice(before).find((l) => l.msg === "TLS handshake failed");
  assert.equal(line?.level, "debug");
  assert.equal(line?.component, "audit-receiver");
});
