// Bounded label values of state fields (core/label-bounds.ts): a declared set
// is closed, an undeclared field learns up to the phase cap, then "other".
import assert from "node:assert/strict";
import { test } from "node:test";
import {
  maxLearnedPhases,
  newKindLearning,
  otherLabelValue,
  stateLabelValue,
} from "../../src/core/label-bounds.ts";

test("an undeclared state field keeps its first values up to the cap, then other, remembered per field", () => {
  const learning = newKindLearning({ phaseEnum: [], maxReasons: 5 });
  const values = Array.from({ length: maxLearnedPhases + 1 }, (_, i) => `v${i}`);
  const labels = values.map((v) => stateLabelValue(learning, "health", v));
  assert.deepEqual(labels.slice(0, maxLearnedPhases), values.slice(0, maxLearnedPhases));
  assert.equal(labels.at(-1), otherLabelValue);
  assert.equal(stateLabelValue(learning, "health", "v0"), "v0", "a learned value stays itself");
  assert.equal(stateLabelValue(learning, "sync", "v99"), "v99", "another field has its own bound");
});

test("a declared state field takes only its declared values", () => {
  const learning = newKindLearning({
    phaseEnum: [],
    maxReasons: 5,
    stateValues: { health: ["Healthy", "Degraded"] },
  });
  assert.equal(stateLabelValue(learning, "health", "Degraded"), "Degraded");
  assert.equal(stateLabelValue(learning, "health", "Unheard"), otherLabelValue);
});
