// The export loop against a loopback OTLP/HTTP receiver: what a request
// carries (protocol, gzip, headers), retries on retryable answers only, a
// failed export dropped whole with nothing queued, only the leader pushing,
// one last flush on stop.
import assert from "node:assert/strict";
import { createServer, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { test } from "node:test";
import { gunzipSync } from "node:zlib";
import { resourceFromAttributes } from "@opentelemetry/resources";
import { silentLogger } from "../../../src/log.ts";
import { OtlpMetricsExporter } from "../../../src/otlp-metrics/exporter.ts";
import { registerOtlpMetricsMetrics } from "../../../src/otlp-metrics/metrics.ts";
import type { OtlpMetricsSettings } from "../../../src/otlp-metrics/settings.ts";
import { backoffMs, retryAfterMs } from "../../../src/otlp-metrics/transport.ts";
import { offlineCollector } from "../../support/collector.ts";

interface Received {
  headers: IncomingMessage["headers"];
  body: Buffer;
}

async function receiver(
  answer: (n: number) => number,
): Promise<{ url: string; got: Received[]; server: Server }> {
  const got: Received[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      got.push({ headers: req.headers, body: Buffer.concat(chunks) });
      res.statusCode = answer(got.length);
      res.end(res.statusCode === 200 ? "" : "no");
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1/metrics`, got, server };
}

function setup(url: string, over: Partial<OtlpMetricsSettings> = {}, isLeader?: () => boolean) {
  const c = offlineCollector();
  c.collector.ingest("ADDED", {
    apiVersion: "example.com/v1",
    kind: "Widget",
    metadata: { name: "w", namespace: "shop", uid: "u", generation: 1, resourceVersion: "1" },
    status: {
      conditions: [
        { type: "Ready", status: "True", reason: "Ok", lastTransitionTime: "2026-01-01T00:00:00Z" },
      ],
    },
  });
  const metrics = registerOtlpMetricsMetrics(c.metrics.registry, "cr_");
  const exporter = new OtlpMetricsExporter({
    settings: {
      target: { url, protocol: "http/protobuf", source: "test" },
      headers: { authorization: "Bearer t" },
      compression: "none",
      timeoutMs: 2_000,
      intervalMs: 60_000,
      exportTimeoutMs: 5_000,
      temporality: "cumulative",
      ...over,
    },
    sources: () => c.collector.sources,
    registry: c.metrics.registry,
    resource: resourceFromAttributes({ "service.name": "cr-status-exporter" }),
    version: "test",
    ...(isLeader && { isLeader }),
    metrics,
    logger: silentLogger,
    startMs: Date.now(),
  });
  const count = async (result: string) =>
    ((await metrics.exports.get()).values.find((v) => v.labels.result === result)?.value ?? 0) as number;
  return { exporter, count, metrics };
}

test("a protobuf export: one request with the headers, the points and the self-metrics", async () => {
  const r = await receiver(() => 200);
  try {
    const { exporter, count, metrics } = setup(r.url);
    const report = await exporter.exportNow();
    assert.equal(report.result, "success");
    assert.equal(r.got.length, 1);
    assert.equal(r.got[0]?.headers["content-type"], "application/x-protobuf");
    assert.equal(r.got[0]?.headers.authorization, "Bearer t");
    assert.equal(r.got[0]?.headers["content-encoding"], undefined);
    assert.ok(report.points > 10 && report.bytes === r.got[0]?.body.length, JSON.stringify(report));
    assert.ok(r.got[0]?.body.includes("cr_condition"), "the metric names are in the request");
    assert.equal(await count("success"), 1);
    assert.ok(((await metrics.lastSuccess.get()).values[0]?.value ?? 0) > 0);
  } finally {
    r.server.close();
  }
});

test("http/json with gzip: a JSON ExportMetricsServiceRequest, compressed", async () => {
  const r = await receiver(() => 200);
  try {
    const { exporter } = setup(r.url, {
      target: { url: r.url, protocol: "http/json", source: "test" },
      compression: "gzip",
    });
    const report = await exporter.exportNow();
    assert.equal(report.result, "success");
    assert.equal(r.got[0]?.headers["content-type"], "application/json");
    assert.equal(r.got[0]?.headers["content-encoding"], "gzip");
    const body = JSON.parse(gunzipSync(r.got[0]?.body as Buffer).toString("utf8"));
    const names = body.resourceMetrics[0].scopeMetrics[0].metrics.map((m: { name: string }) => m.name);
    assert.ok(names.includes("cr_status"), names.join(","));
    assert.ok(report.bytes < report.rawBytes, "compressed");
  } finally {
    r.server.close();
  }
});

test("503 is retried with backoff, then accepted; 400 fails the export at once and the next export reads again", async () => {
  const r = await receiver((n) => (n <= 2 ? 503 : 200));
  try {
    const { exporter } = setup(r.url);
    const report = await exporter.exportNow();
    assert.equal(report.result, "success");
    assert.equal(r.got.length, 3);
  } finally {
    r.server.close();
  }
  const bad = await receiver((n) => (n === 1 ? 400 : 200));
  try {
    const { exporter, count } = setup(bad.url);
    const first = await exporter.exportNow();
    assert.equal(first.result, "failure");
    assert.match(first.error ?? "", /HTTP 400/);
    assert.equal(bad.got.length, 1, "not retried");
    const second = await exporter.exportNow();
    assert.equal(second.result, "success");
    assert.ok(second.points > 10, "the whole export, read again from the store");
    assert.deepEqual([await count("failure"), await count("success")], [1, 1]);
  } finally {
    bad.server.close();
  }
});

test("a receiver that is down: retries until the export timeout, then the export is dropped (nothing queued)", async () => {
  const r = await receiver(() => 200);
  const url = r.url;
  await new Promise((resolve) => r.server.close(resolve));
  const { exporter } = setup(url, { exportTimeoutMs: 1_500 });
  const started = performance.now();
  const report = await exporter.exportNow();
  const took = performance.now() - started;
  assert.equal(report.result, "failure");
  assert.match(report.error ?? "", /ECONNREFUSED/);
  assert.equal(report.requests, 1, "the first batch failed, the others were never read");
  assert.ok(took < 1_500 + 500, `took ${Math.round(took)} ms`);
});

test("only the leader pushes; stop() waits for the export in flight and flushes once", async () => {
  const r = await receiver(() => 200);
  try {
    let leader = false;
    const { exporter, count } = setup(r.url, {}, () => leader);
    assert.equal((await exporter.exportNow()).result, "skipped");
    assert.equal(r.got.length, 0);
    assert.equal(await count("skipped"), 1);
    leader = true;
    exporter.start();
    const inFlight = exporter.exportNow();
    assert.equal(exporter.exportNow(), inFlight, "one export at a time");
    const last = await exporter.stop();
    await inFlight;
    assert.equal(last?.result, "success");
    assert.equal(r.got.length, 2, "the export in flight and the flush");
  } finally {
    r.server.close();
  }
});

test("backoff doubles from 0.5 s up to 5 s with jitter; Retry-After in seconds or as a date", () => {
  assert.deepEqual(
    [1, 2, 3, 4, 5, 9].map((n) => backoffMs(n, () => 0.5)),
    [500, 1000, 2000, 4000, 5000, 5000],
  );
  assert.equal(
    backoffMs(1, () => 0),
    400,
  );
  assert.equal(retryAfterMs("3", 0), 3000);
  assert.equal(retryAfterMs(new Date(10_000).toUTCString(), 4_000), 6000);
  assert.equal(retryAfterMs(null, 0), undefined);
  assert.equal(retryAfterMs("soon", 0), undefined);
});
