// The naming rules detection shares (detect.ts): which field names read as a
// phase, which condition is the readiness one, and how paths are spelled.
import assert from "node:assert/strict";
import { test } from "node:test";
import { chooseReadyCondition, dotted, phaseLikeName } from "../../src/core/detect/shape.ts";

test("phase-like names: phase or state in any case, or a name ending in Phase or State", () => {
  for (const name of ["phase", "Phase", "PHASE", "state", "State", "deploymentPhase", "lastState", "xState"])
    assert.equal(phaseLikeName(name), true, name);
  for (const name of ["phases", "states", "subphase", "mystate", "PhaseOne", "StateOf", "stage", "", "Phasé"])
    assert.equal(phaseLikeName(name), false, name);
});

test("the readiness condition: Ready first, then Succeeded, then Available, whatever the order seen", () => {
  assert.equal(chooseReadyCondition(["Available", "Succeeded", "Ready"]), "Ready");
  assert.equal(chooseReadyCondition(["Available", "Succeeded"]), "Succeeded");
  assert.equal(chooseReadyCondition(new Set(["Synced", "Available"])), "Available");
  assert.equal(chooseReadyCondition(["Synced", "Healthy"]), undefined);
  assert.equal(chooseReadyCondition([]), undefined);
});

test("paths are spelled dotted", () => {
  assert.equal(dotted(["status", "health", "status"]), "status.health.status");
  assert.equal(dotted(["status"]), "status");
  assert.equal(dotted([]), "");
});
