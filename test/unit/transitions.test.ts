import assert from "node:assert/strict";
import { test } from "node:test";
import { diffStates } from "../../src/core/change/transitions.ts";
import { defaultProjectionSettings, projectObject } from "../../src/core/project/project.ts";
import type { Transition } from "../../src/core/state.ts";
import { cond, t, type WidgetInit, widget } from "../support/objects.ts";

const p = (init: WidgetInit) => projectObject(widget(init), defaultProjectionSettings);
const kinds = (ts: Transition[]) => ts.map((x) => x.kind);
const now = t("2026-01-01T01:00:00Z");

test("first observation is a creation at creationTimestamp", () => {
  assert.deepEqual(diffStates(undefined, p({}), now), [{ kind: "created", at: t("2026-01-01T00:00:00Z") }]);
});

test("same resourceVersion: nothing happened (a relist replaying an unchanged object)", () => {
  const a = p({ status: { phase: "Running" } });
  assert.deepEqual(diffStates(a, p({ status: { phase: "Running" } }), now), []);
});

test("condition change carries from/to, its lastTransitionTime and the time it entered the old status", () => {
  const before = p({
    resourceVersion: "1",
    status: { conditions: [cond("Ready", "False", "2026-01-01T00:01:00Z")] },
  });
  const after = p({
    resourceVersion: "2",
    status: { conditions: [cond("Ready", "True", "2026-01-01T00:03:00Z", { reason: "Ok" })] },
  });
  const ts = diffStates(before, after, now);
  assert.deepEqual(ts[0], {
    kind: "condition",
    type: "Ready",
    from: "False",
    to: "True",
    at: t("2026-01-01T00:03:00Z"),
    since: t("2026-01-01T00:01:00Z"),
    reason: "Ok",
    message: "",
  });
  assert.deepEqual(kinds(ts), ["condition", "statusWrite"]);
  assert.equal((ts[1] as { noop: boolean }).noop, false);
});

test("a write that changed only volatile timestamps is a no-op status write", () => {
  const before = p({
    resourceVersion: "1",
    status: { conditions: [cond("Ready", "True", undefined, { lastUpdateTime: "2026-01-01T00:01:00Z" })] },
  });
  const after = p({
    resourceVersion: "2",
    status: { conditions: [cond("Ready", "True", undefined, { lastUpdateTime: "2026-01-01T00:02:00Z" })] },
  });
  assert.deepEqual(diffStates(before, after, now), [{ kind: "statusWrite", noop: true, at: now }]);
});

test("a write that changed only a condition's message is a status update", () => {
  const before = p({
    resourceVersion: "1",
    status: { conditions: [cond("Ready", "True", undefined, { message: "at 1" })] },
  });
  const after = p({
    resourceVersion: "2",
    status: { conditions: [cond("Ready", "True", undefined, { message: "at 2" })] },
  });
  assert.deepEqual(diffStates(before, after, now), [{ kind: "statusWrite", noop: false, at: now }]);
});

test("a metadata-only write is neither a status update nor a no-op", () => {
  const before = p({ resourceVersion: "1", labels: { a: "1" } });
  const after = p({ resourceVersion: "2", labels: { a: "2" } });
  assert.deepEqual(diffStates(before, after, now), []);
});

test("spec change: generation transition at the managedFields spec-write time", () => {
  const before = p({ resourceVersion: "1", generation: 1 });
  const after = p({
    resourceVersion: "2",
    generation: 2,
    managedFields: [
      { manager: "k", operation: "Update", time: "2026-01-01T00:30:00Z", fieldsV1: { "f:spec": {} } },
    ],
  });
  assert.deepEqual(diffStates(before, after, now), [
    { kind: "generation", from: 1, to: 2, at: t("2026-01-01T00:30:00Z"), specChanged: true },
  ]);
});

