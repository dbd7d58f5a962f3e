// Every label value an object controls is bounded: cut to a length (counted),
// conditions capped per object (counted), learned phases and reasons held
// per kind while objects hold them and forgotten after, so one hostile object
// never costs other objects anything and leaves nothing behind. The same on
// the real apiserver with promtool is in test/e2e/hostile-objects.test.ts.
import assert from "node:assert/strict";
import { test } from "node:test";
import { getHeapStatistics, setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import {
  holdLabels,
  type KindLearning,
  LabelBound,
  LabelChanges,
  newKindLearning,
  releaseLabels,
} from "../../src/core/change/label-bounds.ts";
import { applyChange, rejudge, rerender } from "../../src/core/change/object-update.ts";
import { capLabelValue, maxLabelValueLength, truncationMarker } from "../../src/core/label-values.ts";
import {
  defaultProjectionSettings,
  maxConditionsPerObject,
  type ProjectionSettings,
  projectObject,
} from "../../src/core/project/project.ts";
import { offlineCollector, perObjectText } from "../support/collector.ts";
import { parseExposition } from "../support/exposition-check.ts";
import { kindSettings } from "../support/kind-settings.ts";
import { cond, widget } from "../support/objects.ts";
import { promtoolCheckMetrics } from "../support/promtool.ts";

test("a label bound holds values while objects hold them, folds past the limit, and forgets unheld values", () => {
  const bound = new LabelBound(2);
  assert.equal(bound.hold("A"), "A");
  assert.equal(bound.hold("A"), "A");
  assert.equal(bound.hold("B"), "B");
  assert.equal(bound.hold("C"), "other", "full");
  bound.release("B");
  assert.equal(bound.size, 1, "B is forgotten");
  assert.equal(bound.hold("C"), "C", "its place is free");
  bound.release("A");
  assert.equal(bound.hold("D"), "other", "A still has a holder");
  bound.release("A");
  assert.equal(bound.hold("D"), "D");
  bound.release("other");
  assert.equal(bound.hold("other"), "other");
  assert.equal(bound.size, 2, "'other' is never learned, so it always means folded");
});

test('a made-up value "other" takes no place: it is exported as the fold it names, never learned', () => {
  const bound = new LabelBound(1);
  assert.equal(bound.hold("other"), "other");
  assert.equal(bound.size, 0);
  assert.equal(bound.hold("A"), "A", "the one place is still free");
});

test("a declared enum is exported as is, and nothing else is learned", () => {
  const bound = new LabelBound(20, ["Running", "Failed"]);
  assert.equal(bound.hold("Running"), "Running");
  assert.equal(bound.hold("Exploding"), "other");
  assert.equal(bound.size, 0);
});

test("label values are cut to the cap with a marker, never splitting a surrogate pair", () => {
  assert.equal(capLabelValue("Ready"), "Ready");
  const cut = capLabelValue("x".repeat(1_000_000));
  assert.equal(cut.length, maxLabelValueLength);
  assert.ok(cut.endsWith(truncationMarker));
  const emoji = `${"x".repeat(maxLabelValueLength - 2)}😀😀`;
  const cutEmoji = capLabelValue(emoji);
  assert.ok(cutEmoji.length <= maxLabelValueLength);
  assert.doesNotMatch(cutEmoji, /[\ud800-\udbff](?![\udc00-\udfff])/, "no lone high surrogate");
});

test("the projection cuts phase, condition type and reason and extra labels, drops conditions past the cap, and counts both", () => {
  const huge = "P".repeat(50_000);
  const conditions = Array.from({ length: 300 }, (_, i) =>
    cond(`Type${i}`, "True", undefined, { reason: `R${i}` }),
  );
  conditions.unshift(cond("T".repeat(200), "False", undefined, { reason: huge }));
  const state = projectObject(widget({ annotations: { team: huge }, status: { phase: huge, conditions } }), {
    ...defaultProjectionSettings,
    extraLabels: [{ key: "team", name: "team", from: "annotation" }],
  });
  assert.equal(state.phase?.length, maxLabelValueLength);
  assert.equal(state.extraLabels.team?.length, maxLabelValueLength);
  assert.equal(state.conditions.length, maxConditionsPerObject);
  assert.equal(state.conditions[0]?.type.length, maxLabelValueLength);
  assert.equal(state.conditions[0]?.reason.length, maxLabelValueLength);
  assert.deepEqual(state.cuts, {
    labelValues: 4,
    conditions: 301 - maxConditionsPerObject,
    unreadableValues: 0,
  });
  const plain = projectObject(widget({ status: { phase: "Running" } }), defaultProjectionSettings);
  assert.deepEqual(plain.cuts, { labelValues: 0, conditions: 0, unreadableValues: 0 });
});

test("two condition types equal once cut are one condition", () => {
  const long = "T".repeat(300);
  const state = projectObject(
    widget({ status: { conditions: [cond(`${long}a`, "True"), cond(`${long}b`, "False")] } }),
    defaultProjectionSettings,
  );
  assert.equal(state.conditions.length, 1);
  assert.equal(state.conditions[0]?.status, "True");
});

test("a cut message does not keep the original alive: 200 objects with 200 KB messages cost far less than 40 MB", () => {
  setFlagsFromString("--expose-gc");
  const gc = runInNewContext("gc") as () => void;
  const states: unknown[] = [];
  gc();
  const before = getHeapStatistics().used_heap_size;
  for (let i = 0; i < 200; i++) {
    // A fresh string per object, as JSON.parse of each watch event makes.
    const message = `${i}`.padEnd(200_000, "m");
    states.push(
      projectObject(
        widget({ status: { conditions: [cond("Ready", "False", undefined, { message })] } }),
        defaultProjectionSettings,
      ),
    );
  }
  gc();
  const grownMiB = (getHeapStatistics().used_heap_size - before) / 1024 / 1024;
  assert.equal(states.length, 200);
  assert.ok(grownMiB < 5, `the heap grew ${grownMiB.toFixed(1)} MiB for 200 projected objects`);
});

/** Distinct values of `label` in the family `name`, and the number of its series. */
function seriesOf(text: string, name: string, label: string): { count: number; values: Set<string> } {
  const values = new Set<string>();
  let count = 0;
  for (const key of parseExposition(text).samples.keys()) {
    if (!key.startsWith(`${name}{`)) continue;
    count++;
    values.add(new RegExp(`${label}="([^"]*)"`).exec(key)?.[1] ?? "");
  }
  return { count, values };
}

test("one object cycling through 40 huge made-up phases costs others nothing and leaves nothing behind", async () => {
  const c = offlineCollector();
  for (let i = 0; i < 5; i++)
    c.collector.ingest(
      "ADDED",
      widget({ name: `ok${i}`, status: { phase: "Running", conditions: [cond("Ready", "True")] } }),
    );
  for (let i = 0; i < 40; i++) {
    c.collector.ingest(
      "MODIFIED",
      widget({
        name: "hostile",
        resourceVersion: String(100 + i),
        status: { phase: `${i}-${"x".repeat(50_000)}` },
      }),
    );
  }
  let text = await perObjectText(c);
  const phases = seriesOf(text, "cr_phase", "phase");
  assert.equal(phases.count, 6, "one cr_phase series per object");
  assert.equal(phases.values.size, 2, "Running and the hostile object's current phase");
  for (const value of phases.values) assert.ok(value.length <= maxLabelValueLength);
  promtoolCheckMetrics(text);

  c.collector.ingest("DELETED", widget({ name: "hostile" }));
  // Twenty new phases all get their own label: nothing of the hostile object's is held.
  for (let i = 0; i < 19; i++)
    c.collector.ingest("ADDED", widget({ name: `n${i}`, status: { phase: `Phase${i}` } }));
  text = await perObjectText(c);
  const after = seriesOf(text, "cr_phase", "phase");
  assert.equal(after.values.has("other"), false, [...after.values].join(","));
  assert.equal(after.values.size, 20);
  c.collector.ingest("ADDED", widget({ name: "one-too-many", status: { phase: "Phase99" } }));
  assert.ok(seriesOf(await perObjectText(c), "cr_phase", "phase").values.has("other"), "the 21st is folded");
});

test("reasons are held per condition and freed when they change", async () => {
  const c = offlineCollector({ maxReasons: 2 });
  c.collector.ingest(
    "ADDED",
    widget({ name: "a", status: { conditions: [cond("Ready", "False", undefined, { reason: "R1" })] } }),
  );
  c.collector.ingest(
    "ADDED",
    widget({ name: "b", status: { conditions: [cond("Ready", "False", undefined, { reason: "R2" })] } }),
  );
  c.collector.ingest(
    "ADDED",
    widget({ name: "c", status: { conditions: [cond("Ready", "False", undefined, { reason: "R3" })] } }),
  );
  assert.deepEqual([...seriesOf(await perObjectText(c), "cr_condition_reason", "reason").values].sort(), [
    "R1",
    "R2",
    "other",
  ]);
  c.collector.ingest(
    "MODIFIED",
    widget({
      name: "a",
      resourceVersion: "2",
      status: { conditions: [cond("Ready", "True", undefined, { reason: "Done" })] },
    }),
  );
  c.collector.ingest("DELETED", widget({ name: "b" }));
  c.collector.ingest(
    "MODIFIED",
    widget({
      name: "c",
      resourceVersion: "2",
      status: {
        conditions: [
          cond("Ready", "False", undefined, { reason: "R3" }),
          cond("Synced", "True", undefined, { reason: "R3" }),
        ],
      },
    }),
  );
  assert.deepEqual([...seriesOf(await perObjectText(c), "cr_condition_reason", "reason").values].sort(), [
    "Done",
    "R3",
  ]);
});

test("300 conditions, 1 MB messages and control characters: bounded series, promtool clean, counted", async () => {
  const c = offlineCollector();
  const control = 'a\u0000b\u0007c\td\re\nf"g\\h\u001b[31m\u2028\ud800';
  const conditions = Array.from({ length: 300 }, (_, i) =>
    cond(`${control}${i}`, i % 2 ? "True" : "False", undefined, {
      reason: `${control}R${i}`,
      message: "m".repeat(1 << 20),
    }),
  );
  c.collector.ingest("ADDED", widget({ name: "hostile", status: { phase: control, conditions } }));
  const text = await perObjectText(c);
  promtoolCheckMetrics(text);
  const lines = text.split("\n").filter((l) => l !== "" && !l.startsWith("#"));
  // 32 conditions × 3 families + generation, requested time, phase, status, 2 counters.
  assert.ok(lines.length <= maxConditionsPerObject * 3 + 6, `${lines.length} series`);
  assert.ok(text.length < 64 * 1024, `${text.length} bytes of exposition`);
  const counters = parseExposition(await c.metrics.registry.metrics()).samples;
  const r = 'group="example.com",version="v1",kind="Widget"';
  assert.equal(counters.get(`cr_exporter_conditions_dropped_total{${r}}`), 300 - maxConditionsPerObject);
  assert.equal(counters.get(`cr_exporter_label_values_truncated_total{${r}}`), 0, "short values are not cut");
});

test("state-field values are held like phases: cut, one series per object, forgotten with their object", async () => {
  const c = offlineCollector({
    projection: { states: [{ name: "health", path: ["status", "health", "status"] }] },
  });
  c.collector.ingest("ADDED", widget({ name: "ok", status: { health: { status: "Healthy" } } }));
  for (let i = 0; i < 40; i++) {
    c.collector.ingest(
      "MODIFIED",
      widget({
        name: "hostile",
        resourceVersion: String(100 + i),
        status: { health: { status: `${i}-${"x".repeat(50_000)}` } },
      }),
    );
  }
  let states = seriesOf(await perObjectText(c), "cr_state", "value");
  assert.equal(states.count, 2, "one cr_state series per object");
  for (const value of states.values)
    assert.ok(value.length <= maxLabelValueLength, `${value.length} characters`);
  c.collector.ingest("DELETED", widget({ name: "hostile" }));
  for (let i = 0; i < 19; i++)
    c.collector.ingest("ADDED", widget({ name: `n${i}`, status: { health: { status: `Value${i}` } } }));
  states = seriesOf(await perObjectText(c), "cr_state", "value");
  assert.equal(states.values.has("other"), false, [...states.values].join(","));
  assert.equal(states.values.size, 20);
  c.collector.ingest("ADDED", widget({ name: "one-too-many", status: { health: { status: "Value99" } } }));
  assert.ok(seriesOf(await perObjectText(c), "cr_state", "value").values.has("other"), "the 21st is folded");
});

// holdLabels on its own, with bounds of one value each so folding is easy to reach.
const tierStates: ProjectionSettings = {
  ...defaultProjectionSettings,
  states: [{ name: "tier", path: ["status", "tier"] }],
};
function tinyLearning(): KindLearning {
  return {
    phases: new LabelBound(1),
    reasons: new LabelBound(1),
    states: new Map([["tier", new LabelBound(1)]]),
  };
}
function stateOf(name: string, phase: string, reason: string, tier: string) {
  const conditions = [cond("Ready", "False", undefined, { reason })];
  return projectObject(widget({ name, status: { phase, tier, conditions } }), tierStates);
}

/** holdLabels with its changes committed at once, as the collector does. */
function held(
  learning: KindLearning,
  ...rest: Parameters<typeof holdLabels> extends [unknown, ...infer R] ? R : never
) {
  const changes = new LabelChanges(learning);
  const labels = holdLabels(changes, ...rest);
  changes.commit();
  return labels;
}

/** Object b, all of whose labels were folded while a held every place; a is then deleted, so every bound has room. */
function foldedAfterDelete() {
  const learning = tinyLearning();
  const a = held(learning, undefined, stateOf("a", "P1", "R1", "T1"), true);
  assert.deepEqual(a, { phase: "P1", reasons: ["R1"], states: [["tier", "T1"]] });
  const state = stateOf("b", "P2", "R2", "T2");
  const labels = held(learning, undefined, state, true);
  assert.deepEqual(labels, { phase: "other", reasons: ["other"], states: [["tier", "other"]] }, "all full");
  releaseLabels(learning, a);
  return { learning, b: { state, labels } };
}

test("a folded label stays folded until its own source changes, so an unrelated change never relabels a series", () => {
  let { learning, b } = foldedAfterDelete();
  const tierMoved = held(learning, b, stateOf("b", "P2", "R2", "T3"), true);
  assert.deepEqual(
    tierMoved,
    { phase: "other", reasons: ["other"], states: [["tier", "T3"]] },
    "only the tier changed, so only the tier takes the free place",
  );
  ({ learning, b } = foldedAfterDelete());
  const phaseMoved = held(learning, b, stateOf("b", "P3", "R2", "T2"), true);
  assert.deepEqual(
    phaseMoved,
    { phase: "P3", reasons: ["other"], states: [["tier", "other"]] },
    "only the phase changed, so only the phase takes the free place",
  );
  ({ learning, b } = foldedAfterDelete());
  const reasonMoved = held(learning, b, stateOf("b", "P2", "R3", "T2"), true);
  assert.deepEqual(
    reasonMoved,
    { phase: "other", reasons: ["R3"], states: [["tier", "other"]] },
    "only the reason changed, so only the reason takes the free place",
  );
});

test('a condition without a reason is labelled "" and takes no reason\'s place', () => {
  const learning = tinyLearning();
  const state = projectObject(
    widget({
      status: {
        conditions: [
          cond("Ready", "False", undefined, { reason: "" }),
          cond("Synced", "True", undefined, { reason: "R1" }),
        ],
      },
    }),
    defaultProjectionSettings,
  );
  const labels = held(learning, undefined, state, true);
  assert.deepEqual(labels.reasons, ["", "R1"], "R1 gets the one place");
  assert.equal(learning.reasons.size, 1);
});

test("an entry whose series are not rendered holds no reasons", () => {
  const learning = tinyLearning();
  const labels = held(learning, undefined, stateOf("a", "P1", "R1", "T1"), false);
  assert.deepEqual(labels.reasons, []);
  assert.equal(learning.reasons.size, 0);
  assert.equal(learning.reasons.hold("R2"), "R2", "the place is free for a rendered entry");
});

test("a change holds nothing until committed, and is judged against its own earlier holds and releases", () => {
  const learning = tinyLearning();
  const changes = new LabelChanges(learning);
  assert.equal(changes.hold(learning.phases, "A"), "A");
  assert.equal(learning.phases.size, 0, "the kind's bound is untouched before commit");
  assert.equal(changes.hold(learning.phases, "B"), "other", "A took the one place within the change");
  changes.release(learning.phases, "A");
  assert.equal(changes.hold(learning.phases, "B"), "B", "A's release within the change freed it");
  assert.equal(changes.hold(changes.state("zone"), "z1"), "z1", "a state field the kind had not seen");
  assert.equal(learning.states.has("zone"), false);
  changes.commit();
  assert.deepEqual([learning.phases.holders("A"), learning.phases.holders("B")], [0, 1]);
  assert.equal(learning.states.get("zone")?.holders("z1"), 1, "the new field's bound is the kind's now");
});

test("holding through changes gives the labels and counts holding in place gives (random sequences)", () => {
  let seed = 7;
  const random = (n: number) => {
    seed = (seed * 1103515245 + 12345) % 2 ** 31;
    return seed % n;
  };
  for (let run = 0; run < 200; run++) {
    const direct = new LabelBound(3, run % 4 === 0 ? ["D1", "D2"] : []);
    const learning = { ...tinyLearning(), phases: new LabelBound(3, run % 4 === 0 ? ["D1", "D2"] : []) };
    let changes = new LabelChanges(learning);
    const values = ["A", "B", "C", "D", "E", "D1", "other"];
    for (let step = 0; step < 40; step++) {
      const value = values[random(values.length)] as string;
      if (random(2) === 0) {
        assert.equal(
          changes.hold(learning.phases, value),
          direct.hold(value),
          `run ${run} step ${step} hold ${value}`,
        );
      } else {
        changes.release(learning.phases, value);
        direct.release(value);
      }
      if (random(3) === 0) {
        changes.commit();
        changes = new LabelChanges(learning);
        assert.equal(learning.phases.size, direct.size, `run ${run} step ${step}: sizes after commit`);
        for (const v of values) assert.equal(learning.phases.holders(v), direct.holders(v), `${v} holders`);
      }
    }
  }
});

test("applyChange leaves the kind's bounds alone; a rejudged or re-rendered entry holds what it held", () => {
  const learning = newKindLearning({ phaseEnum: [], maxReasons: 20 });
  const kind = kindSettings();
  const raw = widget({
    status: { phase: "Warming", conditions: [cond("Ready", "False", undefined, { reason: "Cold" })] },
  });
  const change = applyChange(undefined, raw, kind, learning, 0);
  assert.deepEqual([learning.phases.size, learning.reasons.size], [0, 0], "nothing held before commit");
  change.labels?.commit();
  assert.deepEqual([learning.phases.holders("Warming"), learning.reasons.holders("Cold")], [1, 1]);
  const again = rerender(rejudge(change.entry, kind, 60), kind);
  assert.deepEqual(again.labels, change.entry.labels);
  releaseLabels(learning, again.labels);
  assert.deepEqual(
    [learning.phases.size, learning.reasons.size],
    [0, 0],
    "deleting the object forgets its values",
  );
});

test("releasing a label nobody holds frees no place, in a change as in place", () => {
  const learning = tinyLearning();
  const changes = new LabelChanges(learning);
  changes.release(learning.phases, "X");
  changes.release(learning.phases, "other");
  assert.equal(changes.hold(learning.phases, "A"), "A", "the one place");
  assert.equal(changes.hold(learning.phases, "B"), "other", "still one place only");
  changes.commit();
  assert.deepEqual([learning.phases.size, learning.phases.holders("X")], [1, 0]);
  learning.phases.release("Y");
  assert.equal(learning.phases.hold("B"), "other", "in place too");
});

test("releasing the labels of a state field the kind never held changes nothing", () => {
  const learning = tinyLearning();
  releaseLabels(learning, { phase: undefined, reasons: [], states: [["zone", "z1"]] });
  assert.equal(learning.states.has("zone"), false);
});
