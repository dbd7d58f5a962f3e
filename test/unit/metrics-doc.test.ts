// docs/metrics.md against the catalog and the registries: the same families,
// types, label sets, default-set membership and cost formulas, and the
// default-set table true for the benchmark widget. (test/e2e/collectors.test.ts
// checks the other direction on a live scrape: every family emitted is documented.)
import assert from "node:assert/strict";
import { test } from "node:test";
import { Registry } from "@prometheus-io/client";
import { widgetStatus } from "../../bench/lib/fleet.ts";
import { newKindLearning } from "../../src/core/change/label-bounds.ts";
import { applyChange, shapeOf } from "../../src/core/change/object-update.ts";
import { defaultReadinessRules } from "../../src/core/judge/readiness.ts";
import { defaultProjectionSettings } from "../../src/core/project/project.ts";
import { aggregateFamilies, objectFamilies, perKindFamilies } from "../../src/core/series/catalog.ts";
import { selectFamilies } from "../../src/core/series/family-selection.ts";
import { createSelfMetrics } from "../../src/metrics/self-metrics.ts";
import { registerOtlpMetricsMetrics } from "../../src/otlp-metrics/metrics.ts";
import { createStatusWriteMetrics } from "../../src/statuswrites/index.ts";
import { registerProxyProcessMetrics } from "../../src/statuswrites/process/proxy-counters.ts";
import { registerTracingMetrics } from "../../src/tracing/metrics.ts";
import { documentedDefaultSet, documentedFamilies } from "../support/metrics-doc.ts";

interface Expected {
  type: string;
  labels: string[];
  defaultSet?: string;
  cost?: string;
}

async function emittable(): Promise<Map<string, Expected>> {
  const families = new Map<string, Expected>();
  for (const f of objectFamilies) {
    families.set(`cr_${f.suffix}`, {
      type: f.type,
      labels: ["object labels", ...f.labels],
      defaultSet: f.defaultSet ? "yes" : "opt-in",
      cost: f.cost.formula,
    });
  }
  for (const f of [...aggregateFamilies, ...perKindFamilies]) {
    families.set(`cr_${f.suffix}`, {
      type: f.type,
      labels: [...f.labels],
      defaultSet: f.defaultSet ? "yes" : "opt-in",
      cost: f.cost,
    });
  }
  const self = createSelfMetrics("cr_", "test");
  registerTracingMetrics(self.registry, "cr_");
  registerOtlpMetricsMetrics(self.registry, "cr_");
  const statusWrites = new Registry();
  createStatusWriteMetrics(statusWrites, "cr_");
  // Exported when the API proxy runs in its own process (under the supervisor).
  registerProxyProcessMetrics(
    statusWrites,
    "cr_",
    { refresh: async () => {}, up: false, snapshot: undefined },
    0,
  );
  for (const registry of [self.registry, statusWrites]) {
    for (const metric of registry.getMetricsAsArray() as unknown as {
      name: string;
      type: string;
      labelNames: string[];
    }[]) {
      if (!families.has(metric.name))
        families.set(metric.name, { type: metric.type, labels: [...metric.labelNames] });
    }
  }
  return families;
}

test("docs/metrics.md lists every family with its type, labels, default and cost, and nothing else", async () => {
  const documented = documentedFamilies();
  const code = await emittable();
  assert.deepEqual(
    [...code.keys()].filter((name) => !documented.has(name)),
    [],
    "families emitted but not documented",
  );
  assert.deepEqual(
    [...documented.keys()].filter((name) => !code.has(name)),
    [],
    "families documented but not emitted",
  );
  for (const [name, expected] of code) {
    const doc = documented.get(name);
    assert.equal(doc?.type, expected.type, `type of ${name}`);
    assert.deepEqual(doc?.labels, expected.labels, `labels of ${name}`);
    if (expected.defaultSet !== undefined)
      assert.equal(doc?.defaultSet, expected.defaultSet, `default of ${name}`);
    if (expected.cost !== undefined) assert.equal(doc?.cost, expected.cost, `cost of ${name}`);
  }
});

test("the default-set table is true for the benchmark widget", () => {
  const raw = {
    metadata: {
      name: "w",
      namespace: "n",
      uid: "u",
      resourceVersion: "1",
      generation: 1,
      creationTimestamp: "2026-01-01T00:00:00Z",
    },
    status: widgetStatus(1, 1, 0, Date.parse("2026-01-01T00:10:00Z")),
  };
  const kind = {
    projection: defaultProjectionSettings,
    readiness: defaultReadinessRules,
    generationSource: "status" as const,
    phaseTransitions: undefined,
    render: undefined,
  };
  const learning = newKindLearning({
    phaseEnum: ["Pending", "Provisioning", "Running", "Failed", "Terminating"],
    maxReasons: 20,
  });
  const shape = shapeOf(
    applyChange(undefined, raw, kind, learning, Date.parse("2026-01-01T00:11:00Z") / 1000).entry,
  );
  const selected = selectFamilies("cr_", []).objects;
  const expected = new Map(
    objectFamilies
      .filter((f) => selected & (1 << f.slot) && f.cost.series(shape) > 0)
      .map((f) => [`cr_${f.suffix}`, f.cost.series(shape)]),
  );
  const { rows, total } = documentedDefaultSet();
  assert.deepEqual(rows, expected);
  assert.equal(
    total,
    [...expected.values()].reduce((a, b) => a + b, 0),
  );
  assert.ok(
    (total ?? 99) <= 25,
    "the default set stays within its budget of 25 series for the benchmark widget",
  );
});
