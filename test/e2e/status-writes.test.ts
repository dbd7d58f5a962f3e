// Status writes counted from the request path against a real apiserver:
// through the sidecar API proxy (with the testbed's real RBAC) and through
// the apiserver's audit webhook posting to the audit receiver. The same
// provoked failures must show up in both sources, the audit one by user.
// kubectl (client-go) drives the proxy with the kubeconfig it writes, the way
// an operator beside it does.
import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
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
  type KindResolver,
  operatorUserFrom,
  startApiProxy,
  startAuditReceiver,
} from "../../src/statuswrites/index.ts";
import {
  ControlPlane,
  changeSpec,
  createCr,
  crPath,
  getCr,
  installCrd,
  patchStatus,
  RestClient,
  refFor,
  type TestUser,
  waitUntil,
} from "../cluster/index.ts";
import { HttpJsonClient, openWatch } from "../helpers/http-json.ts";
import { makeTestCertificates } from "../helpers/tls-certs.ts";
import { kubectl, resolveKubectl } from "../kubectl/index.ts";
import { resolveWidgetOperator, startWidgetOperator } from "../operator/index.ts";
import { auditWebhookFiles } from "../support/audit-webhook.ts";

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
let kinds: KindResolver | undefined;

function running(): { plane: ControlPlane; proxy: ApiProxy } {
  if (!plane || !proxy) throw new Error("not started");
  return { plane, proxy };
}

