import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { statusChanged } from "../../src/core/change/transitions.ts";
import {
  defaultProjectionSettings,
  ProjectionError,
  projectConditions,
  projectObject,
  specChangeTime,
} from "../../src/core/project/project.ts";
import { cond, t, widget } from "../support/objects.ts";

const settings = defaultProjectionSettings;

describe("projectObject", () => {
  test("reads identity, generations, phase and conditions", () => {
    const state = projectObject(
      widget({
        generation: 3,
        status: {
          observedGeneration: 2,
          phase: "Running",
          conditions: [
            cond("Ready", "True", "2026-01-01T00:05:00Z", { observedGeneration: 2, reason: "Done" }),
          ],
        },
      }),
      settings,
    );
    assert.equal(state.uid, "uid-w1");
    assert.equal(state.namespace, "ns1");
    assert.equal(state.generation, 3);
    assert.equal(state.observedGeneration, 2);
    assert.equal(state.phase, "Running");
    assert.equal(state.creationTimestamp, t("2026-01-01T00:00:00Z"));
    assert.deepEqual(state.conditions, [
      {
        type: "Ready",
        status: "True",
        reason: "Done",
        message: "",
        lastTransitionTime: t("2026-01-01T00:05:00Z"),
        since: t("2026-01-01T00:05:00Z"),
        sinceSource: "lastTransitionTime",
        observedGeneration: 2,
      },
    ]);
  });

  const malformed: [string, unknown, (s: ReturnType<typeof projectObject>) => void][] = [
    ["conditions not a list", { conditions: { type: "Ready" } }, (s) => assert.deepEqual(s.conditions, [])],
    [
      "condition without type is skipped",
      { conditions: [{ status: "True" }, cond("Ready", "False")] },
      (s) =>
        assert.deepEqual(
          s.conditions.map((c) => c.type),
          ["Ready"],
        ),
    ],
    [
      "duplicate types: the first wins",
      { conditions: [cond("Ready", "True"), cond("Ready", "False")] },
      (s) => assert.equal(s.conditions[0]?.status, "True"),
    ],
    [
      "non-string status becomes Unknown, booleans map to True/False",
      {
        conditions: [
          { type: "A", status: 1 },
          { type: "B", status: true },
          { type: "C", status: "false" },
        ],
      },
      (s) =>
        assert.deepEqual(
          s.conditions.map((c) => c.status),
          ["Unknown", "True", "False"],
        ),
    ],
    [
      "bad lastTransitionTime is absent",
      { conditions: [{ type: "A", status: "True", lastTransitionTime: "yesterday" }] },
      (s) => assert.equal(s.conditions[0]?.lastTransitionTime, undefined),
    ],
    [
      "negative observedGeneration is absent",
      { observedGeneration: -1 },
      (s) => assert.equal(s.observedGeneration, undefined),
    ],
    [
      "string observedGeneration is absent",
      { observedGeneration: "2" },
      (s) => assert.equal(s.observedGeneration, undefined),
    ],
    ["empty phase is absent", { phase: "" }, (s) => assert.equal(s.phase, undefined)],
    ["phase that is not a string is absent", { phase: 7 }, (s) => assert.equal(s.phase, undefined)],
    [
      "huge message is truncated",
      { conditions: [{ type: "A", status: "True", message: "x".repeat(10_000) }] },
      (s) => assert.equal(s.conditions[0]?.message.length, 256),
    ],
  ];
  for (const [name, status, check] of malformed) {
    test(`malformed status: ${name}`, () =>
      check(projectObject(widget({ status: status as Record<string, unknown> }), settings)));
  }

  test("an object without uid or name is a ProjectionError", () => {
    assert.throws(() => projectObject({ metadata: { name: "x" } }, settings), ProjectionError);
    assert.throws(() => projectObject("nope", settings), ProjectionError);
    assert.throws(() => projectObject(null, settings), ProjectionError);
  });

  test("custom paths and heartbeat", () => {
    const state = projectObject(
      widget({
        status: { health: { conds: [cond("Healthy", "True")] }, beat: "2026-01-01T01:00:00Z", state: "Up" },
      }),
      {
        ...settings,
        conditionsPath: ["status", "health", "conds"],
        phasePath: ["status", "state"],
        heartbeatPath: ["status", "beat"],
      },
    );
    assert.equal(state.conditions[0]?.type, "Healthy");
    assert.equal(state.phase, "Up");
    assert.equal(state.heartbeat, t("2026-01-01T01:00:00Z"));
  });

  test("extra labels come from allow-listed labels and annotations only", () => {
    const state = projectObject(
      widget({ labels: { team: "a", secret: "x" }, annotations: { owner: "bob" } }),
      {
        ...settings,
        extraLabels: [
          { key: "team", name: "team", from: "label" },
          { key: "owner", name: "owner", from: "annotation" },
          { key: "missing", name: "missing", from: "label" },
        ],
      },
    );
    assert.deepEqual(state.extraLabels, { team: "a", owner: "bob", missing: "" });
  });
});

