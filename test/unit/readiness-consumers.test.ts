// One readiness model, every consumer: a resource's readiness rules reach
// cr_status (metrics), the kstatus summary, the reconcile histogram and the
// span planner alike. A table over the readiness condition of the resource ×
// the condition that turns True: all four agree, through one collector fed
// real objects with a tracer attached (the production tracing factory,
// exporting into memory).
import assert from "node:assert/strict";
import { test } from "node:test";
import { summarizeStatus } from "../../src/core/judge/readiness.ts";
import { OUTCOME } from "../../src/tracing/attributes.ts";
import { offlineCollector, perObjectText } from "../support/collector.ts";
import { widget } from "../support/objects.ts";
import { memoryTracing, T } from "./tracing/support.ts";

const iso = (seconds: number) => new Date((T + seconds) * 1000).toISOString().replace(".000Z", "Z");
const condition = (type: string, status: string, since: number) => ({
  type,
  status,
  reason: status === "True" ? "Done" : "Waiting",
  message: "",
  lastTransitionTime: iso(since),
});

/** The one object of these histories, created at T, with `status`. */
const version = (resourceVersion: string, status: Record<string, unknown>) =>
  widget({ name: "w1", uid: "uid-1", namespace: "ns", resourceVersion, creationTimestamp: iso(0), status });

/** Ready, Available and Succeeded all away from True at T+1; then `flips` turns True at T+50. */
function history(flips: string) {
  const base = (resourceVersion: string, conditions: ReturnType<typeof condition>[]) =>
    version(resourceVersion, { observedGeneration: 1, conditions });
  const types = ["Ready", "Available", "Succeeded"];
  return [
    base(
      "1",
      types.map((type) => condition(type, type === "Succeeded" ? "Unknown" : "False", 1)),
    ),
    base(
      "2",
      types.map((type) =>
        type === flips
          ? condition(type, "True", 50)
          : condition(type, type === "Succeeded" ? "Unknown" : "False", 1),
      ),
    ),
  ];
}

// [readiness condition of the resource, the condition that turns True, cr_status after, generation root ended]
const cases: [string, string, string, boolean][] = [
  ["Ready", "Ready", "Current", true],
  ["Ready", "Available", "InProgress", false],
  ["Available", "Available", "Current", true],
  ["Available", "Ready", "InProgress", false],
  ["Succeeded", "Succeeded", "Current", true],
  ["Succeeded", "Ready", "InProgress", false],
];

for (const [readyCondition, flips, result, ended] of cases) {
  test(`readyCondition ${readyCondition}, ${flips} turns True: metrics, kstatus, histogram and spans agree`, async () => {
    const tracing = memoryTracing();
    const c = offlineCollector({ readyCondition, tracer: tracing.tracer.tracer, now: T + 5 });
    const [first, second] = history(flips);
    c.collector.ingest("ADDED", first);
    c.clock.now = T + 60;
    c.collector.ingest("MODIFIED", second);

    const text = await perObjectText(c);
    const status = /cr_status\{[^}]*result="(\w+)"\} 1/.exec(text)?.[1];
    assert.equal(status, result, "cr_status (metrics)");

    const entry = [...c.collector.store.values()][0];
    assert.ok(entry);
    const rules = c.collector.settings.kind.readiness;
    assert.equal(rules.readyCondition, readyCondition);
    assert.equal(summarizeStatus(entry.state, rules, T + 60).result, result, "kstatus");

    const exposition = await c.metrics.registry.metrics();
    const count = /cr_reconcile_duration_seconds_count\{[^}]*\} (\d+)/.exec(exposition)?.[1];
    const sum = /cr_reconcile_duration_seconds_sum\{[^}]*\} (\S+)/.exec(exposition)?.[1];
    assert.equal(count ?? "0", ended ? "1" : "0", "reconcile histogram");
    if (ended) assert.equal(sum, "50", "from creation to the readiness condition's transition");

    const roots = (await tracing.take()).filter((s) => s.name === "Widget generation");
    assert.equal(roots.length, ended ? 1 : 0, "generation root span");
    if (ended) {
      assert.equal(roots[0]?.attributes[OUTCOME], "ready");
      assert.equal(roots[0]?.endMs, (T + 50) * 1000, "the root ends at the readiness condition's transition");
    }
  });
}

test("a kind without a readiness condition: its phase decides for metrics and spans alike", async () => {
  const tracing = memoryTracing();
  const c = offlineCollector({
    tracer: tracing.tracer.tracer,
    now: T + 5,
    readiness: { readyCondition: undefined },
  });
  const at = (resourceVersion: string, phase: string) => version(resourceVersion, { phase });
  c.collector.ingest("ADDED", at("1", "Pending"));
  c.clock.now = T + 30;
  c.collector.ingest("MODIFIED", at("2", "Failed"));
  assert.match(await perObjectText(c), /cr_status\{[^}]*result="Failed"\} 1/);
  const [root] = (await tracing.take()).filter((s) => s.name === "Widget generation");
  assert.equal(root?.attributes[OUTCOME], "failed", "the Failed phase ends the generation as failed");
  assert.equal(root?.attributes["error.type"], "Failed");
});
