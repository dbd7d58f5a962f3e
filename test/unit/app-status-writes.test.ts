// The status-write sources as a part of the app: nothing started unless the
// configuration asks; the API proxy and the audit receiver in this process,
// or the proxy's counters read from its own process under the supervisor
// (then /readyz waits for its first answer); restart notices on reload. The
// sources themselves are tested in test/unit/statuswrites/.
import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, test } from "node:test";
import { Registry } from "@prometheus-io/client";
import { buildStatusWriteSources } from "../../src/app/status-writes.ts";
import { validateConfig } from "../../src/config/validate.ts";
import type { KubeClient } from "../../src/kube/client.ts";
import { kubeConfigClass } from "../../src/kube/kubeconfig.ts";
import { createLogger, silentLogger } from "../../src/log.ts";
import { serveProxyCounters } from "../../src/statuswrites/process/counters-channel.ts";
import { countersSocketPath } from "../../src/supervisor/roles.ts";
import { makeTestCertificates } from "../helpers/tls-certs.ts";
import { fakeKubeApi, waitFor } from "../support/fake-kube-api.ts";

const directory = mkdtempSync(join(tmpdir(), "cr-app-status-writes-"));
after(() => rmSync(directory, { recursive: true, force: true }));

/** The files an audit receiver on loopback needs: its certificate, key and a bearer token. */
function auditFiles() {
  const certs = makeTestCertificates();
  const file = (name: string, text: string): string => {
    const path = join(directory, name);
    writeFileSync(path, text);
    return path;
  };
  return {
    listen: "127.0.0.1:0",
    certFile: file("audit.crt", certs.serverCertPem),
    keyFile: file("audit.key", certs.serverKeyPem),
    bearerTokenFile: file("audit.token", "s3cret"),
  };
}

async function nowhere() {
  const kubeConfig = new (await kubeConfigClass())();
  kubeConfig.loadFromClusterAndUser(
    { name: "c", server: "https://127.0.0.1:9", skipTLSVerify: true },
    { name: "u", token: "t" },
  );
  return kubeConfig;
}

/** Discovery answers nothing: the sources start without confirmed kinds. */
const client: KubeClient = fakeKubeApi({ lists: () => ({ status: 404, body: {} }) }).client;

async function setup(raw: Record<string, unknown>, proxyProcess?: { socketPath: string }) {
  const logs: Record<string, unknown>[] = [];
  const registry = new Registry();
  const part = buildStatusWriteSources(validateConfig(raw), {
    kubeConfig: await nowhere(),
    client,
    registry,
    logger: createLogger({ level: "debug", write: (line) => logs.push(JSON.parse(line)) }),
    proxyProcess: proxyProcess && { ...proxyProcess, exporterRestarts: 0, firstAnswerPollMs: 5 },
  });
  return { part, logs, registry };
}

/** Whether something accepts connections at this URL. */
async function answers(url: string): Promise<boolean> {
  try {
    await fetch(url, { signal: AbortSignal.timeout(5_000) });
    return true;
  } catch (error) {
    return !/ECONNREFUSED/.test(String((error as Error).cause));
  }
}

test("neither source configured: nothing starts (not even their families), nothing to wait for", async () => {
  const { part, registry } = await setup({});
  await part.start();
  assert.equal((await registry.metrics()).trim(), "", "no status-write families registered");
  assert.deepEqual(
    [part.proxyUrl, part.proxyCaPem, part.auditUrl, part.notReady()],
    [undefined, undefined, undefined, undefined],
  );
  await part.stop();
});

test("the audit receiver alone runs in this process, also under the supervisor, and stops with the part", async () => {
  for (const proxyProcess of [undefined, { socketPath: countersSocketPath() }]) {
    const { part } = await setup({ auditReceiver: auditFiles() }, proxyProcess);
    await part.start();
    try {
      assert.match(part.auditUrl ?? "", /^https:\/\/127\.0\.0\.1:\d+/);
      assert.equal(part.proxyUrl, undefined);
      assert.equal(part.notReady(), undefined, "no API proxy to wait for");
      assert.ok(await answers(part.auditUrl as string));
    } finally {
      await part.stop();
    }
    assert.equal(await answers(part.auditUrl as string), false, "closed by stop");
  }
});

test("the API proxy in this process serves TLS with its own CA, and stops with the part", async () => {
  const { part } = await setup({ apiProxy: { listen: "127.0.0.1:0", tokenFile: join(directory, "token") } });
  await part.start();
  try {
    assert.match(part.proxyUrl ?? "", /^https:\/\/127\.0\.0\.1:\d+$/);
    assert.match(part.proxyCaPem ?? "", /^-----BEGIN CERTIFICATE-----/);
    assert.equal(part.auditUrl, undefined);
    assert.equal(part.notReady(), undefined);
  } finally {
    await part.stop();
  }
  assert.equal(await answers(part.proxyUrl as string), false, "closed by stop");
});

test("under the supervisor the API proxy's URL and CA come from its process, and /readyz waits for its first answer", async () => {
  const socketPath = countersSocketPath();
  const { part } = await setup({ apiProxy: { listen: "127.0.0.1:0" } }, { socketPath });
  await part.start();
  try {
    assert.equal(part.notReady(), "the API proxy process has not answered yet");
    assert.equal(part.proxyUrl, undefined);
    const server = await serveProxyCounters(
      socketPath,
      {
        instance: randomBytes(4).toString("hex"),
        startTimeSeconds: 1_700_000_000,
        restarts: 0,
        url: "https://127.0.0.1:8001",
        caPem: "CA",
        registry: new Registry(),
      },
      silentLogger,
    );
    try {
      await waitFor(
        () => part.notReady() === undefined,
        "the proxy process's first answer",
        () => part.notReady(),
      );
      assert.equal(part.proxyUrl, "https://127.0.0.1:8001");
      assert.equal(part.proxyCaPem, "CA");
    } finally {
      await server.close();
    }
  } finally {
    await part.stop();
  }
});

test("a reload warns only when apiProxy or auditReceiver changes, which takes a restart", async () => {
  const { part, logs } = await setup({});
  const proxy = validateConfig({ apiProxy: { listen: "127.0.0.1:8001" } });
  await part.reload(validateConfig({ apiProxy: { listen: "127.0.0.1:8001" }, logLevel: "debug" }), proxy);
  assert.equal(logs.length, 0);
  await part.reload(validateConfig({ apiProxy: { listen: "127.0.0.1:8002" } }), proxy);
  await part.reload(
    validateConfig({ apiProxy: { listen: "127.0.0.1:8001" }, auditReceiver: auditFiles() }),
    proxy,
  );
  assert.deepEqual(
    logs.map((l) => [l.level, l.msg]),
    [
      ["warn", "apiProxy and auditReceiver changes take effect after a restart"],
      ["warn", "apiProxy and auditReceiver changes take effect after a restart"],
    ],
  );
});
