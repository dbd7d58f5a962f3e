// Aggregate mode, the series cap, and the relist sweep, through a collector
// fed directly with objects.
import assert from "node:assert/strict";
import { test } from "node:test";
import { offlineCollector, perObjectText } from "../support/collector.ts";
import { parseExposition } from "../support/exposition-check.ts";
import { cond, widget } from "../support/objects.ts";

test("aggregate mode: counts per namespace, no per-object series", async () => {
  const c = offlineCollector({ mode: "aggregate" });
  c.collector.ingest(
    "ADDED",
    widget({ name: "a", namespace: "n1", status: { phase: "Running", conditions: [cond("Ready", "True")] } }),
  );
  c.collector.ingest(
    "ADDED",
    widget({
      name: "b",
      namespace: "n1",
      status: { phase: "Running", conditions: [cond("Ready", "False")] },
    }),
  );
  c.collector.ingest(
    "ADDED",
    widget({
      name: "c",
      namespace: "n2",
      generation: 2,
      status: { observedGeneration: 1, conditions: [cond("Ready", "True")] },
    }),
  );
  const { samples, families } = parseExposition(await perObjectText(c));
  assert.ok(![...families.keys()].some((f) => f === "cr_condition"), "no per-object families");
  const k = 'group="example.com",kind="Widget"';
  assert.equal(samples.get(`cr_aggregate_objects{${k},namespace="n1"}`), 2);
  assert.equal(samples.get(`cr_aggregate_objects{${k},namespace="n2"}`), 1);
  assert.equal(
    samples.get(`cr_aggregate_condition_objects{${k},namespace="n1",type="Ready",status="True"}`),
    1,
  );
  assert.equal(
    samples.get(`cr_aggregate_condition_objects{${k},namespace="n1",type="Ready",status="False"}`),
    1,
  );
  assert.equal(samples.get(`cr_aggregate_phase_objects{${k},namespace="n1",phase="Running"}`), 2);
  assert.equal(samples.get(`cr_aggregate_generation_lagging_objects{${k},namespace="n2"}`), 1);
  assert.equal(samples.get(`cr_aggregate_status_objects{${k},namespace="n2",result="InProgress"}`), 1);
});

test("series cap: objects past maxSeries are not exported, and the drop is counted", async () => {
  const c = offlineCollector({ maxSeries: 20 });
  for (let i = 0; i < 5; i++) {
    c.collector.ingest(
      "ADDED",
      widget({ name: `w${i}`, uid: `u${i}`, status: { conditions: [cond("Ready", "True")] } }),
    );
  }
  const { samples } = parseExposition(await perObjectText(c));
  const exported = [...samples.keys()].filter((key) => key.startsWith("cr_metadata_generation{")).length;
  assert.ok(exported >= 1 && exported < 5, `${exported} of 5 objects exported`);
  assert.ok(c.collector.store.series <= 20);
  const dropped = (await c.metrics.seriesDropped.get()).values.find((v) => v.value > 0);
  assert.ok(dropped && dropped.value > 0, "cr_exporter_series_dropped_total counted");
});

test("a new phase seen later joins the kind's one-hot set for every object", async () => {
  const c = offlineCollector();
  c.collector.ingest("ADDED", widget({ name: "a", uid: "ua", status: { phase: "Running" } }));
  c.collector.ingest("ADDED", widget({ name: "b", uid: "ub", status: { phase: "Degraded" } }));
  const { samples } = parseExposition(await perObjectText(c));
  const l = (name: string, phase: string) =>
    `cr_phase{group="example.com",kind="Widget",namespace="ns1",name="${name}",phase="${phase}"}`;
  assert.equal(samples.get(l("a", "Running")), 1);
  assert.equal(samples.get(l("a", "Degraded")), 0, "object a was rendered before Degraded was known");
  assert.equal(samples.get(l("b", "Degraded")), 1);
});

test("a deleted-and-recreated name (new uid) replaces the old object", async () => {
  const c = offlineCollector();
  c.collector.ingest("ADDED", widget({ name: "w", uid: "old", generation: 5 }));
  c.collector.ingest("ADDED", widget({ name: "w", uid: "new", generation: 1 }));
  const { samples } = parseExposition(await perObjectText(c));
  assert.equal(c.collector.store.size, 1);
  assert.equal(
    samples.get('cr_metadata_generation{group="example.com",kind="Widget",namespace="ns1",name="w"}'),
    1,
  );
});
