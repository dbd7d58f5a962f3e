// KindEffects: one change's observations become the per-kind histograms and
// counters of the families the resource selects, and a selection that drops
// a family removes this kind's series of it (and only this kind's).
import assert from "node:assert/strict";
import { test } from "node:test";
import { KindEffects, maxHistogramConditionTypes } from "../../src/collectors/kind-effects.ts";
import type { Observations } from "../../src/core/change/observations.ts";
import { perKindFamilies } from "../../src/core/series/catalog.ts";
import { createSelfMetrics } from "../../src/metrics/self-metrics.ts";

const bit = (key: string): number => 1 << (perKindFamilies.find((f) => f.key === key)?.index ?? -1);
const all = perKindFamilies.reduce((mask, f) => mask | (1 << f.index), 0);
const widget = { group: "example.com", kind: "Widget" };
const gadget = { group: "example.com", kind: "Gadget" };

const observations: Observations = {
  stateDurations: [
    { type: "Ready", status: "False", seconds: 40 },
    { type: "Ready", status: "True", seconds: 3 },
  ],
  reconcile: { generation: 2, seconds: 12 },
  timeToReadySeconds: 30,
};

/** `name labels count` of every histogram _count and counter series in the registry. */
async function counts(metrics: ReturnType<typeof createSelfMetrics>): Promise<string[]> {
  const out: string[] = [];
  for (const metric of Object.values(metrics.kinds)) {
    const { name, values } = await metric.get();
    for (const v of values) {
      if (v.metricName !== undefined && !v.metricName.endsWith("_count")) continue;
      const labels = Object.entries(v.labels)
        .map(([k, x]) => `${k}=${x}`)
        .join(",");
      out.push(`${v.metricName ?? name} ${labels} ${v.value}`);
    }
  }
  return out.sort();
}

test("every selected family gets its observation, labelled with the kind", async () => {
  const metrics = createSelfMetrics("cr_", "0.0.0-test");
  const effects = new KindEffects(metrics.kinds, widget, all);
  effects.observe(observations, { generation: 2, traceId: () => "trace-2" });
  effects.observe(
    { ...observations, stateDurations: [{ type: "Ready", status: "False", seconds: 5 }] },
    undefined,
  );
  effects.illegalPhaseMoves([{ from: "Running", to: "Pending" }], "ns1");
  effects.warningEvents("ns1", "BackOff", 3);
  effects.warningEvents("ns1", "BackOff", 2);
  effects.warningEvents("ns2", "other", 1);
  effects.warningEvents("ns2", "Failed", 0);
  assert.deepEqual(await counts(metrics), [
    "cr_condition_state_duration_seconds_count group=example.com,kind=Widget,type=Ready,status=False 2",
    "cr_condition_state_duration_seconds_count group=example.com,kind=Widget,type=Ready,status=True 1",
    "cr_phase_illegal_transitions_total group=example.com,kind=Widget,namespace=ns1,from=Running,to=Pending 1",
    "cr_reconcile_duration_seconds_count group=example.com,kind=Widget 2",
    "cr_time_to_ready_seconds_count group=example.com,kind=Widget 2",
    "cr_warning_events_total group=example.com,kind=Widget,namespace=ns1,reason=BackOff 5",
    "cr_warning_events_total group=example.com,kind=Widget,namespace=ns2,reason=other 1",
  ]);
  const text = await metrics.registry.metrics();
  assert.match(text, /cr_reconcile_duration_seconds_bucket\{le="15",[^}]*\} 2 # \{trace_id="trace-2"\} 12 /);
});

test("families not selected get nothing", async () => {
  const metrics = createSelfMetrics("cr_", "0.0.0-test");
  const effects = new KindEffects(metrics.kinds, widget, 0);
  effects.observe(observations, { generation: 2, traceId: () => "t" });
  effects.illegalPhaseMoves([{ from: "Running", to: "Pending" }], "ns1");
  effects.warningEvents("ns1", "BackOff", 1);
  assert.deepEqual(await counts(metrics), []);
});

test("each family is gated by its own bit", async () => {
  for (const family of perKindFamilies) {
    const metrics = createSelfMetrics("cr_", "0.0.0-test");
    const effects = new KindEffects(metrics.kinds, widget, bit(family.key));
    effects.observe(observations, undefined);
    effects.illegalPhaseMoves([{ from: "Running", to: "Pending" }], "ns1");
    effects.warningEvents("ns1", "BackOff", 1);
    const names = new Set((await counts(metrics)).map((line) => line.split(" ")[0]?.replace(/_count$/, "")));
    assert.deepEqual([...names], [`cr_${family.suffix}`], family.key);
  }
});

test("a selection that drops a family removes this kind's series of it, and keeps other kinds' and families'", async () => {
  const metrics = createSelfMetrics("cr_", "0.0.0-test");
  const widgets = new KindEffects(metrics.kinds, widget, all);
  const gadgets = new KindEffects(metrics.kinds, gadget, all);
  for (const effects of [widgets, gadgets]) {
    effects.observe(observations, undefined);
    effects.illegalPhaseMoves([{ from: "Running", to: "Pending" }], "ns1");
    effects.warningEvents("ns1", "BackOff", 1);
  }
  const before = await counts(metrics);
  assert.equal(before.length, 12);
  widgets.select(0);
  const after = await counts(metrics);
  assert.deepEqual(
    after,
    before.filter((line) => line.includes("kind=Gadget")),
    "every Widget series gone, every Gadget series kept",
  );
  // Selected again, a family starts afresh for this kind.
  widgets.select(all);
  widgets.observe({ ...noDurations, timeToReadySeconds: 1 }, undefined);
  assert.ok(
    (await counts(metrics)).includes("cr_time_to_ready_seconds_count group=example.com,kind=Widget 1"),
  );
});

