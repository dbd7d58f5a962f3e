// Starting the configured status-write sources in this process (sources.ts):
// the API proxy with the operator's own kubeconfig user, the audit receiver
// with its files, and a failed start that closes what had started.
import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { connect } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, test } from "node:test";
import { Registry } from "@prometheus-io/client";
import { parse, stringify } from "yaml";
import { validateConfig } from "../../../src/config/validate.ts";
import type { KubeClient } from "../../../src/kube/client.ts";
import { kubeConfigClass } from "../../../src/kube/kubeconfig.ts";
import { createLogger } from "../../../src/log.ts";
import { startStatusWriteSources } from "../../../src/statuswrites/sources.ts";
import { makeTestCertificates } from "../../helpers/tls-certs.ts";
import { startDiscoveryApiserver } from "../../support/discovery-apiserver.ts";
import { fakeKubeApi } from "../../support/fake-kube-api.ts";

const directory = mkdtempSync(join(tmpdir(), "cr-sources-"));
after(() => rmSync(directory, { recursive: true, force: true }));

function file(name: string, text: string): string {
  const path = join(directory, name);
  writeFileSync(path, text);
  return path;
}

async function deps() {
  const kubeConfig = new (await kubeConfigClass())();
  kubeConfig.loadFromClusterAndUser(
    { name: "c", server: "https://127.0.0.1:9", skipTLSVerify: true },
    { name: "u", token: "t" },
  );
  const client: KubeClient = fakeKubeApi({ lists: () => ({ status: 404, body: {} }) }).client;
  const logs: Record<string, unknown>[] = [];
  return {
    kubeConfig,
    client,
    registry: new Registry(),
    logger: createLogger({ level: "debug", write: (line) => logs.push(JSON.parse(line)) }),
    logs,
  };
}

function refused(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, "127.0.0.1");
    socket.once("connect", () => {
      socket.destroy();
      resolve(false);
    });
    socket.once("error", (error: NodeJS.ErrnoException) => resolve(error.code === "ECONNREFUSED"));
  });
}

test("the API proxy writes the operator's own kubeconfig user into the kubeconfig it serves", async () => {
  const own = file(
    "operator.kubeconfig",
    stringify({
      users: [{ name: "me", user: { token: "inline" } }],
      contexts: [{ name: "ctx", context: { user: "me" } }],
      "current-context": "ctx",
    }),
  );
  const kubeconfigPath = join(directory, "served.kubeconfig");
  const config = validateConfig({
    apiProxy: { listen: "127.0.0.1:0", kubeconfigPath, userFromKubeconfig: own },
  });
  const d = await deps();
  const running = await startStatusWriteSources(
    { apiProxy: config.apiProxy, auditReceiver: undefined, metricPrefix: "acme_" },
    d,
  );
  try {
    assert.match(running.proxyUrl ?? "", /^https:\/\/127\.0\.0\.1:\d+$/);
    assert.match(running.proxyCaPem ?? "", /^-----BEGIN CERTIFICATE-----/);
    assert.equal(running.auditUrl, undefined);
    assert.deepEqual(parse(readFileSync(kubeconfigPath, "utf8")).users[0].user, { token: "inline" });
    assert.match(
      await d.registry.metrics(),
      /^# HELP acme_status_update_requests_total /m,
      "the configured prefix",
    );
  } finally {
    await running.close();
  }
  assert.equal(await refused(Number(new URL(running.proxyUrl ?? "").port)), true, "closed");
});

test("a user kubeconfig with a client certificate fails the start naming apiProxy.userFromKubeconfig", async () => {
  const own = file(
    "cert.kubeconfig",
    stringify({
      users: [{ name: "me", user: { "client-certificate-data": "eA==" } }],
      contexts: [{ name: "ctx", context: { user: "me" } }],
      "current-context": "ctx",
    }),
  );
  const config = validateConfig({ apiProxy: { listen: "127.0.0.1:0", userFromKubeconfig: own } });
  await assert.rejects(
    startStatusWriteSources(
      { apiProxy: config.apiProxy, auditReceiver: undefined, metricPrefix: "cr_" },
      await deps(),
    ),
    /^Error: apiProxy\.userFromKubeconfig: user "me" in /,
  );
});

test("the audit receiver reads its certificate, key, token and client CA from their files", async () => {
  const certs = makeTestCertificates();
  const config = validateConfig({
    auditReceiver: {
      listen: "127.0.0.1:0",
      certFile: file("a.crt", certs.serverCertPem),
      keyFile: file("a.key", certs.serverKeyPem),
      bearerTokenFile: file("a.token", "s3cret"),
      clientCaFile: file("a-ca.crt", certs.caPem),
    },
  });
  const d = await deps();
  const running = await startStatusWriteSources(
    { apiProxy: undefined, auditReceiver: config.auditReceiver, metricPrefix: "cr_" },
    d,
  );
  try {
    assert.match(running.auditUrl ?? "", /^https:\/\/127\.0\.0\.1:\d+\/audit$/);
    assert.equal(running.proxyUrl, undefined);
    const listening = d.logs.find((l) => l.msg === "audit receiver listening");
    assert.deepEqual([listening?.bearerToken, listening?.clientCa], [true, true]);
  } finally {
    await running.close();
  }
});

