// The exporter's side of a proxy running in its own process
// (remote-sources.ts): the proxy is asked every 250 ms until it first
// answers, then no more (scrapes read it from then on), and not at all once
// closed. setInterval is mocked; the counters socket is real.
import assert from "node:assert/strict";
import { createServer } from "node:http";
import { type TestContext, test } from "node:test";
import { Registry } from "@prometheus-io/client";
import { validateConfig } from "../../../src/config/validate.ts";
import type { KubeClient } from "../../../src/kube/client.ts";
import { kubeConfigClass } from "../../../src/kube/kubeconfig.ts";
import { silentLogger } from "../../../src/log.ts";
import { socketAddress } from "../../../src/statuswrites/process/counters-channel.ts";
import { startWithProxyProcess } from "../../../src/statuswrites/process/remote-sources.ts";
import { countersSocketPath } from "../../../src/supervisor/roles.ts";
import { fakeKubeApi, waitFor } from "../../support/fake-kube-api.ts";

const snapshot = {
  instance: "i",
  pid: 1,
  startTimeSeconds: 1,
  restarts: 0,
  sequence: 1,
  url: "https://127.0.0.1:8001",
  caPem: "CA",
  families: [
    {
      name: "cr_status_update_requests_total",
      values: [
        {
          labels: { group: "g", kind: "K", namespace: "n", verb: "patch", code: "200", source: "proxy" },
          value: 3,
        },
      ],
    },
  ],
};

/** A counters socket that answers 500 until `ready`, then the snapshot; it counts the reads. */
async function countersServer(t: TestContext, path: string) {
  /** reads: requests seen; closed: their connections closed by the reader, so their answers were read. */
  const state = { reads: 0, closed: 0, ready: false };
  const server = createServer((req, res) => {
    state.reads++;
    req.socket.once("close", () => state.closed++);
    if (!state.ready) {
      res.writeHead(500).end();
      return;
    }
    const body = JSON.stringify(snapshot);
    res.writeHead(200, { "Content-Type": "application/json" }).end(body);
  });
  await new Promise<void>((resolve) => server.listen(socketAddress(path), resolve));
  t.after(
    () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  );
  return state;
}

async function start(socketPath: string, registry = new Registry()) {
  const kubeConfig = new (await kubeConfigClass())();
  kubeConfig.loadFromClusterAndUser(
    { name: "c", server: "https://127.0.0.1:9", skipTLSVerify: true },
    { name: "u", token: "t" },
  );
  const client: KubeClient = fakeKubeApi({ lists: () => ({ status: 404, body: {} }) }).client;
  return startWithProxyProcess(
    {
      apiProxy: validateConfig({ apiProxy: { listen: "127.0.0.1:0" } }).apiProxy,
      auditReceiver: undefined,
      metricPrefix: "cr_",
    },
    { kubeConfig, client, registry, logger: silentLogger },
    { socketPath, exporterRestarts: 0 },
  );
}

test("the proxy is asked every 250 ms until its first answer, then no more", async (t) => {
  t.mock.timers.enable({ apis: ["setInterval"] });
  const path = countersSocketPath();
  const server = await countersServer(t, path);
  const sources = await start(path);
  t.after(() => sources.close());
  // The read at start is over (a poll during it would share it rather than read again).
  await waitFor(
    () => server.closed === 1,
    "the read at start",
    () => server,
  );
  for (let i = 0; i < 5; i++) await new Promise((resolve) => setImmediate(resolve));
  assert.equal(sources.notReady?.(), "the API proxy process has not answered yet");
  assert.equal(sources.proxyUrl, undefined);
  assert.equal(sources.proxyCaPem, undefined);
  t.mock.timers.tick(249);
  t.mock.timers.tick(0);
  await new Promise((resolve) => setImmediate(resolve));
  assert.equal(server.reads, 1, "not before 250 ms");
  t.mock.timers.tick(1);
  await waitFor(
    () => server.reads === 2,
    "the first poll",
    () => server.reads,
  );
  await waitFor(
    () => server.closed === 2,
    "the first poll's answer read",
    () => server,
  );
  for (let i = 0; i < 5; i++) await new Promise((resolve) => setImmediate(resolve));
  server.ready = true;
  t.mock.timers.tick(250);
  await waitFor(
    () => sources.notReady?.() === undefined,
    "the first answer",
    () => server.reads,
  );
  assert.equal(sources.proxyUrl, "https://127.0.0.1:8001");
  assert.equal(sources.proxyCaPem, "CA");
  assert.equal(sources.auditUrl, undefined);
  // Let the poll's own refresh settle (it clears the interval when it sees the snapshot).
  for (let i = 0; i < 5; i++) await new Promise((resolve) => setImmediate(resolve));
  const reads = server.reads;
  t.mock.timers.tick(250);
  t.mock.timers.tick(250);
  for (let i = 0; i < 5; i++) await new Promise((resolve) => setImmediate(resolve));
  assert.equal(server.reads, reads, "no polling once answered");
});

test("a closed source asks no more", async (t) => {
  t.mock.timers.enable({ apis: ["setInterval"] });
  const path = countersSocketPath();
  const server = await countersServer(t, path);
  const sources = await start(path);
  await waitFor(
    () => server.reads === 1,
    "the read at start",
    () => server.reads,
  );
  await sources.close();
  t.mock.timers.tick(250);
  t.mock.timers.tick(250);
  for (let i = 0; i < 5; i++) await new Promise((resolve) => setImmediate(resolve));
  assert.equal(server.reads, 1);
});

test("the proxy's samples join the status-write families, with its up gauge and restart counts", async (t) => {
  const path = countersSocketPath();
  const server = await countersServer(t, path);
  server.ready = true;
  const registry = new Registry();
  const sources = await start(path, registry);
  t.after(() => sources.close());
  const text = await registry.metrics();
  assert.match(
    text,
    /^cr_status_update_requests_total\{group="g",kind="K",namespace="n",verb="patch",code="200",source="proxy"\} 3$/m,
  );
  assert.match(text, /^cr_exporter_api_proxy_up 1$/m);
  assert.match(text, /^cr_exporter_process_restarts_total\{process="exporter"\} 0$/m);
});
