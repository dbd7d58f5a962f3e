// Status writes counted from the request path against a real apiserver:
// through the sidecar API proxy (with the testbed's real RBAC) and through
// the apiserver's audit webhook posting to the audit receiver. The same
// provoked failures must show up in both sources, the audit one by user.
import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, afterEach, before, test } from "node:test";
import { Registry } from "@prometheus-io/client";
import { parse, stringify } from "yaml";
import { createLogger } from "../../src/log.ts";
import {
  type ApiProxy,
  type AuditReceiver,
  createDiscoveryKindResolver,
  createStatusWriteMetrics,
  startApiProxy,
  startAuditReceiver,
} from "../../src/statuswrites/index.ts";
import {
  ControlPlane,
  createCr,
  crPath,
  getCr,
  installCrd,
  RestClient,
  refFor,
  type TestUser,
  waitUntil,
} from "../cluster/index.ts";
import { HttpJsonClient, openWatch } from "../helpers/http-json.ts";
import { makeTestCertificates } from "../helpers/tls-certs.ts";

const directory = mkdtempSync(join(tmpdir(), "cr-status-writes-"));
const registry = new Registry();
const metrics = createStatusWriteMetrics(registry);
const logLines: string[] = [];
const logger = createLogger({ level: "debug", write: (line) => logLines.push(line) });
const auditToken = randomBytes(24).toString("hex");
const operatorKubeconfigPath = join(directory, "operator-kubeconfig");
const operatorTokenFile = join(directory, "operator-token");

let plane: ControlPlane | undefined;
let receiver: AuditReceiver | undefined;
let proxy: ApiProxy | undefined;

function running(): { plane: ControlPlane; proxy: ApiProxy } {
  if (!plane || !proxy) throw new Error("not started");
  return { plane, proxy };
}

/** The audit policy from docs/status-writes.md: status writes of example.com at Metadata level, nothing else. */
const auditPolicy = {
  apiVersion: "audit.k8s.io/v1",
  kind: "Policy",
  omitStages: ["RequestReceived"],
  rules: [
    {
      level: "Metadata",
      verbs: ["update", "patch"],
      resources: [{ group: "example.com", resources: ["*/status"] }],
    },
    { level: "None" },
  ],
};

before(async () => {
  const certs = makeTestCertificates();
  // Kinds come from discovery with an identity that has no grants at all:
  // discovery is open to every authenticated user.
  let discoveryToken: string | undefined;
  const kinds = createDiscoveryKindResolver({
    fetchResourceList: (group, version) =>
      new RestClient(running().plane.server, running().plane.caPem, discoveryToken).get(
        group === "" ? `/api/${version}` : `/apis/${group}/${version}`,
      ),
    onError: (error) => logger.warn("discovery failed", { error }),
  });
  // The receiver listens first: its port goes into the apiserver's webhook kubeconfig.
  receiver = await startAuditReceiver(
    {
      listen: "127.0.0.1:0",
      certPem: certs.serverCertPem,
      keyPem: certs.serverKeyPem,
      bearerToken: auditToken,
      kinds,
    },
    metrics,
    logger,
  );
  const policyPath = join(directory, "audit-policy.yaml");
  const webhookPath = join(directory, "audit-webhook.kubeconfig");
  writeFileSync(policyPath, stringify(auditPolicy));
  writeFileSync(
    webhookPath,
    stringify({
      apiVersion: "v1",
      kind: "Config",
      clusters: [
        {
          name: "cr-status-exporter",
          cluster: {
            server: receiver.url,
            "certificate-authority-data": Buffer.from(certs.caPem).toString("base64"),
          },
        },
      ],
      users: [{ name: "kube-apiserver", user: { token: auditToken } }],
      contexts: [{ name: "audit", context: { cluster: "cr-status-exporter", user: "kube-apiserver" } }],
      "current-context": "audit",
    }),
    { mode: 0o600 },
  );
  plane = await ControlPlane.start({
    apiserverArgs: [
      `--audit-policy-file=${policyPath}`,
      `--audit-webhook-config-file=${webhookPath}`,
      "--audit-webhook-batch-max-wait=1s",
    ],
  });
  console.error(`# control plane ready in ${plane.startMs} ms at ${plane.server}`);
  discoveryToken = plane.mintUser().token;
  await installCrd(plane.admin.rest, "widgets");
  proxy = await startApiProxy(
    {
      listen: "127.0.0.1:0",
      upstream: { server: plane.server, caPem: plane.caPem },
      kubeconfigPath: operatorKubeconfigPath,
      tokenFile: operatorTokenFile,
      kinds,
    },
    metrics,
    logger,
  );
});

afterEach((t) => {
  if (plane && "passed" in t && !t.passed) {
    console.error(
      `# logs after failed test "${t.name}":\n${plane.logTails()}\n--- exporter\n${logLines.slice(-30).join("\n")}`,
    );
  }
});

after(async () => {
  await proxy?.close();
  await plane?.stop();
  await receiver?.close();
  rmSync(directory, { recursive: true, force: true });
});