test("without a status subresource, a status write bumps generation: the spec digest tells it from a spec change", () => {
  const noSubresource = { ...defaultProjectionSettings, specDigest: true };
  const q = (init: WidgetInit, spec: Record<string, unknown> = { size: 1 }) =>
    projectObject({ ...widget(init), spec }, noSubresource);
  const before = q({ resourceVersion: "1", generation: 1, status: { phase: "Running" } });
  const statusWrite = q({ resourceVersion: "2", generation: 2, status: { phase: "Failed" } });
  assert.deepEqual(diffStates(before, statusWrite, now), [
    { kind: "generation", from: 1, to: 2, at: now, specChanged: false },
    { kind: "phase", from: "Running", to: "Failed", at: now },
    { kind: "statusWrite", noop: false, at: now },
  ]);
  const restamp = q({ resourceVersion: "3", generation: 3, status: { phase: "Failed" } });
  assert.deepEqual(
    diffStates(statusWrite, restamp, now).map((x) => [
      x.kind,
      "noop" in x ? x.noop : x.kind === "generation" && x.specChanged,
    ]),
    [
      ["generation", false],
      ["statusWrite", true],
    ],
    "an unchanged status written again: a no-op write, not a spec change",
  );
  const specWrite = q({ resourceVersion: "4", generation: 4, status: { phase: "Failed" } }, { size: 2 });
  assert.deepEqual(diffStates(restamp, specWrite, now), [
    { kind: "generation", from: 3, to: 4, at: now, specChanged: true },
  ]);
});

test("condition removed, phase changed, terminating", () => {
  const before = p({
    resourceVersion: "1",
    status: { phase: "Running", conditions: [cond("Degraded", "True")] },
  });
  const after = p({
    resourceVersion: "2",
    deletionTimestamp: "2026-01-01T00:50:00Z",
    status: { phase: "Terminating" },
  });
  assert.deepEqual(kinds(diffStates(before, after, now)).sort(), [
    "condition",
    "phase",
    "statusWrite",
    "terminating",
  ]);
});

test("a coalesced jump (relist after a gap) yields the net change once", () => {
  const before = p({ resourceVersion: "1", status: { conditions: [cond("Ready", "False")] } });
  const after = p({
    resourceVersion: "9",
    status: { conditions: [cond("Ready", "True", "2026-01-01T00:40:00Z")] },
  });
  assert.equal(diffStates(before, after, now).filter((x) => x.kind === "condition").length, 1);
});

test("removed condition, phase and terminating transitions carry exactly what was known", () => {
  const before = p({
    resourceVersion: "1",
    status: { phase: "Running", conditions: [cond("Degraded", "True", "2026-01-01T00:20:00Z")] },
  });
  const after = p({
    resourceVersion: "2",
    deletionTimestamp: "2026-01-01T00:50:00Z",
    status: { phase: "Gone" },
  });
  const byKind = Object.fromEntries(diffStates(before, after, now).map((x) => [x.kind, x]));
  assert.deepEqual(byKind.condition, {
    kind: "condition",
    type: "Degraded",
    from: "True",
    to: undefined,
    at: now,
    since: t("2026-01-01T00:20:00Z"),
    reason: "",
    message: "",
  });
  assert.deepEqual(byKind.phase, { kind: "phase", from: "Running", to: "Gone", at: now });
  assert.deepEqual(byKind.terminating, { kind: "terminating", at: t("2026-01-01T00:50:00Z") });
});

test("terminating is a transition once: later writes to a terminating object do not repeat it", () => {
  const first = p({
    resourceVersion: "2",
    deletionTimestamp: "2026-01-01T00:50:00Z",
    status: { phase: "A" },
  });
  const second = p({
    resourceVersion: "3",
    deletionTimestamp: "2026-01-01T00:50:00Z",
    status: { phase: "B" },
  });
  assert.deepEqual(kinds(diffStates(first, second, now)).sort(), ["phase", "statusWrite"]);
});

test("an observedGeneration change is a transition from the old to the new value", () => {
  const before = p({ resourceVersion: "1", generation: 2, status: { observedGeneration: 1 } });
  const after = p({ resourceVersion: "2", generation: 2, status: { observedGeneration: 2 } });
  assert.deepEqual(
    diffStates(before, after, now).filter((x) => x.kind === "observedGeneration"),
    [{ kind: "observedGeneration", from: 1, to: 2, at: now }],
  );
});

test("objects without a resourceVersion are never taken for a replay: each version is compared", () => {
  const raw = (phase: string) => {
    const o = widget({ status: { phase } });
    delete (o.metadata as Record<string, unknown>).resourceVersion;
    return projectObject(o, defaultProjectionSettings);
  };
  const before = raw("Pending");
  assert.equal(before.resourceVersion, "");
  assert.deepEqual(kinds(diffStates(before, raw("Running"), now)).sort(), ["phase", "statusWrite"]);
});
