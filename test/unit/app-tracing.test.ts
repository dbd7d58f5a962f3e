// Tracing as parts of the app, on a scripted Lease API and an injected clock:
// off without an endpoint (and nothing to start), on with one or with span
// processors; the Lease of this shard elected from start and handed back at
// stop; the gauges read the elector and the trace records; the clock ticks
// the records with the injected time until stopped.
import assert from "node:assert/strict";
import { hostname } from "node:os";
import { test } from "node:test";
import { InMemorySpanExporter, SimpleSpanProcessor } from "@opentelemetry/sdk-trace";
import { Registry } from "@prometheus-io/client";
import { buildTracing, leaseElector, shardLeaseName } from "../../src/app/tracing.ts";
import { validateConfig } from "../../src/config/validate.ts";
import type { KubeClient } from "../../src/kube/client.ts";
import { createLogger } from "../../src/log.ts";
import { fakeKubeApi, waitFor } from "../support/fake-kube-api.ts";

interface LeaseRequest {
  method: string;
  path: string;
  holder: unknown;
}

/** An apiserver without the Lease at first: GET 404, POST creates it, later GETs return it, PUT replaces it. */
function leaseApi(): { client: KubeClient; requests: LeaseRequest[] } {
  const requests: LeaseRequest[] = [];
  let lease: { metadata: { resourceVersion: string }; spec: Record<string, unknown> } | undefined;
  const request = (async (method: string, path: string, options?: { body?: unknown }) => {
    const body = options?.body as { spec: Record<string, unknown> } | undefined;
    requests.push({ method, path, holder: body?.spec.holderIdentity });
    if (method === "GET") return lease ? { status: 200, body: lease } : { status: 404, body: {} };
    lease = { metadata: { resourceVersion: String(requests.length) }, spec: body?.spec ?? {} };
    return { status: method === "POST" ? 201 : 200, body: lease };
  }) as KubeClient["request"];
  return { client: { ...fakeKubeApi({}).client, request }, requests };
}

function setup(
  tracing: Record<string, unknown>,
  more: { sharding?: unknown; env?: Record<string, string>; spanProcessors?: boolean } = {},
) {
  const logs: Record<string, unknown>[] = [];
  const api = leaseApi();
  const registry = new Registry();
  const ticks: number[] = [];
  let open = 0;
  let now = 1_000_000;
  const config = validateConfig({ tracing, ...(more.sharding !== undefined && { sharding: more.sharding }) });
  const built = buildTracing(config, {
    client: api.client,
    registry,
    logger: createLogger({ level: "debug", write: (line) => logs.push(JSON.parse(line)) }),
    env: more.env ?? {},
    nowMs: () => now,
    spanProcessors: more.spanProcessors
      ? [new SimpleSpanProcessor({ exporter: new InMemorySpanExporter() })]
      : undefined,
    tickIntervalMs: 1,
    records: { tick: (nowMs) => ticks.push(nowMs), open: () => open },
  });
  const gauge = async (name: string): Promise<string | undefined> =>
    (await registry.metrics()).split("\n").find((l) => l.startsWith(`${name} `));
  return {
    built,
    config,
    logs,
    ticks,
    requests: api.requests,
    gauge,
    setOpen: (n: number) => {
      open = n;
    },
    setNow: (ms: number) => {
      now = ms;
    },
  };
}

test("no endpoint: tracing off, said why; nothing elected, no tracer, no gauges, no clock", async () => {
  const s = setup({});
  const parts = await s.built;
  assert.equal(parts.tracer, undefined);
  assert.equal(parts.elector, undefined);
  assert.deepEqual(
    s.logs.map((l) => [l.level, l.msg, typeof l.reason]),
    [["info", "tracing off", "string"]],
  );
  assert.deepEqual([parts.tracing.name, parts.clock.name], ["tracing", "tracing clock"]);
  await parts.tracing.start();
  await parts.clock.start();
  await parts.clock.stop();
  await parts.tracing.stop();
  assert.equal(await s.gauge("cr_exporter_tracing_leader"), undefined);
  assert.deepEqual(s.ticks, []);
  assert.deepEqual(s.requests, []);
});

test("tracing off still warns on reload when the tracing section changes (it takes a restart)", async () => {
  const s = setup({});
  const parts = await s.built;
  const before = validateConfig({});
  await parts.tracing.reload(validateConfig({ logLevel: "debug" }), before);
  await parts.clock.reload(validateConfig({ tracing: { clusterName: "b" } }), before);
  assert.equal(s.logs.length, 1, "only the 'tracing off' line");
  await parts.tracing.reload(validateConfig({ tracing: { clusterName: "b" } }), before);
  assert.deepEqual(s.logs.at(-1)?.msg, "tracing changes take effect after a restart");
});

