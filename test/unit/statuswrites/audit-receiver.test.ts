// The receiver as a real HTTPS server, posted to by Node's client: auth,
// malformed batches (400 and a log line, never a crash), size limit.
import assert from "node:assert/strict";
import { request } from "node:https";
import { after, before, test } from "node:test";
import { Registry } from "@prometheus-io/client";
import { createLogger } from "../../../src/log.ts";
import { type AuditReceiver, startAuditReceiver } from "../../../src/statuswrites/audit/audit-receiver.ts";
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
}

function post(body: string, options: PostOptions = {}): Promise<{ status: number; text: string }> {
  const headers: Record<string, string> = { "Content-Type": "application/json" };
  if (options.authorization !== undefined) headers.Authorization = options.authorization;
  return new Promise((resolve, reject) => {
    const req = request(
      `https://127.0.0.1:${receiver.port}${options.path ?? "/audit"}`,
      {
        method: options.method ?? "POST",
        headers,
        ca: certs.caPem,
        cert: options.clientCert ? certs.clientCertPem : undefined,
        key: options.clientCert ? certs.clientKeyPem : undefined,
        agent: false,
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (c: Buffer) => chunks.push(c));
        res.on("end", () => resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString() }));
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
  // Recording waits on kind resolution (a promise): let it settle first.
  await new Promise((resolve) => setImmediate(resolve));
  const match = pattern.exec(await registry.metrics());
  return match ? Number(match[1]) : undefined;
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
