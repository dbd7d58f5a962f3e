// Times the exporter remembers for conditions and state fields that carry no
// lastTransitionTime: when it first saw each in its current status (or value),
// carried while that holds, "since exporter start" for what was already there.
import assert from "node:assert/strict";
import { test } from "node:test";
import { rememberTimes } from "../../src/core/judge/condition-times.ts";
import { defaultProjectionSettings, projectObject } from "../../src/core/project/project.ts";
import type { ObjectState } from "../../src/core/state.ts";
import { t, widget } from "../support/objects.ts";

const settings = {
  ...defaultProjectionSettings,
  states: [{ name: "health", path: ["status", "health", "status"] }],
};
const T0 = t("2026-01-01T00:00:00Z");

/** An object with the given conditions (type → status, optional lastTransitionTime) and health value. */
function observed(conditions: [string, string, string?][], health?: string): ObjectState {
  return projectObject(
    widget({
      status: {
        conditions: conditions.map(([type, status, at]) => ({
          type,
          status,
          ...(at ? { lastTransitionTime: at } : {}),
        })),
        ...(health ? { health: { status: health } } : {}),
      },
    }),
    settings,
  );
}

const times = (s: ObjectState) => [
  ...s.conditions.map((c) => [c.type, c.since, c.sinceSource]),
  ...s.states.map((v) => [v.name, v.since, v.sinceSource]),
];

test("first sight while watching: now, in whole seconds, first_seen", () => {
  const state = observed([["Ready", "False"]], "Degraded");
  rememberTimes(undefined, state, T0 + 0.75, false);
  assert.deepEqual(times(state), [
    ["Ready", T0, "first_seen"],
    ["health", T0, "first_seen"],
  ]);
});

test("first sight in the start-up list: since exporter start", () => {
  const state = observed([["Ready", "False"]], "Degraded");
  rememberTimes(undefined, state, T0, true);
  assert.deepEqual(times(state), [
    ["Ready", T0, "exporter_start"],
    ["health", T0, "exporter_start"],
  ]);
});

test("an object seen before is never 'since exporter start', even during the start-up list", () => {
  const before = observed([]);
  rememberTimes(undefined, before, T0, true);
  const state = observed([["Ready", "False"]], "Degraded");
  rememberTimes(before, state, T0 + 60, true);
  assert.deepEqual(times(state), [
    ["Ready", T0 + 60, "first_seen"],
    ["health", T0 + 60, "first_seen"],
  ]);
});

test("the remembered time and its source are carried while status and value hold", () => {
  const before = observed([["Ready", "False"]], "Degraded");
  rememberTimes(undefined, before, T0, true);
  const state = observed([["Ready", "False"]], "Degraded");
  rememberTimes(before, state, T0 + 60, false);
  assert.deepEqual(times(state), [
    ["Ready", T0, "exporter_start"],
    ["health", T0, "exporter_start"],
  ]);
});

test("a new status or value starts a new time; another condition's or field's time is not borrowed", () => {
  const before = observed([["Ready", "False"]], "Degraded");
  rememberTimes(undefined, before, T0, false);
  const state = observed(
    [
      ["Ready", "True"],
      ["Synced", "False"],
    ],
    "Healthy",
  );
  rememberTimes(before, state, T0 + 60, false);
  assert.deepEqual(times(state), [
    ["Ready", T0 + 60, "first_seen"],
    ["Synced", T0 + 60, "first_seen"],
    ["health", T0 + 60, "first_seen"],
  ]);
});

test("a time from the API is never carried as the exporter's: a condition that loses its lastTransitionTime gets now", () => {
  const before = observed([["Ready", "False", "2025-12-31T00:00:00Z"]]);
  assert.equal(before.conditions[0]?.sinceSource, "lastTransitionTime");
  const state = observed([["Ready", "False"]]);
  rememberTimes(before, state, T0, false);
  assert.deepEqual(times(state), [["Ready", T0, "first_seen"]]);
});

test("a previous entry with no time carries none: now is taken instead", () => {
  const before = observed([["Ready", "False"]], "Degraded");
  const state = observed([["Ready", "False"]], "Degraded");
  rememberTimes(before, state, T0, false);
  assert.deepEqual(times(state), [
    ["Ready", T0, "first_seen"],
    ["health", T0, "first_seen"],
  ]);
});

test("a lastTransitionTime of its own is left as it is", () => {
  const state = observed([["Ready", "True", "2025-12-31T00:00:00Z"]]);
  state.states = [{ name: "health", value: "Healthy", since: T0 - 5, sinceSource: "lastTransitionTime" }];
  rememberTimes(undefined, state, T0, true);
  assert.deepEqual(times(state), [
    ["Ready", t("2025-12-31T00:00:00Z"), "lastTransitionTime"],
    ["health", T0 - 5, "lastTransitionTime"],
  ]);
});