test("when the audit receiver cannot start, the API proxy started before it is closed and the error passes on", async () => {
  const certs = makeTestCertificates();
  const config = validateConfig({
    apiProxy: { listen: "127.0.0.1:0", plainHttp: true },
    auditReceiver: {
      listen: "127.0.0.1:0",
      certFile: file("b.crt", certs.serverCertPem),
      keyFile: file("b.key", "not a key"),
      bearerTokenFile: file("b.token", "s3cret"),
    },
  });
  const d = await deps();
  await assert.rejects(
    startStatusWriteSources(
      { apiProxy: config.apiProxy, auditReceiver: config.auditReceiver, metricPrefix: "cr_" },
      d,
    ),
  );
  const listening = d.logs.find((l) => l.msg === "api proxy listening");
  assert.ok(listening, "the proxy had started");
  assert.equal(await refused(Number(new URL(String(listening.url)).port)), true, "and was closed");
});

test("labels are confirmed with the exporter's own client: GETs of discovery and of the namespace list", async (t) => {
  const apiserver = await startDiscoveryApiserver();
  t.after(() => apiserver.close());
  const kubeConfig = new (await kubeConfigClass())();
  kubeConfig.loadFromClusterAndUser(
    {
      name: "c",
      server: apiserver.url,
      caData: Buffer.from(apiserver.caPem).toString("base64"),
      skipTLSVerify: false,
    },
    { name: "u", token: "t" },
  );
  const answers: Record<string, unknown> = {
    "/api": { versions: ["v1"] },
    "/apis": { groups: [{ versions: [{ groupVersion: "example.com/v1" }] }] },
    "/apis/example.com/v1": { resources: [{ name: "widgets", kind: "Widget" }] },
    "/api/v1/namespaces": { items: [{ metadata: { name: "ns2" } }], metadata: {} },
  };
  const { client, calls } = fakeKubeApi({
    lists: (_query, _signal, path) => ({ status: 200, body: answers[path] ?? {} }),
  });
  const registry = new Registry();
  const config = validateConfig({ apiProxy: { listen: "127.0.0.1:0", plainHttp: true } });
  const running = await startStatusWriteSources(
    { apiProxy: config.apiProxy, auditReceiver: undefined, metricPrefix: "cr_" },
    { kubeConfig, client, registry, logger: createLogger({ write: () => {} }) },
  );
  try {
    const response = await fetch(`${running.proxyUrl}/apis/example.com/v1/namespaces/ns2/widgets/w1/status`, {
      method: "PATCH",
      body: "{}",
    });
    assert.equal(response.status, 200);
    await response.arrayBuffer();
    const line =
      /^cr_status_update_requests_total\{group="example.com",kind="Widget",namespace="ns2",verb="patch",code="200",source="proxy"\} 1$/m;
    for (let i = 0; i < 100 && !line.test(await registry.metrics()); i++) {
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    assert.match(await registry.metrics(), line);
    assert.deepEqual(apiserver.requests, ["PATCH /apis/example.com/v1/namespaces/ns2/widgets/w1/status"]);
    assert.deepEqual(
      calls.map((c) => [c.method, c.path]),
      [
        ["GET", "/api"],
        ["GET", "/apis"],
        ["GET", "/apis/example.com/v1"],
      ],
      "a successful write confirms its namespace without a list",
    );
    // A failed write to a namespace no write confirmed: the namespace list is read, 500 at a time.
    const failed = await fetch(
      `${running.proxyUrl}/apis/example.com/v1/namespaces/ns3/widgets/conflict/status`,
      {
        method: "PATCH",
        body: "{}",
      },
    );
    assert.equal(failed.status, 409);
    await failed.arrayBuffer();
    const folded =
      /^cr_status_update_failures_total\{group="example.com",kind="Widget",namespace="other",reason="Conflict",source="proxy"\} 1$/m;
    for (let i = 0; i < 100 && !folded.test(await registry.metrics()); i++) {
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    assert.match(await registry.metrics(), folded, "ns3 is not listed");
    assert.deepEqual(calls.at(-1), {
      kind: "list",
      method: "GET",
      path: "/api/v1/namespaces",
      query: { limit: 500, continue: undefined },
    });
  } finally {
    await running.close();
  }
});

test("an audit receiver file gone by the start fails it naming its field", async () => {
  const certs = makeTestCertificates();
  for (const field of ["bearerTokenFile", "clientCaFile"] as const) {
    const gone = file(`gone-${field}`, certs.caPem);
    const config = validateConfig({
      auditReceiver: {
        listen: "127.0.0.1:0",
        certFile: file("c.crt", certs.serverCertPem),
        keyFile: file("c.key", certs.serverKeyPem),
        bearerTokenFile: file("c.token", "s3cret"),
        [field]: gone,
      },
    });
    rmSync(gone);
    await assert.rejects(
      startStatusWriteSources(
        { apiProxy: undefined, auditReceiver: config.auditReceiver, metricPrefix: "cr_" },
        await deps(),
      ),
      (error: Error) => error.message.includes(`auditReceiver.${field}: cannot read`),
      field,
    );
  }
});
