// Aggregate counts on their own: what one object adds to each family, that
// taking it out again leaves nothing (no series at 0), and how a family is
// printed. The event-sequence property is in aggregate-incremental.test.ts.
import assert from "node:assert/strict";
import { test } from "node:test";
import { newKindLearning } from "../../src/core/change/label-bounds.ts";
import { applyChange } from "../../src/core/change/object-update.ts";
import type { ObjectEntry } from "../../src/core/entry.ts";
import { defaultProjectionSettings } from "../../src/core/project/project.ts";
import { AggregateCounts, aggregateKeys } from "../../src/core/series/aggregate.ts";
import { aggregateFamilies } from "../../src/core/series/catalog.ts";
import { kindSettings } from "../support/kind-settings.ts";
import { cond, t, type WidgetInit, widget } from "../support/objects.ts";
import { argoStateSources } from "../support/state-fields.ts";

// Argo CD's health and sync as state fields, and spec.suspend as the switch: every family has something to count.
const kind = kindSettings({
  render: undefined,
  projection: { ...defaultProjectionSettings, states: argoStateSources, suspendPath: ["spec", "suspend"] },
});

function entry(init: WidgetInit): ObjectEntry {
  const learning = newKindLearning({ phaseEnum: [], maxReasons: 20 });
  return applyChange(undefined, widget(init), kind, learning, t("2026-01-01T00:05:00Z")).entry;
}

const print = (counts: AggregateCounts): Record<string, string> =>
  Object.fromEntries(aggregateKeys.map((key) => [key, counts.render(key, key, "example.com", "Widget")]));

const labels = (namespace: string, extra = "") =>
  `{group="example.com",kind="Widget",namespace="${namespace}"${extra}}`;

test("the aggregate families, in catalog order", () => {
  assert.deepEqual(
    aggregateKeys,
    aggregateFamilies.map((f) => f.key),
  );
  assert.deepEqual(aggregateKeys, [
    "aggregateObjects",
    "aggregateConditions",
    "aggregatePhases",
    "aggregateStatuses",
    "aggregateLagging",
    "aggregateStates",
    "aggregateSuspended",
  ]);
});

test("one object counts once per family it belongs in, labelled by namespace and its values", () => {
  const counts = new AggregateCounts();
  const lagging = entry({
    namespace: "ns1",
    generation: 3,
    spec: { suspend: true },
    status: {
      observedGeneration: 2,
      phase: "Running",
      conditions: [cond("Ready", "True"), cond("Synced", "False")],
      health: { status: "Degraded" },
      sync: { status: "Synced" },
    },
  });
  assert.equal(lagging.lag, 1);
  counts.count(lagging, 1);
  assert.deepEqual(print(counts), {
    aggregateObjects: `aggregateObjects${labels("ns1")} 1\n`,
    aggregateConditions:
      `aggregateConditions${labels("ns1", ',type="Ready",status="True"')} 1\n` +
      `aggregateConditions${labels("ns1", ',type="Synced",status="False"')} 1\n`,
    aggregatePhases: `aggregatePhases${labels("ns1", ',phase="Running"')} 1\n`,
    aggregateStatuses: `aggregateStatuses${labels("ns1", `,result="${lagging.summary}"`)} 1\n`,
    aggregateLagging: `aggregateLagging${labels("ns1")} 1\n`,
    aggregateStates:
      `aggregateStates${labels("ns1", ',field="health",value="Degraded"')} 1\n` +
      `aggregateStates${labels("ns1", ',field="sync",value="Synced"')} 1\n`,
    aggregateSuspended: `aggregateSuspended${labels("ns1")} 1\n`,
  });
});

test("state values and suspended objects add up per namespace and leave with their objects", () => {
  const counts = new AggregateCounts();
  const app = (name: string, namespace: string, health: string, suspend: boolean) =>
    entry({ name, namespace, spec: { suspend }, status: { health: { status: health } } });
  const a = app("a", "ns1", "Healthy", false);
  const b = app("b", "ns1", "Healthy", true);
  const c = app("c", "ns2", "Degraded", true);
  for (const e of [a, b, c]) counts.count(e, 1);
  assert.equal(
    counts.render("aggregateStates", "s", "g", "K"),
    's{group="g",kind="K",namespace="ns1",field="health",value="Healthy"} 2\n' +
      's{group="g",kind="K",namespace="ns2",field="health",value="Degraded"} 1\n',
  );
  assert.equal(
    counts.render("aggregateSuspended", "p", "g", "K"),
    'p{group="g",kind="K",namespace="ns1"} 1\np{group="g",kind="K",namespace="ns2"} 1\n',
  );
  counts.count(b, -1);
  assert.equal(
    counts.render("aggregateSuspended", "p", "g", "K"),
    'p{group="g",kind="K",namespace="ns2"} 1\n',
  );
  assert.match(counts.render("aggregateStates", "s", "g", "K"), /value="Healthy"\} 1\n/);
  counts.count(a, -1);
  counts.count(c, -1);
  for (const [key, text] of Object.entries(print(counts))) assert.equal(text, "", key);
});

test("no phase, no lag or a lag of 0: not counted as phase or lagging", () => {
  const counts = new AggregateCounts();
  const caughtUp = entry({ generation: 2, status: { observedGeneration: 2 } });
  assert.equal(caughtUp.lag, 0);
  assert.equal(caughtUp.labels.phase, undefined);
  counts.count(caughtUp, 1);
  const unknownLag = entry({ name: "w2", status: {} });
  assert.equal(unknownLag.lag, undefined);
  counts.count(unknownLag, 1);
  const text = print(counts);
  assert.equal(text.aggregateObjects, `aggregateObjects${labels("ns1")} 2\n`);
  assert.equal(text.aggregatePhases, "");
  assert.equal(text.aggregateLagging, "");
  assert.equal(text.aggregateConditions, "");
});

test("objects of one namespace add up; taking them out leaves no series at 0", () => {
  const counts = new AggregateCounts();
  const a = entry({ name: "a", status: { phase: "Running", conditions: [cond("Ready", "True")] } });
  const b = entry({ name: "b", status: { phase: "Running", conditions: [cond("Ready", "True")] } });
  const c = entry({ name: "c", namespace: "ns2", status: { phase: "Failed" } });
  for (const e of [a, b, c]) counts.count(e, 1);
  assert.equal(
    counts.render("aggregatePhases", "p", "g", "K"),
    'p{group="g",kind="K",namespace="ns1",phase="Running"} 2\np{group="g",kind="K",namespace="ns2",phase="Failed"} 1\n',
  );
  counts.count(a, -1);
  assert.equal(
    counts.render("aggregateObjects", "o", "g", "K"),
    'o{group="g",kind="K",namespace="ns1"} 1\no{group="g",kind="K",namespace="ns2"} 1\n',
  );
  counts.count(c, -1);
  counts.count(b, -1);
  for (const [key, text] of Object.entries(print(counts))) assert.equal(text, "", key);
});

test("clear forgets every family", () => {
  const counts = new AggregateCounts();
  counts.count(
    entry({
      generation: 2,
      spec: { suspend: true },
      status: {
        observedGeneration: 1,
        phase: "Running",
        conditions: [cond("Ready", "True")],
        health: { status: "Healthy" },
      },
    }),
    1,
  );
  assert.ok(Object.values(print(counts)).every((text) => text !== ""));
  counts.clear();
  for (const [key, text] of Object.entries(print(counts))) assert.equal(text, "", key);
});
