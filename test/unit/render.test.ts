// renderSeries on its own: what is rendered with and without previous
// series, which slots stay empty, how the object labels are opened, and that
// the series count follows the text.
import assert from "node:assert/strict";
import { test } from "node:test";
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { newKindLearning } from "../../src/core/change/label-bounds.ts";
import { applyChange } from "../../src/core/change/object-update.ts";
import type { ObjectEntry } from "../../src/core/entry.ts";
import { defaultProjectionSettings } from "../../src/core/project/project.ts";
import { inputBit, objectFamilies, slotOf } from "../../src/core/series/catalog.ts";
import { fromByteString } from "../../src/core/series/exposition.ts";
import {
  type KindRender,
  newKindRender,
  objectLabelsOpen,
  type RenderInput,
  renderSeries,
  slotTails,
  slotText,
  zeroCounters,
} from "../../src/core/series/render.ts";
import { kindSettings } from "../support/kind-settings.ts";
import { cond, t, widget } from "../support/objects.ts";
import { allLines, slotLines } from "../support/series.ts";

const kind = kindSettings(
  { projection: { ...defaultProjectionSettings, extraLabels: [{ key: "app", name: "app", from: "label" }] } },
  ["app"],
);
const learning = newKindLearning({ phaseEnum: [], maxReasons: 20 });
const entry: ObjectEntry = applyChange(
  undefined,
  widget({
    generation: 2,
    labels: { app: "shop" },
    status: { observedGeneration: 1, phase: "Running", conditions: [cond("Ready", "False")] },
  }),
  kind,
  learning,
  t("2026-01-01T01:00:00Z"),
).entry;
const input: RenderInput = {
  state: entry.state,
  counters: entry.counters,
  lag: entry.lag,
  requestedAt: entry.memory.requestedAt,
  summary: entry.summary,
  labels: entry.labels,
};
const L = 'group="example.com",kind="Widget",namespace="ns1",name="w1"';
const only = (...keys: (keyof typeof slotOf)[]): KindRender =>
  newKindRender({
    group: "example.com",
    kind: "Widget",
    prefix: "x_",
    selected: keys.reduce((mask, key) => mask | (1 << slotOf[key]), 0),
    extraLabelNames: ["app"],
  });
const lines = (text: string) => (text === "" ? 0 : text.trimEnd().split("\n").length);

test("newKindRender: full names by slot from the prefix; no extra labels unless given", () => {
  const render = newKindRender({ group: "g", kind: "K", prefix: "p_", selected: 5 });
  assert.deepEqual(
    render.names,
    objectFamilies.map((f) => `p_${f.suffix}`),
  );
  assert.deepEqual(render.extraLabelNames, []);
  assert.equal(render.selected, 5);
  assert.deepEqual(
    newKindRender({ group: "g", kind: "K", prefix: "", selected: 0, extraLabelNames: ["a"] }).extraLabelNames,
    ["a"],
  );
});

test("the object labels: group, kind, namespace, name, then the extra labels in order (empty when unset), unclosed", () => {
  assert.equal(objectLabelsOpen(only(), entry.state), `{${L},app="shop"`);
  const render = newKindRender({
    group: "g",
    kind: "K",
    prefix: "",
    selected: 0,
    extraLabelNames: ["b", "app"],
  });
  assert.equal(
    objectLabelsOpen(render, entry.state),
    '{group="g",kind="K",namespace="ns1",name="w1",b="",app="shop"',
  );
});

test("without previous series, every selected family is rendered whatever the changed inputs say; the others stay empty", () => {
  const series = renderSeries(only("generation", "phase", "status"), undefined, 0, input);
  assert.equal(series.open, `{${L},app="shop"`);
  // Only the three slots with lines take a place.
  assert.equal(series.slots, (1 << slotOf.generation) | (1 << slotOf.phase) | (1 << slotOf.status));
  assert.equal(series.tails.length, 3);
  assert.equal(
    fromByteString(slotLines(series, slotOf.generation, "x_")),
    `x_metadata_generation{${L},app="shop"} 2\n`,
  );
  assert.equal(
    fromByteString(slotLines(series, slotOf.phase, "x_")),
    `x_phase{${L},app="shop",phase="Running"} 1\n`,
  );
  assert.match(slotLines(series, slotOf.status, "x_"), /^x_status\{.*result="InProgress"\} 1\n$/);
  for (const family of objectFamilies)
    if (!["generation", "phase", "status"].includes(family.key))
      assert.equal(slotLines(series, family.slot), "", family.key);
  assert.equal(series.count, 3);
});

test("the series count is the number of lines over the selected slots, kept right as families are re-rendered", () => {
  const all = only(...objectFamilies.map((f) => f.key));
  const first = renderSeries(all, undefined, -1, input);
  assert.equal(
    first.count,
    allLines(first, "x_").reduce((n, text) => n + lines(text), 0),
  );
  const twoConditions = {
    ...input,
    state: {
      ...input.state,
      conditions: [
        ...input.state.conditions,
        { ...(input.state.conditions[0] as (typeof input.state.conditions)[number]), type: "Synced" },
      ],
    },
  };
  const next = renderSeries(all, first, inputBit.conditionStatus | inputBit.conditionTime, twoConditions);
  assert.equal(
    next.count,
    allLines(next, "x_").reduce((n, text) => n + lines(text), 0),
  );
  assert.equal(next.open, first.open, "the same object labels, the same string");
});