// Which status fields are volatile: a write that changes only them is a no-op
// status write; any other change of status is a status update.
describe("statusChanged: volatile timestamps aside, any change of status counts", () => {
  const base = {
    observedGeneration: 1,
    phase: "Running",
    replicas: 3,
    lastHeartbeatTime: "2026-01-01T00:00:00Z",
    conditions: [
      {
        ...cond("Ready", "True", "2026-01-01T00:01:00Z", { message: "3/3 up" }),
        lastUpdateTime: "2026-01-01T00:01:00Z",
        lastProbeTime: "2026-01-01T00:01:00Z",
        lastHeartbeatTime: "2026-01-01T00:01:00Z",
      },
    ],
    summary: { reconciledAt: "2026-01-01T00:01:00Z", lastReconcileTime: "2026-01-01T00:01:00Z" },
  };
  const later = "2026-01-01T00:09:00Z";
  const withCondition = (fields: Record<string, unknown>) => ({
    ...base,
    conditions: [{ ...base.conditions[0], ...fields }],
  });
  // [what changed, status after, counts as a change, heartbeatField]
  const cases: [string, Record<string, unknown>, boolean, string | undefined][] = [
    ["nothing (a resourceVersion alone)", base, false, undefined],
    ["a condition's lastUpdateTime", withCondition({ lastUpdateTime: later }), false, undefined],
    ["a condition's lastProbeTime", withCondition({ lastProbeTime: later }), false, undefined],
    ["a condition's lastHeartbeatTime", withCondition({ lastHeartbeatTime: later }), false, undefined],
    ["status.lastHeartbeatTime", { ...base, lastHeartbeatTime: later }, false, undefined],
    [
      "a nested reconciledAt",
      { ...base, summary: { ...base.summary, reconciledAt: later } },
      false,
      undefined,
    ],
    [
      "a nested lastReconcileTime",
      { ...base, summary: { ...base.summary, lastReconcileTime: later } },
      false,
      undefined,
    ],
    ["the configured heartbeatField", { ...base, beat: later }, false, "status.beat"],
    [
      "a field named like the heartbeatField elsewhere",
      { ...base, other: { beat: later } },
      true,
      "status.beat",
    ],
    ["a condition's message (progress text)", withCondition({ message: "2/3 up" }), true, undefined],
    ["a condition's reason", withCondition({ reason: "Scaling" }), true, undefined],
    ["a condition's status", withCondition({ status: "False" }), true, undefined],
    ["a condition's lastTransitionTime", withCondition({ lastTransitionTime: later }), true, undefined],
    ["a condition's observedGeneration", withCondition({ observedGeneration: 2 }), true, undefined],
    ["the phase", { ...base, phase: "Degraded" }, true, undefined],
    ["observedGeneration", { ...base, observedGeneration: 2 }, true, undefined],
    ["a field the exporter does not read", { ...base, replicas: 2 }, true, undefined],
    ["a number by a fraction", { ...base, replicas: 3.5 }, true, undefined],
    ["a field added", { ...base, lastAppliedRevision: "abc" }, true, undefined],
    [
      "a condition added",
      { ...base, conditions: [...base.conditions, cond("Synced", "True")] },
      true,
      undefined,
    ],
  ];
  for (const [what, after, changed, heartbeatField] of cases) {
    test(`${what}: ${changed ? "a status update" : "unchanged (no-op)"}`, () => {
      const s = { ...settings, heartbeatPath: heartbeatField?.split(".") };
      // Keys in the same order: the API server writes them sorted (Go maps).
      const before = projectObject(widget({ resourceVersion: "1", status: { beat: "t0", ...base } }), s);
      const next = projectObject(widget({ resourceVersion: "2", status: { beat: "t0", ...after } }), s);
      assert.equal(statusChanged(before, next), changed);
    });
  }

  test("a very deep status never throws; below the depth bound it is not looked at", () => {
    let deep: Record<string, unknown> = { leaf: 1 };
    for (let i = 0; i < 10_000; i++) deep = { inner: deep };
    const state = projectObject(widget({ status: deep }), settings);
    assert.equal(typeof state.statusDigest, "number");
  });
});

