// Aggregate mode, the series cap, bounded phases, failedAfter and family
// selection, through a collector fed directly with objects (removal and the
// relist sweep: collector-removal.test.ts).
import assert from "node:assert/strict";
import { test } from "node:test";
import { selectFamilies } from "../../src/core/series/family-selection.ts";
import { offlineCollector, perObjectText } from "../support/collector.ts";
import { parseExposition } from "../support/exposition-check.ts";
import { cond, t, widget } from "../support/objects.ts";

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

test("phases are bounded per kind: learned up to a cap, never inflating other objects", async () => {
  const c = offlineCollector();
  for (let i = 0; i < 25; i++)
    c.collector.ingest("ADDED", widget({ name: `w${i}`, uid: `u${i}`, status: { phase: `P${i}` } }));
  const { samples } = parseExposition(await perObjectText(c));
  const phases = [...samples.keys()].filter((k) => k.startsWith("cr_phase{"));
  assert.equal(phases.length, 25, "one series per object, whatever the number of phases");
  assert.equal(
    samples.get('cr_phase{group="example.com",kind="Widget",namespace="ns1",name="w0",phase="P0"}'),
    1,
  );
  assert.equal(
    samples.get('cr_phase{group="example.com",kind="Widget",namespace="ns1",name="w24",phase="other"}'),
    1,
    "past 20 learned phases: other",
  );
});

test("aggregate counts follow changes and deletions incrementally", async () => {
  const c = offlineCollector({ mode: "aggregate" });
  const k = 'group="example.com",kind="Widget",namespace="n1"';
  c.collector.ingest(
    "ADDED",
    widget({ name: "a", namespace: "n1", status: { phase: "Running", conditions: [cond("Ready", "True")] } }),
  );
  c.collector.ingest(
    "ADDED",
    widget({ name: "b", namespace: "n1", status: { phase: "Running", conditions: [cond("Ready", "True")] } }),
  );
  c.collector.ingest(
    "MODIFIED",
    widget({
      name: "a",
      namespace: "n1",
      resourceVersion: "2",
      status: { phase: "Failed", conditions: [cond("Ready", "False")] },
    }),
  );
  let { samples } = parseExposition(await perObjectText(c));
  assert.equal(samples.get(`cr_aggregate_condition_objects{${k},type="Ready",status="True"}`), 1);
  assert.equal(samples.get(`cr_aggregate_condition_objects{${k},type="Ready",status="False"}`), 1);
  assert.equal(samples.get(`cr_aggregate_phase_objects{${k},phase="Failed"}`), 1);
  c.collector.ingest("DELETED", widget({ name: "a", namespace: "n1" }));
  ({ samples } = parseExposition(await perObjectText(c)));
  assert.equal(samples.get(`cr_aggregate_objects{${k}}`), 1);
  assert.equal(
    samples.has(`cr_aggregate_condition_objects{${k},type="Ready",status="False"}`),
    false,
    "a count at 0 goes",
  );
  assert.equal(samples.has(`cr_aggregate_phase_objects{${k},phase="Failed"}`), false);
});

test("Ready=False turns Failed after failedAfter by a scheduled re-render, not at scrape time", async () => {
  const c = offlineCollector({ failedAfterSeconds: 300, now: t("2026-01-01T00:31:00Z") });
  c.collector.ingest(
    "ADDED",
    widget({ status: { conditions: [cond("Ready", "False", "2026-01-01T00:30:00Z")] } }),
  );
  const key = (result: string) =>
    `cr_status{group="example.com",kind="Widget",namespace="ns1",name="w1",result="${result}"}`;
  assert.equal(parseExposition(await perObjectText(c)).samples.get(key("InProgress")), 1);
  // Time passes: a scrape alone changes nothing (nothing is rendered at scrape time)…
  c.clock.now = t("2026-01-01T00:40:00Z");
  assert.equal(parseExposition(await perObjectText(c)).samples.get(key("InProgress")), 1);
  // …the scheduled re-render at changesAt does.
  c.collector.refreshDue();
  const { samples } = parseExposition(await perObjectText(c));
  assert.equal(samples.get(key("Failed")), 1);
  assert.equal(samples.has(key("InProgress")), false);
});

test("an allow list removes other families' series and their HELP/TYPE", async () => {
  const c = offlineCollector({ metrics: { allow: ["cr_condition", "cr_metadata_generation"] } });
  c.collector.ingest("ADDED", widget({ status: { phase: "Running", conditions: [cond("Ready", "True")] } }));
  const text = await perObjectText(c);
  const families = [...text.matchAll(/^# (?:HELP|TYPE) (\S+)/gm)].map((m) => m[1]);
  assert.deepEqual([...new Set(families)], ["cr_condition", "cr_metadata_generation"]);
});

test("a new selection re-renders what is held, keeping counters (no relist)", async () => {
  const c = offlineCollector();
  c.collector.ingest("ADDED", widget({ status: { conditions: [cond("Ready", "False")] } }));
  c.collector.ingest(
    "MODIFIED",
    widget({ resourceVersion: "2", status: { conditions: [cond("Ready", "True")] } }),
  );
  c.collector.reselect(
    selectFamilies("cr_", [
      {
        allow: ["cr_status_updates_total", "cr_condition_transitions_total"],
        deny: undefined,
        optIn: undefined,
      },
    ]),
    "cr_",
  );
  const { samples, families } = parseExposition(await perObjectText(c));
  assert.deepEqual([...families.keys()], ["cr_status_updates_total", "cr_condition_transitions_total"]);
  const l = 'group="example.com",kind="Widget",namespace="ns1",name="w1"';
  assert.equal(samples.get(`cr_status_updates_total{${l}}`), 1, "the counter kept its value");
  assert.equal(samples.get(`cr_condition_transitions_total{${l},type="Ready",status="True"}`), 1);
  c.collector.reselect(selectFamilies("x_", []), "x_");
  assert.match(await perObjectText(c), /^x_condition\{/m, "a new prefix renames every series");
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
