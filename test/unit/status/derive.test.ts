// The facts derived from a view (derive.ts), at their boundaries: what counts
// as lagging, since when an object has not been Ready, the lag in generations
// and in seconds, flapping and "needs attention".
import assert from "node:assert/strict";
import { test } from "node:test";
import {
  generationLag,
  isFlapping,
  isLagging,
  isNotReady,
  lagSeconds,
  needsAttention,
  notReadySince,
  stateSince,
  statusUnwritten,
} from "../../../src/status/derive.ts";
import { condition, view, viewNow } from "../../support/views.ts";

test("only Current is Ready", () => {
  for (const result of ["InProgress", "Failed", "Terminating", "Unknown"] as const) {
    assert.equal(isNotReady(view({ name: "w", result })), true, result);
  }
  assert.equal(isNotReady(view({ name: "w" })), false);
});

test("lagging: the object's or the Ready condition's observed generation behind; never without a generation", () => {
  assert.equal(isLagging(view({ name: "w", generation: 3, observedGeneration: 2 })), true);
  assert.equal(isLagging(view({ name: "w", generation: 3, observedGeneration: 3 })), false);
  assert.equal(isLagging(view({ name: "w", generation: 3, observedGeneration: 4 })), false);
  assert.equal(isLagging(view({ name: "w", generation: undefined, observedGeneration: 1 })), false);
  const readyAt = (observedGeneration: number | undefined) =>
    view({
      name: "w",
      generation: 3,
      observedGeneration: undefined,
      ready: condition("Ready", "True", { observedGeneration }),
    });
  assert.equal(isLagging(readyAt(2)), true, "the Ready condition behind");
  assert.equal(isLagging(readyAt(3)), false);
  assert.equal(isLagging(readyAt(undefined)), false);
  assert.equal(
    isLagging(view({ name: "w", generation: 3, observedGeneration: undefined, ready: undefined })),
    false,
  );
  assert.equal(
    isLagging(
      view({
        name: "w",
        generation: 3,
        observedGeneration: 3,
        ready: condition("Ready", "True", { observedGeneration: 2 }),
      }),
    ),
    true,
    "either one behind is enough",
  );
});

test("not Ready since: termination, else a Ready that is not True, else the unobserved generation, else creation", () => {
  const base = {
    name: "w",
    result: "InProgress" as const,
    createdAt: viewNow - 1000,
    generationRequestedAt: viewNow - 500,
  };
  assert.equal(notReadySince(view({ ...base, terminatingSince: viewNow - 10 })), viewNow - 10);
  assert.equal(
    notReadySince(view({ ...base, ready: condition("Ready", "False", { since: viewNow - 20 }) })),
    viewNow - 20,
  );
  assert.equal(
    notReadySince(view({ ...base, ready: condition("Ready", "Unknown", { since: viewNow - 30 }) })),
    viewNow - 30,
  );
  assert.equal(
    notReadySince(view({ ...base, ready: condition("Ready", "False", { since: undefined }) })),
    viewNow - 1000,
    "a Ready without a time falls through to creation",
  );
  assert.equal(
    notReadySince(view({ ...base, generation: 2, observedGeneration: 1 })),
    viewNow - 500,
    "a Ready=True object lagging: since its generation was asked for",
  );
  assert.equal(
    notReadySince(view({ ...base, generation: 2, observedGeneration: 1, generationRequestedAt: undefined })),
    viewNow - 1000,
  );
  assert.equal(notReadySince(view({ ...base })), viewNow - 1000, "Ready=True, caught up: creation");
  assert.equal(notReadySince(view({ name: "w" })), undefined, "a Ready object");
});

test("the SINCE of tables: since when not Ready, or since when Ready", () => {
  assert.equal(
    stateSince(view({ name: "w", ready: condition("Ready", "True", { since: viewNow - 40 }) })),
    viewNow - 40,
  );
  assert.equal(stateSince(view({ name: "w", ready: undefined })), undefined);
  assert.equal(stateSince(view({ name: "w", result: "Failed", terminatingSince: viewNow - 7 })), viewNow - 7);
});

test("an unwritten status has no condition, phase or observed generation", () => {
  const bare = { name: "w", ready: undefined, phase: undefined, observedGeneration: undefined };
  assert.equal(statusUnwritten(view(bare)), true);
  assert.equal(statusUnwritten(view({ ...bare, phase: "Running" })), false);
  assert.equal(statusUnwritten(view({ ...bare, observedGeneration: 1 })), false);
  assert.equal(statusUnwritten(view({ ...bare, conditions: [condition("Synced", "True")] })), false);
});

test("lag in seconds: from when the generation was asked for, never negative, 0 when caught up or unknown", () => {
  const lagging = { name: "w", generation: 2, observedGeneration: 1 };
  assert.equal(lagSeconds(view({ ...lagging, generationRequestedAt: viewNow - 90 }), viewNow), 90);
  assert.equal(lagSeconds(view({ ...lagging, generationRequestedAt: viewNow + 5 }), viewNow), 0);
  assert.equal(lagSeconds(view({ ...lagging, generationRequestedAt: undefined }), viewNow), 0);
  assert.equal(lagSeconds(view({ name: "w", generationRequestedAt: viewNow - 90 }), viewNow), 0);
});

test("lag in generations: floored at 0, unknown without both numbers", () => {
  assert.equal(generationLag(view({ name: "w", generation: 5, observedGeneration: 2 })), 3);
  assert.equal(generationLag(view({ name: "w", generation: 2, observedGeneration: 5 })), 0);
  assert.equal(generationLag(view({ name: "w", generation: undefined, observedGeneration: 2 })), undefined);
  assert.equal(generationLag(view({ name: "w", generation: 2, observedGeneration: undefined })), undefined);
});

test("flapping from the minimum number of changes on; attention for not Ready or flapping", () => {
  assert.equal(isFlapping(view({ name: "w", transitionsInWindow: 3 }), 3), true);
  assert.equal(isFlapping(view({ name: "w", transitionsInWindow: 2 }), 3), false);
  assert.equal(needsAttention(view({ name: "w", transitionsInWindow: 3 }), 3), true);
  assert.equal(needsAttention(view({ name: "w", result: "Failed" }), 3), true);
  assert.equal(needsAttention(view({ name: "w", transitionsInWindow: 2 }), 3), false);
});
