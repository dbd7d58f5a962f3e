// /metrics writing (src/metrics): chunk boundaries and the documented 64 KiB
// chunk, headers only for families with series, the exporter registry's
// histograms as docs/metrics.md sizes them, and scrapes of both formats at once.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { Gauge, Registry } from "@prometheus-io/client";
import { ChunkWriter } from "../../src/metrics/chunks.ts";
import { createSelfMetrics } from "../../src/metrics/self-metrics.ts";
import {
  openMetricsType,
  prometheusTextType,
  renderRegistry,
  withoutEmptyFamilies,
} from "../../src/metrics/writer.ts";

const docs = join(import.meta.dirname, "../../docs");

test("a chunk is complete as soon as it holds chunkBytes; an empty writer has none, and ends with none", () => {
  const out = new ChunkWriter(10);
  assert.equal(out.ready, false, "nothing written, nothing ready");
  assert.deepEqual(out.end(), [], "an empty writer ends without an empty chunk");
  out.write("123456789");
  assert.equal(out.ready, false, "9 of 10 bytes");
  out.write("0");
  assert.equal(out.ready, true, "10 of 10 bytes");
  out.write("abc");
  assert.deepEqual(out.take(), ["1234567890"]);
  assert.equal(out.ready, false, "taken");
  assert.deepEqual(out.take(), []);
  assert.deepEqual(out.end(), ["abc"]);
  assert.deepEqual(out.end(), [], "ended twice: nothing more");
});

test("an empty write does not bring out a family's header", () => {
  const out = new ChunkWriter(1000);
  out.setHeader("# HELP a\n");
  out.write("");
  out.setHeader("# HELP b\n");
  out.write("b 1\n");
  assert.deepEqual(out.end(), ["# HELP b\nb 1\n"]);
});

test("chunks are 64 KiB by default, as docs/sizing.md says a scrape hands them back", () => {
  const kib = Number(/each (\d+) KiB chunk/.exec(readFileSync(join(docs, "sizing.md"), "utf8"))?.[1]);
  assert.equal(kib, 64);
  const out = new ChunkWriter();
  const line = `${"x".repeat(99)}\n`;
  for (let i = 0; i < 2000; i++) out.write(line);
  const chunks = out.end();
  for (const chunk of chunks.slice(0, -1)) assert.equal(chunk.length, Math.ceil((kib * 1024) / 100) * 100);
  assert.equal(chunks.join("").length, 200_000);
});

test("per-kind histograms have the series per label set docs/metrics.md gives", async () => {
  const [, perLabelSet, buckets] =
    /A histogram has (\d+) series per label\s+set \((\d+) buckets, `_sum`, `_count`\)/.exec(
      readFileSync(join(docs, "metrics.md"), "utf8"),
    ) ?? [];
  assert.equal(Number(perLabelSet), Number(buckets) + 2);
  const metrics = createSelfMetrics("cr_", "t");
  const { kinds } = metrics;
  kinds.conditionStateDuration.observe({ group: "g", kind: "K", type: "Ready", status: "True" }, 30);
  kinds.reconcileDuration.observe({ labels: { group: "g", kind: "K" }, value: 30, exemplarLabels: {} });
  kinds.timeToReady.observe({ group: "g", kind: "K" }, 30);
  const text = await renderRegistry(metrics.registry, false);
  for (const name of [
    "cr_condition_state_duration_seconds",
    "cr_reconcile_duration_seconds",
    "cr_time_to_ready_seconds",
  ]) {
    const series = text.split("\n").filter((l) => l.startsWith(`${name}_`));
    assert.equal(series.length, Number(perLabelSet), `${name}: ${series.join("; ")}`);
    assert.equal(series.filter((l) => l.startsWith(`${name}_bucket`)).length, Number(buckets), name);
  }
});

