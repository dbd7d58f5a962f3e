// The transition ring on its own: which transitions become entries and how,
// how texts are capped, how the ring is bounded, and the flapping count.
import assert from "node:assert/strict";
import { test } from "node:test";
import {
  appendTransitions,
  capText,
  conditionChangesSince,
  emptyRing,
  recordOf,
  ringCaps,
  type TransitionRecord,
} from "../../src/core/change/transition-ring.ts";
import type { Transition } from "../../src/core/state.ts";

const flip = (at: number, from?: "True" | "False", to?: "True" | "False"): Transition => ({
  kind: "condition",
  type: "Ready",
  from,
  to,
  at,
  since: undefined,
  reason: "R",
  message: "M",
});

test("capText keeps text up to max characters; longer text is cut to max, the last three being ...", () => {
  assert.equal(capText("abcdef", 6), "abcdef");
  assert.equal(capText("abcdefg", 6), "abc...");
  assert.equal(capText("abcdefg", 6).length, 6);
  assert.equal(capText("", 0), "");
  // A cap below the marker's length leaves the marker alone.
  assert.equal(capText("abcdef", 2), "...");
  assert.equal(capText("ééééé", 4), "é...");
});

test("recordOf: condition, generation, observedGeneration, phase and terminating are kept; the rest is not", () => {
  assert.deepEqual(recordOf({ kind: "terminating", at: 5 }), { at: 5, what: "terminating" });
  assert.deepEqual(recordOf({ kind: "generation", from: 1, to: 2, at: 6, specChanged: true }), {
    at: 6,
    what: "generation",
    from: "1",
    to: "2",
  });
  assert.deepEqual(recordOf({ kind: "observedGeneration", from: undefined, to: 3, at: 7 }), {
    at: 7,
    what: "observedGeneration",
    from: undefined,
    to: "3",
  });
  assert.deepEqual(recordOf({ kind: "phase", from: "Pending", to: undefined, at: 8 }), {
    at: 8,
    what: "phase",
    from: "Pending",
    to: undefined,
  });
  assert.deepEqual(
    recordOf({
      kind: "condition",
      type: "Ready",
      from: "True",
      to: "False",
      at: 9,
      since: 1,
      reason: "r".repeat(100),
      message: "m".repeat(100),
    }),
    {
      at: 9,
      what: "condition",
      type: "Ready",
      from: "True",
      to: "False",
      reason: `${"r".repeat(ringCaps.reasonChars - 3)}...`,
      message: `${"m".repeat(ringCaps.messageChars - 3)}...`,
    },
  );
  assert.equal(recordOf({ kind: "created", at: 1 }), undefined);
  assert.equal(recordOf({ kind: "deleted", at: 1 }), undefined);
  assert.equal(recordOf({ kind: "statusWrite", noop: false, at: 1 }), undefined);
});

test("appendTransitions: every recordable transition of one change is appended, in order", () => {
  const ring = appendTransitions(emptyRing, [
    flip(1, "True", "False"),
    { kind: "statusWrite", noop: false, at: 1 },
    { kind: "phase", from: "A", to: "B", at: 1 },
  ]);
  assert.deepEqual(
    ring.map((r) => r.what),
    ["condition", "phase"],
  );
  assert.deepEqual(
    appendTransitions(ring, [{ kind: "terminating", at: 2 }]).map((r) => r.what),
    ["condition", "phase", "terminating"],
  );
});

test("appendTransitions: nothing recordable returns the same ring, not a copy", () => {
  const ring = appendTransitions(emptyRing, [flip(1, "True", "False")]);
  assert.equal(appendTransitions(ring, [{ kind: "statusWrite", noop: true, at: 2 }]), ring);
  assert.equal(appendTransitions(ring, []), ring);
  assert.equal(appendTransitions(emptyRing, [{ kind: "created", at: 1 }]), emptyRing);
});

test("appendTransitions keeps the newest `capacity` entries (ringCaps.capacity by default)", () => {
  let ring: readonly TransitionRecord[] = emptyRing;
  for (let at = 1; at <= 3; at++) ring = appendTransitions(ring, [flip(at, "True", "False")], 3);
  assert.deepEqual(
    ring.map((r) => r.at),
    [1, 2, 3],
  );
  ring = appendTransitions(ring, [flip(4, "False", "True"), flip(5, "True", "False")], 3);
  assert.deepEqual(
    ring.map((r) => r.at),
    [3, 4, 5],
  );
  let full: readonly TransitionRecord[] = emptyRing;
  for (let at = 1; at <= ringCaps.capacity + 2; at++)
    full = appendTransitions(full, [flip(at, "True", "False")]);
  assert.equal(full.length, ringCaps.capacity);
  assert.equal(full[0]?.at, 3);
});

test("conditionChangesSince counts status changes at or after `since`, not appearances, disappearances or other entries", () => {
  const ring = appendTransitions(emptyRing, [
    flip(10, "True", "False"),
    flip(20, "False", "True"),
    flip(21, undefined, "True"),
    flip(22, "True", undefined),
    { kind: "phase", from: "A", to: "B", at: 23 },
    { kind: "generation", from: 1, to: 2, at: 24, specChanged: true },
    flip(30, "True", "False"),
  ]);
  assert.equal(conditionChangesSince(ring, 20), 2);
  assert.equal(conditionChangesSince(ring, 0), 3);
  assert.equal(conditionChangesSince(ring, 31), 0);
  assert.equal(conditionChangesSince(emptyRing, 0), 0);
});