before(async () => {
  // Built (once) before anything starts.
  resolveKubectl();
  resolveWidgetOperator();
  const certs = makeTestCertificates();
  // Kinds come from discovery with an identity that has no grants at all:
  // discovery is open to every authenticated user.
  let discoveryToken: string | undefined;
  kinds = createDiscoveryKindResolver({
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
  plane = await ControlPlane.start({
    apiserverArgs: auditWebhookFiles(directory, { url: receiver.url, caPem: certs.caPem, token: auditToken }),
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
    proxy.caPem,
  );
  assert.equal(watch.status, 200);

  const client = new HttpJsonClient(proxy.url, operator.token, proxy.caPem);
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

    const restrictedClient = new HttpJsonClient(proxy.url, restricted.token, proxy.caPem);
    const forbidden = await restrictedClient.send(
      "PATCH",
      statusPath,
      { status: { phase: "Failed" } },
      mergePatch,
    );
    restrictedClient.close();
    assert.equal(forbidden.status, 403, "the Role lacks widgets/status");

    // No Authorization header: the apiserver sees an anonymous request, never an exporter identity.
    const anonymousClient = new HttpJsonClient(proxy.url, undefined, proxy.caPem);
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
  await waitUntil("proxy counted the 403s", 30_000, async () => {
    const forbiddenSeen = await sample(requests, labels("403", "patch"));
    if (forbiddenSeen === 2) return true;
    throw new Error(`403 patch count seen: ${forbiddenSeen}`);
  });
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

/** The series of the status-write families that name `namespace` or one of `users`. */
async function seriesFor(namespace: string, users: string[]): Promise<string[]> {
  return (await registry.metrics())
    .split("\n")
    .filter((l) => /^cr_status_update_(requests|requests_by_user|failures)_total\{/.test(l))
    .filter((l) => l.includes(`namespace="${namespace}"`) || users.some((u) => l.includes(`user="${u}"`)));
}

interface KubectlScenario {
  namespace: string;
  operator: TestUser;
  restricted: TestUser;
}
let kubectlScenario: KubectlScenario | undefined;

test("kubectl with the written kubeconfig: https to the proxy, authenticated as the operator", async (t) => {
  const { plane, proxy } = running();
  const namespace = await plane.createNamespace("kc");
  const operator = plane.mintUser();
  const restricted = plane.mintUser();
  kubectlScenario = { namespace, operator, restricted };
  await plane.grant(operator, namespace, [
    { apiGroups: ["example.com"], resources: ["widgets"], verbs: ["get", "list", "watch"] },
    { apiGroups: ["example.com"], resources: ["widgets/status"], verbs: ["get", "update", "patch"] },
  ]);
  // kubectl reads the status before patching it: the restricted identity may read, not write.
  await plane.grant(restricted, namespace, [
    { apiGroups: ["example.com"], resources: ["widgets"], verbs: ["get", "list", "watch"] },
    { apiGroups: ["example.com"], resources: ["widgets/status"], verbs: ["get"] },
  ]);
  await createCr(plane.admin.rest, refFor("widgets", namespace, "kw1"), "kw1", { size: 1 });

  const config = parse(readFileSync(operatorKubeconfigPath, "utf8")) as {
    clusters: { cluster: Record<string, string> }[];
    users: { user: Record<string, string> }[];
  };
  assert.equal(config.clusters[0]?.cluster.server, proxy.url);
  assert.match(proxy.url, /^https:\/\/127\.0\.0\.1:\d+$/);
  assert.ok(config.clusters[0]?.cluster["certificate-authority-data"], "the proxy's CA is inline");
  assert.deepEqual(config.users[0]?.user, { tokenFile: operatorTokenFile });

  writeFileSync(operatorTokenFile, `${operator.token}\n`);
  const whoami = await kubectl(operatorKubeconfigPath, ["auth", "whoami", "-o", "json"]);
  t.diagnostic(
    `kubectl auth whoami: exit ${whoami.code} ${whoami.stdout.replace(/\s+/g, " ")}${whoami.stderr}`,
  );
  assert.equal(whoami.code, 0, whoami.stderr);
  const review = JSON.parse(whoami.stdout) as {
    status: { userInfo: { username: string; groups: string[] } };
  };
  assert.equal(review.status.userInfo.username, operator.name, "not system:anonymous");
  assert.ok(review.status.userInfo.groups.includes("system:authenticated"));

  const list = await kubectl(operatorKubeconfigPath, [
    "get",
    "widgets.example.com",
    "-n",
    namespace,
    "-o",
    "name",
  ]);
  assert.equal(list.code, 0, list.stderr);
  assert.equal(list.stdout.trim(), "widget.example.com/kw1");
});

test("kubectl status writes through the proxy: 200, 409 and a restricted identity's 403, by code and by user", async (t) => {
  const { plane } = running();
  assert.ok(kubectlScenario, "runs after the kubectl whoami test");
  const { namespace, operator, restricted } = kubectlScenario;
  const users = [operator.name, restricted.name];
  console.error(`# before kubectl's writes:\n${(await seriesFor(namespace, users)).join("\n")}`);
  const ref = refFor("widgets", namespace, "kw1");
  const stale = await getCr(plane.admin.rest, ref);

  writeFileSync(operatorTokenFile, `${operator.token}\n`);
  const patched = await kubectl(operatorKubeconfigPath, [
    ...["patch", "widgets.example.com", "kw1", "-n", namespace],
    ...["--subresource=status", "--type=merge", "-p", '{"status":{"phase":"Provisioning"}}'],
  ]);
  t.diagnostic(`kubectl patch --subresource=status: exit ${patched.code} ${patched.stdout.trim()}`);
  assert.equal(patched.code, 0, patched.stderr);
  assert.equal((await getCr(plane.admin.rest, ref)).status?.phase, "Provisioning");

  // A replace carrying the resourceVersion read before the patch: 409.
  const conflict = await kubectl(
    operatorKubeconfigPath,
    ["replace", "--subresource=status", "-f", "-"],
    JSON.stringify({ ...stale, status: { phase: "Running" } }),
  );
  t.diagnostic(
    `kubectl replace --subresource=status (stale): exit ${conflict.code} ${conflict.stderr.trim()}`,
  );
  assert.equal(conflict.code, 1);
  assert.match(conflict.stderr, /Operation cannot be fulfilled .*the object has been modified/);

  // The same kubeconfig, its token file now holding an identity without widgets/status.
  writeFileSync(operatorTokenFile, `${restricted.token}\n`);
  const restrictedWhoami = await kubectl(operatorKubeconfigPath, [
    "auth",
    "whoami",
    "-o",
    "jsonpath={.status.userInfo.username}",
  ]);
  assert.equal(restrictedWhoami.stdout, restricted.name, "the token file is read anew");
  const forbidden = await kubectl(operatorKubeconfigPath, [
    ...["patch", "widgets.example.com", "kw1", "-n", namespace],
    ...["--subresource=status", "--type=merge", "-p", '{"status":{"phase":"Failed"}}'],
  ]);
  t.diagnostic(`kubectl patch as the restricted identity: exit ${forbidden.code} ${forbidden.stderr.trim()}`);
  assert.equal(forbidden.code, 1);
  assert.match(
    forbidden.stderr,
    new RegExp(`User "${restricted.name}" cannot patch resource "widgets/status"`),
  );

  const proxyLabels = (code: string, verb: string) => ({ ...widget, namespace, verb, code, source: "proxy" });
  const requests = "cr_status_update_requests_total";
  await waitUntil("the proxy counted kubectl's writes", 30_000, async () => {
    const forbiddenSeen = await sample(requests, proxyLabels("403", "patch"));
    if (forbiddenSeen === 1) return true;
    throw new Error(`403 patch count seen: ${forbiddenSeen}`);
  });
  assert.equal(await sample(requests, proxyLabels("200", "patch")), 1);
  assert.equal(await sample(requests, proxyLabels("409", "update")), 1);
  const failures = "cr_status_update_failures_total";
  const reason = (r: string, source: string) => ({ ...widget, namespace, reason: r, source });
  assert.equal(await sample(failures, reason("Conflict", "proxy")), 1);
  assert.equal(await sample(failures, reason("Forbidden", "proxy")), 1);

  const byUser = (user: string, code: string) => ({ user, ...widget, code });
  const usersFamily = "cr_status_update_requests_by_user_total";
  await waitUntil(
    "the audit source counted kubectl's writes by user",
    30_000,
    async () =>
      (await sample(usersFamily, byUser(restricted.name, "403"))) === 1 &&
      (await sample(usersFamily, byUser(operator.name, "409"))) === 1,
  );
  assert.equal(await sample(usersFamily, byUser(operator.name, "200")), 1);
  assert.equal(await sample(failures, reason("Conflict", "audit")), 1);
  assert.equal(await sample(failures, reason("Forbidden", "audit")), 1);
  console.error(`# after kubectl's writes:\n${(await seriesFor(namespace, users)).join("\n")}`);
});

test("a client certificate in the operator's kubeconfig is refused with the reason, not sent on as anonymous", async (t) => {
  const { proxy } = running();
  const certs = makeTestCertificates("operator-by-certificate");
  const path = join(directory, "client-certificate-kubeconfig");
  const config = parse(readFileSync(operatorKubeconfigPath, "utf8")) as { users: { user: unknown }[] };
  config.users = config.users.map(() => ({
    name: "operator",
    user: {
      "client-certificate-data": Buffer.from(certs.clientCertPem).toString("base64"),
      "client-key-data": Buffer.from(certs.clientKeyPem).toString("base64"),
    },
  }));
  writeFileSync(path, stringify(config), { mode: 0o600 });
  const whoami = await kubectl(path, ["auth", "whoami"]);
  t.diagnostic(`kubectl auth whoami with a client certificate: exit ${whoami.code} ${whoami.stderr.trim()}`);
  assert.equal(whoami.code, 1);
  assert.match(whoami.stderr, /client certificate cannot be forwarded/);
  assert.ok(logLines.some((l) => l.includes("client certificate") && l.includes('"level":"warn"')));
  assert.match(proxy.url, /^https:/);
});

test("the operator's own exec credential plugin, copied into the written kubeconfig, works through the proxy", async (t) => {
  const { plane } = running();
  assert.ok(kubectlScenario);
  // The operator's own kubeconfig: an exec plugin printing an ExecCredential, as cloud token helpers do.
  const plugin = join(directory, "get-token");
  const credential = {
    apiVersion: "client.authentication.k8s.io/v1",
    kind: "ExecCredential",
    status: { token: kubectlScenario.operator.token },
  };
  writeFileSync(plugin, `#!/bin/sh\necho '${JSON.stringify(credential)}'\n`, { mode: 0o700 });
  const own = join(directory, "operator-own-kubeconfig");
  writeFileSync(
    own,
    stringify({
      apiVersion: "v1",
      kind: "Config",
      clusters: [{ name: "real", cluster: { server: plane.server } }],
      users: [
        {
          name: "exec",
          user: {
            exec: {
              apiVersion: "client.authentication.k8s.io/v1",
              command: "./get-token",
              interactiveMode: "Never",
            },
          },
        },
      ],
      contexts: [{ name: "real", context: { cluster: "real", user: "exec" } }],
      "current-context": "real",
    }),
  );
  const written = join(directory, "exec-kubeconfig");
  const viaExec = await startApiProxy(
    {
      listen: "127.0.0.1:0",
      upstream: { server: plane.server, caPem: plane.caPem },
      kubeconfigPath: written,
      user: operatorUserFrom(own, "apiProxy.userFromKubeconfig"),
    },
    createStatusWriteMetrics(new Registry()),
    logger,
  );
  try {
    const whoami = await kubectl(written, ["auth", "whoami", "-o", "jsonpath={.status.userInfo.username}"]);
    t.diagnostic(
      `kubectl auth whoami with the exec plugin: exit ${whoami.code} ${whoami.stdout}${whoami.stderr}`,
    );
    assert.equal(whoami.code, 0, whoami.stderr);
    assert.equal(whoami.stdout, kubectlScenario.operator.name);
  } finally {
    await viaExec.close();
  }
});

test("over plain HTTP (opt-in) kubectl sends no credentials: the reason TLS is the default", async (t) => {
  const { plane } = running();
  assert.ok(kubectlScenario);
  const path = join(directory, "plain-kubeconfig");
  const plain = await startApiProxy(
    {
      listen: "127.0.0.1:0",
      upstream: { server: plane.server, caPem: plane.caPem },
      kubeconfigPath: path,
      tokenFile: operatorTokenFile,
      plainHttp: true,
    },
    createStatusWriteMetrics(new Registry()),
    logger,
  );
  try {
    writeFileSync(operatorTokenFile, `${kubectlScenario.operator.token}\n`);
    // --raw: an anonymous caller may not even read discovery.
    const list = await kubectl(path, ["get", "--raw", crPath(refFor("widgets", kubectlScenario.namespace))]);
    t.diagnostic(`kubectl get --raw over plain HTTP: exit ${list.code} ${list.stderr.trim()}`);
    assert.equal(list.code, 1);
    assert.match(list.stderr, /User "system:anonymous" cannot list resource "widgets"/);
  } finally {
    await plain.close();
  }
});

test("a controller-runtime operator reconciles widgets through the proxy: Ready flips, its 409 retries are counted in both sources", async (t) => {
  const { plane } = running();
  const namespace = await plane.createNamespace("op");
  const operator = plane.mintUser();
  await plane.grant(operator, namespace, [
    { apiGroups: ["example.com"], resources: ["widgets"], verbs: ["get", "list", "watch"] },
    { apiGroups: ["example.com"], resources: ["widgets/status"], verbs: ["get", "update", "patch"] },
  ]);
  const names = ["wa", "wb", "wc"];
  for (const name of names)
    await createCr(plane.admin.rest, refFor("widgets", namespace, name), name, { size: 1 });
  // The operator's own proxy (same metrics), kubeconfig and token file, as in its pod.
  const home = join(directory, "widget-operator");
  mkdirSync(home);
  const tokenFile = join(home, "token");
  writeFileSync(tokenFile, `${operator.token}\n`);
  const kubeconfig = join(home, "kubeconfig");
  const operatorProxy = await startApiProxy(
    {
      listen: "127.0.0.1:0",
      upstream: { server: plane.server, caPem: plane.caPem },
      kubeconfigPath: kubeconfig,
      tokenFile,
      kinds,
    },
    metrics,
    logger,
  );
  const watch = await openWatch(
    plane.server,
    `${crPath(refFor("widgets", namespace))}?watch=true`,
    plane.admin.token,
    plane.caPem,
  );
  const op = startWidgetOperator({ kubeconfig, namespace, workDelay: "2s" });
  const started = performance.now();
  try {
    // Someone else writes wa's status while the operator works on it: the
    // operator's next Update carries a stale resourceVersion and gets 409.
    await op.waitForLine(new RegExp(`^working on ${namespace}/wa generation 1$`), 60_000);
    await patchStatus(plane.admin.rest, refFor("widgets", namespace, "wa"), {
      lastHeartbeatTime: new Date().toISOString().replace(/\.\d+Z$/, "Z"),
    });
    const failed = await op.waitForLine(
      new RegExp(`^status update of ${namespace}/wa \\(Ready=True\\) failed`),
      30_000,
    );
    assert.match(failed, /the object has been modified/);
    for (const name of names) {
      await op.waitForLine(new RegExp(`^ready ${namespace}/${name} generation 1$`), 60_000);
    }
    // A spec change: Ready goes False while the operator works, then True again.
    await changeSpec(plane.admin.rest, refFor("widgets", namespace, "wb"), { size: 2 });
    await op.waitForLine(new RegExp(`^ready ${namespace}/wb generation 2$`), 60_000);
    const wb = await getCr(plane.admin.rest, refFor("widgets", namespace, "wb"));
    assert.equal(wb.status?.observedGeneration, 2);
    const readyOf = (object: { metadata?: { generation?: number }; status?: Record<string, unknown> }) => {
      const conditions = (object.status?.conditions ?? []) as { type: string; status: string }[];
      return `${object.metadata?.generation}:${conditions.find((c) => c.type === "Ready")?.status ?? "-"}`;
    };
    await watch.waitFor((e) => e.object.metadata?.name === "wb" && readyOf(e.object) === "2:True", 10_000);
    const flips = watch.events
      .filter((e) => e.object.metadata?.name === "wb")
      .map((e) => readyOf(e.object))
      .filter((state, i, all) => state !== all[i - 1]);
    t.diagnostic(`wb Ready by generation, as watched: ${flips.join(" → ")}`);
    assert.deepEqual(flips, ["1:-", "1:False", "1:True", "2:True", "2:False", "2:True"]);
  } finally {
    await op.stop();
    watch.close();
    await operatorProxy.close();
  }
  t.diagnostic(`operator ran ${((performance.now() - started) / 1000).toFixed(1)} s`);
  const conflictLines = op.lines.filter((l) => /^status update of .* failed: .*has been modified/.test(l));
  assert.ok(conflictLines.length >= 1);
  assert.ok(
    op.lines.some((l) => l.includes("Reconciler error") && l.includes("the object has been modified")),
    "controller-runtime took the conflict as an error to retry",
  );

  const requests = "cr_status_update_requests_total";
  const proxyCount = (code: string) =>
    sample(requests, { ...widget, namespace, verb: "update", code, source: "proxy" });
  const byUser = (code: string) =>
    sample("cr_status_update_requests_by_user_total", { user: operator.name, ...widget, code });
  assert.equal(
    await proxyCount("409"),
    conflictLines.length,
    "every 409 the operator saw, counted by the proxy",
  );
  await waitUntil(
    "the audit source has every write of the operator, by its user",
    30_000,
    async () =>
      (await byUser("200")) === (await proxyCount("200")) && (await byUser("409")) === conflictLines.length,
  );
  const failures = "cr_status_update_failures_total";
  for (const source of ["proxy", "audit"]) {
    assert.equal(
      await sample(failures, { ...widget, namespace, reason: "Conflict", source }),
      conflictLines.length,
    );
  }
  console.error(`# the operator's writes:\n${(await seriesFor(namespace, [operator.name])).join("\n")}`);
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