test("a list of a minute and a day-long condition state land in finite buckets", async () => {
  const metrics = createSelfMetrics("cr_", "t");
  metrics.listDuration.observe({ group: "g", version: "v1", kind: "K" }, 45);
  metrics.kinds.conditionStateDuration.observe(
    { group: "g", kind: "K", type: "Ready", status: "True" },
    80_000,
  );
  const text = await renderRegistry(metrics.registry, false);
  const finiteWith = (name: string) =>
    text
      .split("\n")
      .filter((l) => l.startsWith(`${name}_bucket`) && !l.includes('le="+Inf"') && l.endsWith(" 1"));
  assert.ok(finiteWith("cr_exporter_list_duration_seconds").length > 0, "a 45 s list only in +Inf");
  assert.ok(finiteWith("cr_condition_state_duration_seconds").length > 0, "a 22 h state only in +Inf");
});

test("cr_exporter_build_info names the exporter's and Node's versions", async () => {
  const text = await renderRegistry(createSelfMetrics("cr_", "1.2.3").registry, false);
  assert.match(
    text,
    new RegExp(`^cr_exporter_build_info\\{version="1\\.2\\.3",node_version="${process.version}"\\} 1$`, "m"),
  );
});

test("OpenMetrics and Prometheus renders of the registry at once each get their own format", async () => {
  const metrics = createSelfMetrics("cr_", "t");
  metrics.relists.inc({ group: "g", version: "v1", kind: "K", reason: "initial" });
  const formats = [true, false, true, false];
  const texts = await Promise.all(
    formats.map((openMetrics) => renderRegistry(metrics.registry, openMetrics)),
  );
  formats.forEach((openMetrics, i) => {
    const text = texts[i] as string;
    if (openMetrics) {
      assert.match(text, /^# TYPE cr_exporter_relists counter$/m, `render ${i}`);
      assert.match(text, /# EOF\n$/, `render ${i}`);
    } else {
      assert.match(text, /^# TYPE cr_exporter_relists_total counter$/m, `render ${i}`);
      assert.doesNotMatch(text, /# EOF/, `render ${i}`);
    }
  });
});

test("a render that fails does not hold up the renders after it", async () => {
  const failing = new Registry();
  new Gauge({
    name: "broken",
    help: "Fails to collect.",
    registers: [failing],
    collect() {
      throw new Error("collect failed");
    },
  });
  await assert.rejects(renderRegistry(failing, false), /collect failed/);
  const metrics = createSelfMetrics("cr_", "t");
  assert.match(await renderRegistry(metrics.registry, false), /^cr_exporter_build_info\{/m);
});

test("a scrape's Content-Type names the format the client library renders: text 0.0.4 or OpenMetrics 1.0.0, UTF-8", () => {
  assert.equal(prometheusTextType, "text/plain; version=0.0.4; charset=utf-8");
  assert.equal(prometheusTextType, Registry.PROMETHEUS_CONTENT_TYPE);
  assert.equal(openMetricsType, "application/openmetrics-text; version=1.0.0; charset=utf-8");
  assert.equal(openMetricsType, Registry.OPENMETRICS_CONTENT_TYPE);
});

test("a family written with TYPE but no HELP is a family of its own: kept with its samples, dropped without", () => {
  assert.equal(withoutEmptyFamilies("# TYPE x gauge\nx 1\n"), "# TYPE x gauge\nx 1\n");
  assert.equal(
    withoutEmptyFamilies("# TYPE a gauge\n# TYPE b gauge\nb 1\n# TYPE c gauge\n"),
    "# TYPE b gauge\nb 1\n",
  );
});

test("a comment before the first family goes with it: written when it has samples, dropped when it has none", () => {
  assert.equal(withoutEmptyFamilies("# note\n# TYPE x gauge\nx 1\n"), "# note\n# TYPE x gauge\nx 1\n");
  assert.equal(withoutEmptyFamilies("# note\n# HELP y Y.\n# TYPE y gauge\n"), "");
});