/** Current value of one series, 0 when absent. */
async function sample(name: string, labels: Record<string, string>): Promise<number> {
  const wanted = `${name}{${Object.entries(labels)
    .map(([k, v]) => `${k}="${v}"`)
    .join(",")}}`;
  for (const line of (await registry.metrics()).split("\n")) {
    if (line.startsWith(`${wanted} `)) return Number(line.slice(wanted.length + 1));
  }
  return 0;
}

const widget = { group: "example.com", kind: "Widget" };
const mergePatch = "application/merge-patch+json";

interface Scenario {
  namespace: string;
  operator: TestUser;
  restricted: TestUser;
}
let scenario: Scenario | undefined;

test("through the proxy: successes, 409, 422, 403, 404 and an unauthenticated write are counted", async () => {
  const { plane, proxy } = running();
  const namespace = await plane.createNamespace("sw");
  const operator = plane.mintUser();
  const restricted = plane.mintUser();
  scenario = { namespace, operator, restricted };
  await plane.grant(operator, namespace, [
    { apiGroups: ["example.com"], resources: ["widgets"], verbs: ["get", "list", "watch"] },
    { apiGroups: ["example.com"], resources: ["widgets/status"], verbs: ["get", "update", "patch"] },
  ]);
  await plane.grant(restricted, namespace, [
    {
      apiGroups: ["example.com"],
      resources: ["widgets"],
      verbs: ["get", "list", "watch", "update", "patch"],
    },
  ]);
  const ref = refFor("widgets", namespace, "w1");
  const created = await createCr(plane.admin.rest, ref, "w1", { size: 1 });

  // A watch through the proxy, opened before the writes, must stream their events.
  const watch = await openWatch(
    proxy.url,
    `${crPath(refFor("widgets", namespace))}?watch=true&resourceVersion=${created.metadata.resourceVersion}`,
    operator.token,
  );
  assert.equal(watch.status, 200);

  const client = new HttpJsonClient(proxy.url, operator.token);
  const statusPath = crPath(ref, "status");
  try {
    const stale = await getCr(plane.admin.rest, ref);
    const patched = await client.send("PATCH", statusPath, { status: { phase: "Provisioning" } }, mergePatch);
    assert.equal(patched.status, 200);

    const conflict = await client.send("PUT", statusPath, { ...stale, status: { phase: "Running" } });
    assert.equal(conflict.status, 409);
    assert.equal((conflict.body as { reason?: string }).reason, "Conflict");

    const fresh = await getCr(plane.admin.rest, ref);
    const updated = await client.send("PUT", statusPath, { ...fresh, status: { phase: "Running" } });
    assert.equal(updated.status, 200);

    const invalid = await client.send("PATCH", statusPath, { status: { phase: "NotAPhase" } }, mergePatch);
    assert.equal(invalid.status, 422);

    const missing = await client.send(
      "PATCH",
      crPath(refFor("widgets", namespace, "missing"), "status"),
      { status: { phase: "Running" } },
      mergePatch,
    );
    assert.equal(missing.status, 404);
    assert.ok(missing.reusedSocket, "HTTP/1.1 keep-alive: the connection is reused across requests");

    const restrictedClient = new HttpJsonClient(proxy.url, restricted.token);
    const forbidden = await restrictedClient.send(
      "PATCH",
      statusPath,
      { status: { phase: "Failed" } },
      mergePatch,
    );
    restrictedClient.close();
    assert.equal(forbidden.status, 403, "the Role lacks widgets/status");

    // No Authorization header: the apiserver sees an anonymous request, never an exporter identity.
    const anonymousClient = new HttpJsonClient(proxy.url, undefined);
    const anonymous = await anonymousClient.send(
      "PATCH",
      statusPath,
      { status: { phase: "Failed" } },
      mergePatch,
    );
    anonymousClient.close();
    assert.ok(anonymous.status === 401 || anonymous.status === 403, `got ${anonymous.status}`);
    assert.match(String((anonymous.body as { message?: string }).message), /system:anonymous/);

    const running = await watch.waitFor(
      (e) => e.type === "MODIFIED" && e.object.status?.phase === "Running",
      10_000,
    );
    assert.equal(running.object.metadata?.name, "w1");
    assert.deepEqual(
      watch.events.map((e) => `${e.type}:${String(e.object.status?.phase)}`),
      ["MODIFIED:Provisioning", "MODIFIED:Running"],
      "exactly the two successful writes, streamed as they happened",
    );
  } finally {
    watch.close();
    client.close();
  }

  // Recording happens as each response ends; give the last one a moment.
  const labels = (code: string, verb: string) => ({ ...widget, namespace, verb, code, source: "proxy" });
  const requests = "cr_status_update_requests_total";
  await waitUntil(
    "proxy counted the 403s",
    5_000,
    async () => (await sample(requests, labels("403", "patch"))) === 2,
  );
  assert.equal(await sample(requests, labels("200", "patch")), 1);
  assert.equal(await sample(requests, labels("200", "update")), 1);
  assert.equal(await sample(requests, labels("409", "update")), 1);
  assert.equal(await sample(requests, labels("422", "patch")), 1);
  assert.equal(await sample(requests, labels("404", "patch")), 1);

  const failures = "cr_status_update_failures_total";
  const reason = (r: string) => ({ ...widget, namespace, reason: r, source: "proxy" });
  assert.equal(await sample(failures, reason("Conflict")), 1);
  assert.equal(await sample(failures, reason("Invalid")), 1);
  assert.equal(await sample(failures, reason("Forbidden")), 2);
  assert.equal(await sample(failures, reason("NotFound")), 1);
  assert.equal(
    await sample("cr_status_update_request_duration_seconds_count", {
      ...widget,
      verb: "patch",
      source: "proxy",
    }),
    5,
  );
  const text = await registry.metrics();
  assert.doesNotMatch(text, /kind="widgets"/, "discovery resolved the plural to its kind");
  console.error(
    `# proxy counted:\n${text
      .split("\n")
      .filter((l) => /^cr_status_update_(requests|failures)_total\{.*source="proxy"/.test(l))
      .join("\n")}`,
  );
});