test("an endpoint turns tracing on: logged with its URL, protocol and source, the leader without a Lease", async () => {
  const s = setup({ endpoint: "http://127.0.0.1:9/v1/traces", clusterName: "prod" });
  const parts = await s.built;
  assert.ok(parts.tracer);
  assert.equal(parts.elector, undefined);
  assert.deepEqual(
    s.logs.map((l) => [l.level, l.msg]),
    [["warn", "tracing endpoint"]],
    "a base endpoint that already ends in /v1/traces",
  );
  assert.match(String(s.logs[0]?.warning), /already ends in \/v1\/traces/);
  await parts.tracing.start();
  const on = s.logs.at(-1);
  assert.deepEqual(
    [on?.msg, on?.url, on?.protocol, on?.from, on?.cluster, on?.leaderElection],
    [
      "tracing on",
      "http://127.0.0.1:9/v1/traces/v1/traces",
      "http/protobuf",
      "tracing.endpoint",
      "prod",
      "off",
    ],
  );
  assert.equal(await s.gauge("cr_exporter_tracing_leader"), "cr_exporter_tracing_leader 1");
  s.setOpen(3);
  assert.equal(await s.gauge("cr_exporter_tracing_open_episodes"), "cr_exporter_tracing_open_episodes 3");
  await parts.tracing.stop();
  assert.deepEqual(s.requests, [], "no Lease: nothing asked of the apiserver");
});

test("span processors: on without an endpoint, said so", async () => {
  const s = setup({}, { spanProcessors: true });
  const parts = await s.built;
  assert.ok(parts.tracer);
  assert.deepEqual([parts.tracing.name, parts.clock.name], ["tracing", "tracing clock"]);
  await parts.tracing.start();
  assert.deepEqual(
    s.logs.map((l) => [l.msg, l.url]),
    [["tracing on", "(span processors)"]],
  );
  await parts.tracing.stop();
});

test("a Lease elects from start, is shared with its name, is handed back at stop, and the leader gauge follows it", async () => {
  const s = setup(
    { leaseName: "spans", leaseNamespace: "obs" },
    { spanProcessors: true, env: { POD_NAME: "exporter-7" } },
  );
  const parts = await s.built;
  assert.equal(parts.elector?.name, "spans");
  assert.equal(parts.elector?.namespace, "obs");
  assert.equal(
    await s.gauge("cr_exporter_tracing_leader"),
    "cr_exporter_tracing_leader 0",
    "not before start",
  );
  await parts.tracing.start();
  try {
    assert.equal(s.logs.find((l) => l.msg === "tracing on")?.leaderElection, "obs/spans");
    await waitFor(
      () => parts.elector?.elector.isLeader() === true,
      "leading",
      () => s.requests,
    );
    assert.equal(await s.gauge("cr_exporter_tracing_leader"), "cr_exporter_tracing_leader 1");
    assert.deepEqual(s.requests.slice(0, 2), [
      { method: "GET", path: "/apis/coordination.k8s.io/v1/namespaces/obs/leases/spans", holder: undefined },
      { method: "POST", path: "/apis/coordination.k8s.io/v1/namespaces/obs/leases", holder: "exporter-7" },
    ]);
  } finally {
    await parts.tracing.stop();
  }
  assert.deepEqual(s.requests.at(-1)?.holder, "", "the Lease handed back");
  assert.equal(parts.elector?.elector.isLeader(), false);
});

test("sharded: each fixed shard elects on its own Lease", async () => {
  const s = setup(
    { leaseName: "spans", leaseNamespace: "obs" },
    { spanProcessors: true, sharding: { shard: 2, totalShards: 3 } },
  );
  const parts = await s.built;
  assert.equal(parts.elector?.name, "spans-shard-2");
  await parts.tracing.start();
  assert.equal(s.logs.find((l) => l.msg === "tracing on")?.leaderElection, "obs/spans-shard-2");
  await parts.tracing.stop();
  assert.ok(s.requests.every((r) => r.path.endsWith("/leases/spans-shard-2") || r.path.endsWith("/leases")));
});

test("the clock ticks the trace records every interval with the injected time until it is stopped", async (t) => {
  const s = setup({}, { spanProcessors: true });
  const parts = await s.built;
  t.mock.timers.enable({ apis: ["setInterval"] });
  s.setNow(42_000);
  await parts.clock.start();
  t.mock.timers.tick(1);
  s.setNow(43_000);
  t.mock.timers.tick(1);
  assert.deepEqual(s.ticks, [42_000, 43_000]);
  await parts.clock.stop();
  t.mock.timers.tick(10);
  assert.deepEqual(s.ticks, [42_000, 43_000], "no tick after stop");
  await parts.tracing.stop();
});

test("the clock's timer does not keep the process alive (an exporter exits when its server closes)", async () => {
  const s = setup({}, { spanProcessors: true });
  const parts = await s.built;
  const timers = (): number => process.getActiveResourcesInfo().filter((r) => r === "Timeout").length;
  const before = timers();
  await parts.clock.start();
  try {
    assert.equal(timers(), before, "unref'd: not among the resources that keep the process alive");
  } finally {
    await parts.clock.stop();
    await parts.tracing.stop();
  }
});

test("the Lease needs a name and a namespace; its identity is the pod name, else this host and process", async () => {
  const { client, requests } = leaseApi();
  const deps = { client, logger: createLogger({ write: () => {} }), nowMs: () => 0, env: {} };
  assert.equal(leaseElector(undefined, "obs", deps), undefined);
  assert.equal(leaseElector("spans", undefined, deps), undefined);
  assert.equal(leaseElector("", "obs", deps), undefined);
  assert.equal(leaseElector("spans", "", deps), undefined);
  await leaseElector("spans", "obs", deps)?.tryAcquireOrRenew();
  assert.equal(requests.at(-1)?.holder, `${hostname()}-${process.pid}`);
  assert.equal(
    shardLeaseName("spans", { kind: "statefulset", pod: "e-0", podNamespace: "o", filter: "apiserver" }),
    "spans",
    "a StatefulSet shard is one pod: no Lease of its own",
  );
});