const noDurations: Observations = { stateDurations: [], reconcile: undefined, timeToReadySeconds: undefined };

test("dropping one family keeps this kind's others", async () => {
  const metrics = createSelfMetrics("cr_", "0.0.0-test");
  const effects = new KindEffects(metrics.kinds, widget, all);
  effects.observe(observations, undefined);
  effects.illegalPhaseMoves([{ from: "Running", to: "Pending" }], "ns1");
  for (const family of perKindFamilies) {
    const kept = all & ~bit(family.key);
    const fresh = createSelfMetrics("cr_", "0.0.0-test");
    const e = new KindEffects(fresh.kinds, widget, all);
    e.observe(observations, undefined);
    e.illegalPhaseMoves([{ from: "Running", to: "Pending" }], "ns1");
    e.warningEvents("ns1", "BackOff", 1);
    e.select(kept);
    const names = new Set((await counts(fresh)).map((line) => line.split(" ")[0]?.replace(/_count$/, "")));
    assert.equal(names.has(`cr_${family.suffix}`), false, `${family.key} dropped`);
    assert.equal(names.size, perKindFamilies.length - 1, `${family.key}: the others kept`);
  }
});

test("dropping illegal phase moves removes every label set counted, one series per namespace and move", async () => {
  const metrics = createSelfMetrics("cr_", "0.0.0-test");
  const effects = new KindEffects(metrics.kinds, widget, all);
  effects.illegalPhaseMoves(
    [
      { from: "Running", to: "Pending" },
      { from: "Done", to: "Running" },
    ],
    "ns1",
  );
  effects.illegalPhaseMoves([{ from: "Running", to: "Pending" }], "ns2");
  const illegal = async () => (await counts(metrics)).filter((l) => l.startsWith("cr_phase_illegal"));
  assert.equal((await illegal()).length, 3);
  effects.select(all & ~bit("phaseIllegalTransitions"));
  assert.deepEqual(await illegal(), []);
});

test("dropping warning events removes every namespace and reason counted", async () => {
  const metrics = createSelfMetrics("cr_", "0.0.0-test");
  const effects = new KindEffects(metrics.kinds, widget, all);
  effects.warningEvents("ns1", "BackOff", 1);
  effects.warningEvents("ns2", "BackOff", 4);
  effects.warningEvents("ns2", "other", 2);
  const warnings = async () => (await counts(metrics)).filter((l) => l.startsWith("cr_warning_events"));
  assert.equal((await warnings()).length, 3);
  effects.select(all & ~bit("warningEvents"));
  assert.deepEqual(await warnings(), []);
  effects.warningEvents("ns1", "BackOff", 1);
  assert.deepEqual(await warnings(), [], "not counted while deselected");
});

test("a condition type holding the key separator still loses its series when the family is dropped", async () => {
  const metrics = createSelfMetrics("cr_", "0.0.0-test");
  const effects = new KindEffects(metrics.kinds, widget, all);
  effects.observe(
    { ...noDurations, stateDurations: [{ type: "A\u0000B", status: "True", seconds: 1 }] },
    undefined,
  );
  assert.equal((await counts(metrics)).length, 1);
  effects.select(0);
  assert.deepEqual(await counts(metrics), []);
});

test("a condition-duration family selected again gives the first condition types then seen their own histograms", async () => {
  const metrics = createSelfMetrics("cr_", "0.0.0-test");
  const effects = new KindEffects(metrics.kinds, widget, all);
  const durations = (types: string[]): Observations => ({
    ...noDurations,
    stateDurations: types.map((type) => ({ type, status: "True", seconds: 1 })),
  });
  effects.observe(
    durations(Array.from({ length: maxHistogramConditionTypes }, (_, i) => `Old${i}`)),
    undefined,
  );
  effects.select(all & ~bit("conditionStateDuration"));
  effects.select(all);
  effects.observe(durations(["New"]), undefined);
  assert.deepEqual(await counts(metrics), [
    "cr_condition_state_duration_seconds_count group=example.com,kind=Widget,type=New,status=True 1",
  ]);
});

test("past the first condition types, further types share the 'other' histogram", async () => {
  const metrics = createSelfMetrics("cr_", "0.0.0-test");
  const effects = new KindEffects(metrics.kinds, widget, all);
  const types = Array.from({ length: maxHistogramConditionTypes + 2 }, (_, i) => `T${i}`);
  effects.observe(
    { ...noDurations, stateDurations: types.map((type) => ({ type, status: "True", seconds: 1 })) },
    undefined,
  );
  // A type that has its own histogram keeps it.
  effects.observe(
    { ...noDurations, stateDurations: [{ type: "T0", status: "True", seconds: 1 }] },
    undefined,
  );
  const lines = await counts(metrics);
  assert.equal(lines.length, maxHistogramConditionTypes + 1);
  assert.ok(
    lines.includes(
      "cr_condition_state_duration_seconds_count group=example.com,kind=Widget,type=T0,status=True 2",
    ),
  );
  assert.ok(
    lines.includes(
      "cr_condition_state_duration_seconds_count group=example.com,kind=Widget,type=other,status=True 2",
    ),
    "the two types past the cap",
  );
});

test("the exemplar names the traced generation only when it is the one reconciled", async () => {
  const metrics = createSelfMetrics("cr_", "0.0.0-test");
  const effects = new KindEffects(metrics.kinds, widget, all);
  effects.observe(observations, { generation: 3, traceId: () => "trace-3" });
  const text = await metrics.registry.metrics();
  assert.match(text, /cr_reconcile_duration_seconds_count\{[^}]*\} 1/);
  assert.doesNotMatch(text, /trace_id=/, "generation 3 is traced, generation 2 was reconciled");
});
