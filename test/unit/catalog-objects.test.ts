// The per-object catalog's cost side: the series one object costs in each
// family, for a shape where every count differs, and the sum over a selection
// (what `explain` and the series budget use). render-families.test.ts checks
// the same formulas against the lines actually rendered.
import assert from "node:assert/strict";
import { test } from "node:test";
import {
  type ObjectShape,
  objectFamilies,
  seriesPerObject,
  slotOf,
} from "../../src/core/series/catalog-objects.ts";

const shape: ObjectShape = {
  conditions: 7,
  conditionsWithReason: 5,
  conditionsWithGeneration: 2,
  generation: true,
  statusObservedGeneration: true,
  lagKnown: true,
  requestedAtKnown: true,
  phase: true,
  states: 4,
  values: 3,
  terminating: true,
  suspended: true,
  heartbeat: true,
  warningReasons: 2,
};
const bare: ObjectShape = {
  conditions: 0,
  conditionsWithReason: 0,
  conditionsWithGeneration: 0,
  generation: false,
  statusObservedGeneration: false,
  lagKnown: false,
  requestedAtKnown: false,
  phase: false,
  states: 0,
  values: 0,
  terminating: false,
  suspended: false,
  heartbeat: false,
  warningReasons: 0,
};

const perFamily = (s: ObjectShape) =>
  Object.fromEntries(objectFamilies.map((f) => [f.key, f.cost.series(s)]));

test("series per object in each family follow the documented formulas", () => {
  assert.deepEqual(perFamily(shape), {
    condition: 7,
    conditionLastTransition: 7,
    conditionReason: 5,
    conditionStale: 2,
    generation: 1,
    observedGeneration: 1,
    generationLag: 1,
    generationRequested: 1,
    phase: 1,
    state: 4,
    value: 3,
    status: 1,
    deletion: 1,
    suspended: 1,
    heartbeat: 1,
    statusUpdates: 1,
    noopUpdates: 1,
    specGenerationChanges: 1,
    conditionTransitions: 21,
    objectWarningEvents: 2,
  });
  assert.deepEqual(perFamily(bare), {
    condition: 0,
    conditionLastTransition: 0,
    conditionReason: 0,
    conditionStale: 0,
    generation: 0,
    observedGeneration: 0,
    generationLag: 0,
    generationRequested: 0,
    phase: 0,
    state: 0,
    value: 0,
    status: 1,
    deletion: 0,
    suspended: 0,
    heartbeat: 0,
    statusUpdates: 1,
    noopUpdates: 1,
    specGenerationChanges: 1,
    conditionTransitions: 0,
    objectWarningEvents: 0,
  });
});

test("an object's series are the sum over the selected families only", () => {
  assert.equal(seriesPerObject(shape, 0), 0);
  const all = objectFamilies.reduce((mask, f) => mask | (1 << f.slot), 0);
  assert.equal(
    seriesPerObject(shape, all),
    7 + 7 + 5 + 2 + 1 + 1 + 1 + 1 + 1 + 4 + 3 + 1 + 1 + 1 + 1 + 1 + 1 + 1 + 21 + 2,
  );
  assert.equal(seriesPerObject(shape, 1 << slotOf.conditionTransitions), 21);
  assert.equal(seriesPerObject(shape, (1 << slotOf.condition) | (1 << slotOf.state)), 11);
  assert.equal(seriesPerObject(bare, all), 4, "status and the three counters always have one series");
});

test("slots follow the table's order", () => {
  assert.deepEqual(
    objectFamilies.map((f) => f.slot),
    objectFamilies.map((_, i) => i),
  );
  for (const f of objectFamilies) assert.equal(slotOf[f.key], f.slot);
});
