import assert from "node:assert/strict";
import { test } from "node:test";
import { createSelfMetrics } from "../../src/metrics/self-metrics.ts";
import { writeExposition } from "../../src/metrics/writer.ts";

async function render(
  openMetrics: boolean,
  registry = createSelfMetrics("cr_", "t").registry,
): Promise<string> {
  let text = "";
  for await (const chunk of writeExposition({ sources: [], registry, prefix: "cr_", openMetrics }))
    text += chunk.toString("utf8");
  return text;
}

test("an OpenMetrics scrape does not change how later Prometheus-format scrapes name counters", async () => {
  const metrics = createSelfMetrics("cr_", "t");
  metrics.relists.inc({ group: "g", version: "v1", kind: "K", reason: "initial" });
  const before = await render(false, metrics.registry);
  const om = await render(true, metrics.registry);
  const after = await render(false, metrics.registry);
  assert.match(before, /^cr_exporter_relists_total\{/m);
  assert.match(om, /^# TYPE cr_exporter_relists counter$/m);
  assert.match(om, /^cr_exporter_relists_total\{/m);
  assert.match(om, /# EOF\n$/);
  assert.match(after, /^# TYPE cr_exporter_relists_total counter$/m);
  assert.match(after, /^cr_exporter_relists_total\{/m);
});