test("audit: the apiserver's webhook reports the same writes, with the writer's identity", async () => {
  const { plane } = running();
  assert.ok(scenario, "runs after the proxy test");
  const { namespace, operator, restricted } = scenario;
  // One write that never passes through the proxy: only the audit source can see it.
  const direct = await plane.admin.rest.raw(
    "PATCH",
    crPath(refFor("widgets", namespace, "w1"), "status"),
    { status: { phase: "Running", replicas: 1 } },
    { contentType: mergePatch },
  );
  assert.equal(direct.status, 200);

  const byUser = (user: string, code: string) => ({ user, ...widget, code });
  const users = "cr_status_update_requests_by_user_total";
  await waitUntil("audit batches delivered", 30_000, async () => {
    return (
      (await sample(users, byUser("system:anonymous", "403"))) === 1 &&
      (await sample(users, byUser("admin", "200"))) === 1 &&
      (await sample(users, byUser(operator.name, "404"))) === 1 &&
      (await sample(users, byUser(restricted.name, "403"))) === 1
    );
  });
  assert.equal(await sample(users, byUser(operator.name, "200")), 2);
  assert.equal(await sample(users, byUser(operator.name, "409")), 1);
  assert.equal(await sample(users, byUser(operator.name, "422")), 1);

  const failures = "cr_status_update_failures_total";
  const reason = (r: string) => ({ ...widget, namespace, reason: r, source: "audit" });
  assert.equal(await sample(failures, reason("Conflict")), 1);
  assert.equal(await sample(failures, reason("Invalid")), 1);
  assert.equal(await sample(failures, reason("Forbidden")), 2);
  assert.equal(await sample(failures, reason("NotFound")), 1);
  const requests = "cr_status_update_requests_total";
  const labels = (code: string, verb: string) => ({ ...widget, namespace, verb, code, source: "audit" });
  assert.equal(await sample(requests, labels("200", "patch")), 2, "the operator's patch and the direct one");
  assert.equal(await sample(requests, labels("200", "update")), 1);
  assert.equal(await sample(requests, labels("409", "update")), 1);
  assert.equal(
    await sample(requests, { ...widget, namespace, verb: "patch", code: "200", source: "proxy" }),
    1,
    "the direct write did not go through the proxy",
  );
  const text = await registry.metrics();
  console.error(
    `# audit counted:\n${text
      .split("\n")
      .filter(
        (l) =>
          /^cr_status_update_(requests_by_user|failures)_total\{.*/.test(l) && !l.includes('source="proxy"'),
      )
      .join("\n")}`,
  );
  assert.ok(
    !logLines.some((l) => l.includes("rejected audit batch")),
    "the apiserver's batches are all accepted",
  );
});

test("the kubeconfig written for the operator reaches the apiserver through the proxy", async () => {
  const { proxy } = running();
  assert.ok(scenario);
  writeFileSync(operatorTokenFile, `${scenario.operator.token}\n`);
  const config = parse(readFileSync(operatorKubeconfigPath, "utf8")) as {
    clusters: { cluster: { server: string } }[];
    users: { user: { tokenFile: string } }[];
  };
  const server = config.clusters[0]?.cluster.server;
  const tokenFile = config.users[0]?.user.tokenFile;
  assert.equal(server, proxy.url);
  assert.equal(tokenFile, operatorTokenFile);
  const client = new HttpJsonClient(server ?? "", readFileSync(tokenFile ?? "", "utf8").trim());
  try {
    const list = await client.send<{ items: unknown[] }>(
      "GET",
      crPath(refFor("widgets", scenario.namespace)),
    );
    assert.equal(list.status, 200);
    assert.equal(list.body.items.length, 1);
  } finally {
    client.close();
  }
});

test("a non-loopback listen address is refused without the explicit flag", async () => {
  const { plane } = running();
  for (const listen of ["0.0.0.0:0", ":0", "10.1.2.3:8001", "[::]:0"]) {
    await assert.rejects(
      startApiProxy(
        { listen, upstream: { server: plane.server, caPem: plane.caPem } },
        createStatusWriteMetrics(new Registry()),
        logger,
      ),
      /apiProxy\.listen: refusing to listen on non-loopback address/,
      listen,
    );
  }
});