describe("specChangeTime", () => {
  test("newest main-resource write that touched spec; status subresource writes ignored", () => {
    const fields = [
      { manager: "kubectl", operation: "Update", time: "2026-01-01T00:00:00Z", fieldsV1: { "f:spec": {} } },
      {
        manager: "kubectl",
        operation: "Update",
        time: "2026-01-01T00:10:00Z",
        fieldsV1: { "f:spec": { "f:size": {} } },
      },
      {
        manager: "ctrl",
        operation: "Update",
        time: "2026-01-01T00:20:00Z",
        subresource: "status",
        fieldsV1: { "f:status": {} },
      },
      {
        manager: "labeler",
        operation: "Update",
        time: "2026-01-01T00:30:00Z",
        fieldsV1: { "f:metadata": {} },
      },
    ];
    assert.equal(specChangeTime(fields), t("2026-01-01T00:10:00Z"));
    assert.equal(specChangeTime("garbage"), undefined);
    assert.equal(specChangeTime([null, 1, { time: 5 }]), undefined);
  });
});

test("projected conditions are kept in an array of their own length, not the room pushing leaves", () => {
  setFlagsFromString("--expose-gc");
  const gc = runInNewContext("gc") as () => void;
  const raw = ["Ready", "Synced", "Available", "Progressing"].map((type) => ({
    type,
    status: "True",
    reason: "R",
  }));
  const heapOf = (make: () => unknown): number => {
    gc();
    const before = process.memoryUsage().heapUsed;
    const all = Array.from({ length: 20_000 }, make);
    gc();
    assert.equal(all.length, 20_000);
    return (process.memoryUsage().heapUsed - before) / all.length;
  };
  // map() allocates exactly its length; an array pushed to holds room for 16 (104 bytes more for 4).
  const extra =
    heapOf(() => projectConditions(raw, 256)) - heapOf(() => projectConditions(raw, 256).map((c) => c));
  assert.ok(extra < 48, `${extra.toFixed(1)} B per object over an exact array`);
});

test("objects without conditions, state fields or values share one frozen empty array for each", () => {
  const withSources = {
    ...settings,
    states: [{ name: "health", path: ["status", "health"] }],
    values: [{ name: "replicas", path: ["status", "replicas"], kind: "auto" as const }],
  };
  const a = projectObject(widget({ name: "a", status: { conditions: [] } }), withSources);
  const b = projectObject(widget({ name: "b" }), withSources);
  for (const field of ["conditions", "states", "values"] as const) {
    assert.deepEqual(a[field], [], field);
    assert.equal(a[field], b[field], `${field}: one array`);
    assert.ok(Object.isFrozen(a[field]), `${field}: frozen`);
  }
  const some = projectObject(
    widget({ status: { conditions: [cond("Ready", "True")], health: "Healthy" } }),
    withSources,
  );
  assert.equal(some.conditions.length, 1);
  assert.deepEqual(
    some.states.map((s) => s.value),
    ["Healthy"],
  );
});

test("unreadable values are counted in the object's cuts with the first one and why; readable ones cut nothing", () => {
  const withValues = {
    ...settings,
    values: [
      { name: "replicas", path: ["status", "replicas"], kind: "number" as const },
      { name: "expiry", path: ["status", "expiry"], kind: "timestamp" as const },
      { name: "ready", path: ["status", "ready"], kind: "auto" as const },
    ],
  };
  const bad = projectObject(widget({ status: { replicas: "three", expiry: "soon", ready: 2 } }), withValues);
  assert.deepEqual(bad.values, [{ name: "ready", value: 2 }]);
  assert.equal(bad.cuts.unreadableValues, 2);
  assert.deepEqual(bad.cuts.firstUnreadable, { name: "replicas", reason: '"three" is not a number' });
  const good = projectObject(widget({ status: { replicas: 3 } }), withValues);
  assert.equal(good.cuts.unreadableValues, 0);
  assert.equal(good.cuts, projectObject(widget({ name: "other" }), withValues).cuts, "one shared empty cut");
});
