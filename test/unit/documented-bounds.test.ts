// The label bounds docs/metrics.md promises (its "Bounded labels" section),
// read from the text and checked through what an object projects to and what
// aggregate mode counts — never through the constants themselves, so changing
// a limit in the code without the docs (or the docs without the code) fails.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";
import { newKindLearning, otherLabelValue } from "../../src/core/change/label-bounds.ts";
import { applyChange } from "../../src/core/change/object-update.ts";
import { defaultProjectionSettings, projectObject } from "../../src/core/project/project.ts";
import { AggregateCounts } from "../../src/core/series/aggregate.ts";
import { kindSettings } from "../support/kind-settings.ts";
import { cond, t, widget } from "../support/objects.ts";

const metricsDoc = readFileSync(new URL("../../docs/metrics.md", import.meta.url), "utf8");
const boundedLabels = metricsDoc.slice(metricsDoc.indexOf("Every label value an object controls"));

/** The number `pattern`'s first group finds in the Bounded labels section. */
function documented(pattern: RegExp): number {
  const found = pattern.exec(boundedLabels)?.[1];
  assert.ok(found, `docs/metrics.md's Bounded labels section states ${pattern}`);
  return Number(found);
}

const labelLength = documented(/label value longer than (\d+) characters is cut/);
const messageLength = documented(/Condition messages, which are never labels, are cut to (\d+) characters/);
const conditionsPerObject = documented(/at most (\d+) per object/);
const learnedPhases = documented(/phases are learned: up to (\d+) that objects hold at a time/);

const project = (status: Record<string, unknown>) =>
  projectObject(widget({ status }), defaultProjectionSettings);

test(`a phase, condition type or reason longer than ${labelLength} characters is cut to ${labelLength}, ending with …`, () => {
  const at = "p".repeat(labelLength);
  const over = "q".repeat(labelLength + 1);
  const kept = project({ phase: at, conditions: [cond(at, "True", undefined, { reason: at })] });
  assert.equal(kept.phase, at);
  assert.equal(kept.conditions[0]?.type, at);
  assert.equal(kept.conditions[0]?.reason, at);
  assert.equal(kept.cuts.labelValues, 0);

  const cut = project({ phase: over, conditions: [cond(over, "True", undefined, { reason: over })] });
  const expected = `${"q".repeat(labelLength - 1)}…`;
  assert.equal(cut.phase, expected);
  assert.equal(cut.conditions[0]?.type, expected);
  assert.equal(cut.conditions[0]?.reason, expected);
  assert.equal(cut.cuts.labelValues, 3, "each cut value counted");
});

test(`a condition message is cut to ${messageLength} characters`, () => {
  const at = "m".repeat(messageLength);
  const over = "n".repeat(messageLength * 4);
  const state = project({
    conditions: [
      cond("Ready", "True", undefined, { message: at }),
      cond("Synced", "True", undefined, { message: over }),
    ],
  });
  assert.equal(state.conditions[0]?.message, at);
  assert.equal(state.conditions[1]?.message.length, messageLength);
  assert.ok(state.conditions[1]?.message.endsWith("…"));
});

test(`at most ${conditionsPerObject} conditions per object are kept, the rest counted as dropped`, () => {
  const conditions = (n: number) => Array.from({ length: n }, (_, i) => cond(`Type${i}`, "True"));
  const at = project({ conditions: conditions(conditionsPerObject) });
  assert.equal(at.conditions.length, conditionsPerObject);
  assert.equal(at.cuts.conditions, 0);
  const over = project({ conditions: conditions(conditionsPerObject + 5) });
  assert.deepEqual(
    over.conditions.map((c) => c.type),
    conditions(conditionsPerObject).map((c) => c.type),
    "the first ones, in list order",
  );
  assert.equal(over.cuts.conditions, 5);
});

test(`${learnedPhases} learned phases held at a time, beyond that "other": per object and in aggregate counts`, () => {
  const kind = kindSettings({ render: undefined });
  const learning = newKindLearning({ phaseEnum: [], maxReasons: 20 });
  const counts = new AggregateCounts();
  const held: (string | undefined)[] = [];
  for (let i = 0; i <= learnedPhases; i++) {
    const object = widget({ name: `w${i}`, uid: `uid-${i}`, status: { phase: `Phase${i}` } });
    const { entry, labels } = applyChange(undefined, object, kind, learning, t("2026-01-01T00:05:00Z"));
    labels?.commit(); // as the collector does when it stores the entry
    held.push(entry.labels.phase);
    counts.count(entry, 1);
  }
  assert.deepEqual(held, [...Array.from({ length: learnedPhases }, (_, i) => `Phase${i}`), otherLabelValue]);
  const phases = counts
    .render("aggregatePhases", "p", "example.com", "Widget")
    .trim()
    .split("\n")
    .map((line) => /phase="([^"]*)"/.exec(line)?.[1]);
  assert.equal(phases.length, learnedPhases + 1);
  assert.ok(phases.includes(otherLabelValue), "the phase past the bound counted as other");
  assert.ok(!phases.includes(`Phase${learnedPhases}`), "its raw value is never a label");
});
