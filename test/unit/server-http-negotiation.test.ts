// /metrics details a scraper can check byte for byte (src/server/http.ts): the
// compression level in the gzip header, an identity preference honoured, the
// scrape duration observed in seconds, and listen()'s error for an address it
// cannot parse.
import assert from "node:assert/strict";
import { request } from "node:http";
import { test } from "node:test";
import { gunzipSync } from "node:zlib";
import type { Readiness } from "../../src/collectors/manager.ts";
import { createLogger } from "../../src/log.ts";
import { createSelfMetrics } from "../../src/metrics/self-metrics.ts";
import { createApp, listen } from "../../src/server/http.ts";

const ready: Readiness = { ready: true, resources: [], missing: [], crds: undefined, overLimit: undefined };

async function serve(t: { after(fn: () => Promise<void>): void }) {
  const metrics = createSelfMetrics("cr", "test");
  const app = createApp({
    sources: () => [],
    metrics,
    prefix: () => "cr",
    readiness: () => ready,
    logger: createLogger({ write: () => {} }),
  });
  const listening = await listen(app, "127.0.0.1:0");
  t.after(() => listening.close());
  return { url: listening.url, metrics };
}

function get(url: string, headers: Record<string, string> = {}) {
  return new Promise<{ headers: Record<string, unknown>; body: Buffer }>((resolve, reject) => {
    request(url, { headers }, (response) => {
      const chunks: Buffer[] = [];
      response.on("data", (c: Buffer) => chunks.push(c));
      response.on("end", () => resolve({ headers: response.headers, body: Buffer.concat(chunks) }));
    })
      .once("error", reject)
      .end();
  });
}

test("/metrics is gzipped at level 1: the gzip header says the fastest compression", async (t) => {
  const { url } = await serve(t);
  const answer = await get(`${url}/metrics`, { "Accept-Encoding": "gzip" });
  assert.equal(answer.headers["content-encoding"], "gzip");
  // RFC 1952: byte 8 (XFL) is 4 when the compressor used its fastest algorithm.
  assert.equal(answer.body[8], 4);
  assert.match(gunzipSync(answer.body).toString(), /^# TYPE /m);
});

test("/metrics: a client preferring identity to gzip gets the text uncompressed", async (t) => {
  const { url } = await serve(t);
  const answer = await get(`${url}/metrics`, { "Accept-Encoding": "identity, gzip;q=0.5" });
  assert.equal(answer.headers["content-encoding"], undefined);
  assert.match(answer.body.toString(), /^# TYPE /m);
});

test("a scrape's duration is observed in seconds", async (t) => {
  const { url, metrics } = await serve(t);
  const started = performance.now();
  await get(`${url}/metrics`);
  const elapsed = (performance.now() - started) / 1000;
  const duration = await metrics.scrapeDuration.get();
  const sum = duration.values.find((v) => v.metricName?.endsWith("_sum"))?.value ?? Number.NaN;
  assert.ok(sum > 0 && sum <= elapsed, `${sum} s observed for a request that took ${elapsed} s`);
});

test("listen: an address that is not host:port is an error naming listen", () => {
  const app = createApp({
    sources: () => [],
    metrics: createSelfMetrics("cr", "test"),
    prefix: () => "cr",
    readiness: () => ready,
    logger: createLogger({ write: () => {} }),
  });
  assert.throws(() => listen(app, "nonsense"), /^Error: listen: expected host:port/);
});