test("a new identity renders every selected family again under the new labels", () => {
  const render = only("generation", "phase");
  const first = renderSeries(render, undefined, -1, input);
  const moved = { ...input, state: { ...input.state, extraLabels: { app: "cart" } } };
  const next = renderSeries(render, first, inputBit.identity, moved);
  assert.equal(next.open, `{${L},app="cart"`);
  assert.equal(
    fromByteString(slotLines(next, slotOf.generation, "x_")),
    `x_metadata_generation{${L},app="cart"} 2\n`,
  );
  assert.equal(
    fromByteString(slotLines(next, slotOf.phase, "x_")),
    `x_phase{${L},app="cart",phase="Running"} 1\n`,
  );
  assert.equal(next.count, 2);
});

test("counters render as they stand, zero included; transitions count per condition and new status", () => {
  const render = only("statusUpdates", "conditionTransitions");
  const series = renderSeries(render, undefined, -1, {
    ...input,
    counters: { ...zeroCounters, transitions: new Map([["Ready\u0000True", 2]]) },
  });
  assert.equal(
    fromByteString(slotLines(series, slotOf.statusUpdates, "x_")),
    `x_status_updates_total{${L},app="shop"} 0\n`,
  );
  assert.equal(
    fromByteString(slotLines(series, slotOf.conditionTransitions, "x_")),
    [
      `x_condition_transitions_total{${L},app="shop",type="Ready",status="True"} 2`,
      `x_condition_transitions_total{${L},app="shop",type="Ready",status="False"} 0`,
      `x_condition_transitions_total{${L},app="shop",type="Ready",status="Unknown"} 0`,
      "",
    ].join("\n"),
  );
});

test("a condition with no known time has no last-transition series; one with a time has", () => {
  const [ready] = input.state.conditions as [(typeof input.state.conditions)[number]];
  const series = renderSeries(only("conditionLastTransition"), undefined, -1, {
    ...input,
    state: {
      ...input.state,
      conditions: [
        { ...ready, since: undefined, sinceSource: undefined },
        { ...ready, type: "Synced", since: 1767225600 },
      ],
    },
  });
  assert.equal(
    fromByteString(slotLines(series, slotOf.conditionLastTransition, "x_")),
    `x_condition_last_transition_timestamp_seconds{${L},app="shop",type="Synced"} 1767225600\n`,
  );
  assert.equal(series.count, 1);
});

test("slotText puts the family name and the object's labels in front of every tail", () => {
  const open = '{group="g",kind="K",namespace="ns1",name="w1"';
  assert.equal(slotText("x_a", open, ""), "", "no tails, no lines");
  assert.equal(slotText("x_a", open, "} 2"), `x_a${open}} 2\n`);
  const tails = [',type="Ready"} 1', ',type="Synced"} 0', ',type="Stalled"} 1'];
  for (let n = 1; n <= tails.length; n++) {
    const some = tails.slice(0, n);
    assert.equal(
      slotText("x_a", open, some.join("\n")),
      some.map((t) => `x_a${open}${t}\n`).join(""),
      `${n} tails`,
    );
  }
});

test("stored series cost what their texts cost as flat strings in an array of their own length", () => {
  setFlagsFromString("--expose-gc");
  const gc = runInNewContext("gc") as () => void;
  const objects = 20_000;
  const render = only("generation", "conditionLastTransition", "phase");
  const kept = [slotOf.generation, slotOf.conditionLastTransition, slotOf.phase];
  const heapOf = (make: (i: number) => unknown): number => {
    gc();
    const before = process.memoryUsage().heapUsed;
    const all = Array.from({ length: objects }, (_, i) => make(i));
    gc();
    const grown = process.memoryUsage().heapUsed - before;
    assert.equal(all.length, objects);
    return grown;
  };
  const rendered = (i: number) =>
    renderSeries(render, undefined, -1, { ...input, state: { ...input.state, name: `widget-${i}` } });
  // The same texts copied through a Buffer (a flat string each) in an array of exactly the slots with lines.
  const copy = (s: string) => Buffer.from(s, "latin1").toString("latin1");
  const model = (i: number) => {
    const series = rendered(i);
    return { ...series, open: copy(series.open), tails: kept.map((slot) => copy(slotTails(series, slot))) };
  };
  const perObject = (heapOf(rendered) - heapOf(model)) / objects;
  // Measured: 0-21 bytes (when the collector runs varies); texts left as ropes of their pieces
  // cost about 600 bytes more, an array of every slot 128.
  assert.ok(perObject < 64, `${perObject.toFixed(1)} B per object over flat texts in a packed array`);
});
