// docs/metrics.md lists exactly the families the exporter can emit, with the
// right types. (test/e2e/collectors.test.ts checks the other direction on a
// live scrape: every family emitted is documented.)
import assert from "node:assert/strict";
import { test } from "node:test";
import { Registry } from "@prometheus-io/client";
import { aggregateFamilies, objectFamilies } from "../../src/core/families.ts";
import { createSelfMetrics } from "../../src/metrics/self-metrics.ts";
import { createStatusWriteMetrics } from "../../src/statuswrites/index.ts";
import { registerTracingMetrics } from "../../src/tracing/metrics.ts";
import { documentedFamilies } from "../support/metrics-doc.ts";

async function emittable(): Promise<Map<string, string>> {
  const families = new Map<string, string>();
  for (const f of [...objectFamilies, ...aggregateFamilies]) families.set(`cr_${f.suffix}`, f.type);
  const self = createSelfMetrics("cr_", "test");
  registerTracingMetrics(self.registry, "cr_");
  const statusWrites = new Registry();
  createStatusWriteMetrics(statusWrites, "cr_");
  for (const registry of [self.registry, statusWrites]) {
    for (const metric of await registry.getMetricsAsJSON()) {
      if (metric.name.startsWith("cr_")) families.set(metric.name, String(metric.type));
    }
  }
  return families;
}

test("docs/metrics.md lists every family the code defines, with its type, and nothing else", async () => {
  const documented = documentedFamilies();
  const code = await emittable();
  const missingFromDocs = [...code.keys()].filter((name) => !documented.has(name));
  const notInCode = [...documented.keys()].filter((name) => !code.has(name));
  assert.deepEqual(missingFromDocs, [], "families emitted but not documented");
  assert.deepEqual(notInCode, [], "families documented but not emitted");
  for (const [name, type] of code) assert.equal(documented.get(name), type, `type of ${name}`);
});
