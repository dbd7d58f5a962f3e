// The OTLP metrics export as a part of the app, against a loopback receiver
// and a scripted Lease API: off unless asked (said why), on with an endpoint
// (said where, pushed with our resource, flushed once more at stop); its own
// Lease elected from start and handed back at stop, or the tracing Lease
// shared when both name the same one (then tracing starts and stops it); only
// the leader pushes. The exporter itself is tested in test/unit/otlp-metrics/.
import assert from "node:assert/strict";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { hostname } from "node:os";
import { after, before, test } from "node:test";
import { Registry } from "@prometheus-io/client";
import { buildOtlpMetrics, resourceAttributes } from "../../src/app/otlp-metrics.ts";
import { leaseElector } from "../../src/app/tracing.ts";
import { validateConfig } from "../../src/config/validate.ts";
import type { KubeClient } from "../../src/kube/client.ts";
import { createLogger } from "../../src/log.ts";
import { fakeKubeApi, waitFor } from "../support/fake-kube-api.ts";

/** What the receiver got: one JSON body per request. */
const received: { resourceMetrics?: { resource?: { attributes?: { key: string; value: unknown }[] } }[] }[] =
  [];
let endpoint = "";
const server = createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on("data", (c: Buffer) => chunks.push(c));
  req.on("end", () => {
    received.push(JSON.parse(Buffer.concat(chunks).toString()));
    res.end("{}");
  });
});
before(async () => {
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  endpoint = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
after(() => new Promise((resolve) => server.close(resolve)));

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

function setup(raw: Record<string, unknown>, tracingLease?: { name: string; namespace: string }) {
  const logs: Record<string, unknown>[] = [];
  const api = leaseApi();
  const deps = {
    client: api.client,
    logger: createLogger({ level: "debug", write: (line) => logs.push(JSON.parse(line)) }),
    env: { POD_NAME: "exporter-0" },
    nowMs: () => Date.now(),
  };
  const tracingElector = tracingLease && leaseElector(tracingLease.name, tracingLease.namespace, deps);
  const part = buildOtlpMetrics(validateConfig(raw), {
    ...deps,
    registry: new Registry(),
    sources: () => [],
    tracingElector: tracingLease && tracingElector && { ...tracingLease, elector: tracingElector },
  });
  return { part, logs, requests: api.requests, tracingElector };
}

const json = { protocol: "http/json", interval: "1h" };
const on = (more: Record<string, unknown> = {}) => ({ otlpMetrics: { ...json, endpoint, ...more } });

test("not asked for: off, said why; nothing to start or stop", async () => {
  const s = setup({});
  const part = await s.part;
  assert.equal(part.name, "otlp metrics");
  assert.equal(part.exporter, undefined);
  assert.deepEqual(
    s.logs.map((l) => [l.level, l.msg, typeof l.reason]),
    [["info", "OTLP metrics export off", "string"]],
  );
  await part.start();
  await part.stop();
  assert.equal(s.logs.length, 1);
});

test("a reload warns only when otlpMetrics changes (it takes a restart), on or off", async () => {
  for (const raw of [{}, on()]) {
    const s = setup(raw);
    const part = await s.part;
    const count = s.logs.length;
    const current = validateConfig(raw);
    await part.reload(validateConfig({ ...raw, logLevel: "debug" }), current);
    assert.equal(s.logs.length, count);
    await part.reload(validateConfig({ otlpMetrics: { enabled: false } }), current);
    assert.deepEqual(
      s.logs.slice(count).map((l) => [l.level, l.msg]),
      [["warn", "otlpMetrics changes take effect after a restart"]],
    );
    await part.stop();
  }
});

test("an endpoint turns it on: said where, pushed with our resource, flushed once more at stop", async () => {
  const s = setup(on());
  const part = await s.part;
  assert.ok(part.exporter);
  await part.start();
  assert.deepEqual(
    s.logs.filter((l) => l.level === "warn"),
    [],
    "a base endpoint: nothing to warn about",
  );
  const said = s.logs.find((l) => l.msg === "OTLP metrics export on");
  assert.deepEqual(
    [said?.url, said?.protocol, said?.from, said?.intervalMs, said?.compression, said?.leaderElection],
    [`${endpoint}/v1/metrics`, "http/json", "otlpMetrics.endpoint", 3_600_000, "none", "off"],
  );
  const count = received.length;
  assert.equal((await part.exporter.exportNow()).result, "success");
  assert.equal(received.length, count + 1);
  const attributes = received.at(-1)?.resourceMetrics?.[0]?.resource?.attributes ?? [];
  assert.deepEqual(
    attributes.find((a) => a.key === "service.instance.id"),
    { key: "service.instance.id", value: { stringValue: "exporter-0" } },
  );
  await part.stop();
  assert.equal(received.length, count + 2, "the last flush");
  assert.deepEqual(s.requests, [], "no Lease: nothing asked of the apiserver");
});

test("an endpoint that already ends in /v1/metrics is warned about", async () => {
  const s = setup(on({ endpoint: `${endpoint}/v1/metrics` }));
  await (await s.part).stop();
  assert.deepEqual(
    s.logs.filter((l) => l.level === "warn").map((l) => l.msg),
    ["OTLP metrics endpoint"],
  );
  assert.match(String(s.logs.find((l) => l.level === "warn")?.warning), /already ends in \/v1\/metrics/);
});

test("its own Lease: elected from start, only the leader pushes, handed back after the last flush", async () => {
  const s = setup(on({ leaseName: "metrics", leaseNamespace: "obs" }), { name: "spans", namespace: "obs" });
  const part = await s.part;
  assert.ok(part.exporter);
  assert.equal((await part.exporter.exportNow()).result, "skipped", "not the leader before start");
  await part.start();
  try {
    assert.equal(s.logs.find((l) => l.msg === "OTLP metrics export on")?.leaderElection, "obs/metrics");
    await waitFor(
      () => s.requests.some((r) => r.method === "POST"),
      "the Lease taken",
      () => s.requests,
    );
    assert.equal((await part.exporter.exportNow()).result, "success");
    assert.ok(s.requests.every((r) => r.path.includes("/namespaces/obs/leases")));
    assert.ok(s.requests.some((r) => r.path.endsWith("/leases/metrics")));
  } finally {
    await part.stop();
  }
  assert.equal(part.exporter.lastReport?.result, "success", "flushed while still leading");
  assert.equal(s.requests.at(-1)?.holder, "", "the Lease handed back");
  assert.equal(s.tracingElector?.isLeader(), false, "the tracing Lease is not this part's");
});

test("sharded, the Lease is the shard's", async () => {
  const s = setup({
    ...on({ leaseName: "metrics", leaseNamespace: "obs" }),
    sharding: { shard: 1, totalShards: 2 },
  });
  const part = await s.part;
  await part.start();
  await part.stop();
  assert.equal(s.logs.find((l) => l.msg === "OTLP metrics export on")?.leaderElection, "obs/metrics-shard-1");
  assert.ok(s.requests.length > 0);
  assert.ok(
    s.requests.every((r) => r.path.endsWith("/leases/metrics-shard-1") || r.path.endsWith("/leases")),
  );
});

test("the tracing Lease, when named the same, is shared: tracing starts and stops it, the export follows its leadership", async () => {
  const s = setup(on({ leaseName: "spans", leaseNamespace: "obs" }), { name: "spans", namespace: "obs" });
  const part = await s.part;
  assert.ok(part.exporter && s.tracingElector);
  await part.start();
  assert.equal(s.logs.find((l) => l.msg === "OTLP metrics export on")?.leaderElection, "obs/spans");
  assert.deepEqual(s.requests, [], "not started by this part");
  assert.equal((await part.exporter.exportNow()).result, "skipped", "the tracing elector does not lead yet");
  assert.equal(await s.tracingElector.tryAcquireOrRenew(), true);
  assert.equal((await part.exporter.exportNow()).result, "success", "it leads now");
  const count = s.requests.length;
  await part.stop();
  assert.equal(s.requests.length, count, "not stopped (nor handed back) by this part");
  assert.equal(s.tracingElector.isLeader(), true);
  await s.tracingElector.stop();
});

test("a Lease of the same name in another namespace is not the tracing one", async () => {
  const s = setup(on({ leaseName: "spans", leaseNamespace: "other" }), { name: "spans", namespace: "obs" });
  const part = await s.part;
  await part.start();
  await part.stop();
  assert.ok(s.requests.some((r) => r.path === "/apis/coordination.k8s.io/v1/namespaces/other/leases"));
});

test("started, it pushes every interval by itself", async () => {
  const s = setup(on({ interval: "0.1s" }));
  const part = await s.part;
  assert.equal(part.name, "otlp metrics");
  const count = received.length;
  await part.start();
  try {
    await waitFor(
      () => received.length > count,
      "an export without exportNow",
      () => received.length,
    );
  } finally {
    await part.stop();
  }
});

test("resource attributes: blank POD_NAME and OTEL_SERVICE_NAME count as unset; values are trimmed", () => {
  const blank = resourceAttributes({ POD_NAME: "  ", OTEL_SERVICE_NAME: " " });
  assert.equal(blank["service.name"], "cr-status-exporter");
  assert.equal(blank["service.instance.id"], hostname());
  assert.equal(blank["k8s.pod.name"], undefined);
  const spaced = resourceAttributes({ POD_NAME: " exporter-0 ", OTEL_SERVICE_NAME: " shop " });
  assert.deepEqual(
    [spaced["service.name"], spaced["service.instance.id"], spaced["k8s.pod.name"]],
    ["shop", "exporter-0", "exporter-0"],
  );
  assert.throws(
    () => resourceAttributes({ OTEL_RESOURCE_ATTRIBUTES: "novalue" }),
    /\n {2}OTEL_RESOURCE_ATTRIBUTES: expected key=value pairs, got "novalue"$/,
  );
});

test("without a Lease of its own every replica pushes, even beside a tracing Lease", async () => {
  const s = setup(on(), { name: "spans", namespace: "obs" });
  const part = await s.part;
  assert.ok(part.exporter);
  await part.start();
  try {
    assert.equal(s.logs.find((l) => l.msg === "OTLP metrics export on")?.leaderElection, "off");
    assert.equal((await part.exporter.exportNow()).result, "success", "the tracing elector does not lead");
  } finally {
    await part.stop();
  }
});
