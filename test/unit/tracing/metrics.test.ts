// Tracing's own health metrics (src/tracing/metrics.ts): the gauges read the
// sources they follow at each scrape (a replica not yet following reads as
// not leading, with no open roots), and the counters count.
import assert from "node:assert/strict";
import { test } from "node:test";
import { Registry } from "@prometheus-io/client";
import { registerTracingMetrics } from "../../../src/tracing/metrics.ts";

async function samples(registry: Registry): Promise<string[]> {
  return (await registry.metrics()).split("\n").filter((line) => line.startsWith("cr_exporter_tracing_"));
}

test("the leader and open-roots gauges read what they follow at each scrape; before that, 0", async () => {
  const registry = new Registry();
  const metrics = registerTracingMetrics(registry, "cr_");
  const gauges = async () =>
    (await samples(registry)).filter((l) => /^cr_exporter_tracing_(leader|open_episodes) /.test(l));
  assert.deepEqual(await gauges(), ["cr_exporter_tracing_leader 0", "cr_exporter_tracing_open_episodes 0"]);
  let leading = true;
  let open = 3;
  metrics.follow({ isLeader: () => leading, openEpisodes: () => open });
  assert.deepEqual(await gauges(), ["cr_exporter_tracing_leader 1", "cr_exporter_tracing_open_episodes 3"]);
  leading = false;
  open = 0;
  assert.deepEqual(await gauges(), ["cr_exporter_tracing_leader 0", "cr_exporter_tracing_open_episodes 0"]);
});

test("each counter counts its own spans", async () => {
  const registry = new Registry();
  const metrics = registerTracingMetrics(registry, "cr_");
  metrics.spansEmitted.inc(4);
  metrics.spansDeduplicated.inc(3);
  metrics.spansExportFailed.inc(2);
  metrics.traceContextMalformed.inc(1);
  const counters = (await samples(registry)).filter((l) => l.includes("_total "));
  assert.deepEqual(counters.sort(), [
    "cr_exporter_tracing_spans_deduplicated_total 3",
    "cr_exporter_tracing_spans_emitted_total 4",
    "cr_exporter_tracing_spans_export_failed_total 2",
    "cr_exporter_tracing_trace_context_malformed_total 1",
  ]);
});
