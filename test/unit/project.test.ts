import assert from "node:assert/strict";
import { describe, test } from "node:test";
import {
  defaultProjectionSettings,
  ProjectionError,
  projectObject,
  specChangeTime,
} from "../../src/core/project.ts";
import { statusChanged } from "../../src/core/transitions.ts";
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

  test("a status change means conditions, phase or generations; messages alone are not one", () => {
    const at = (status: Record<string, unknown>, resourceVersion: string) =>
      projectObject(widget({ resourceVersion, status }), settings);
    const base = at({ conditions: [cond("Ready", "False", undefined, { message: "a" })] }, "1");
    const message = at({ conditions: [cond("Ready", "False", undefined, { message: "b" })] }, "2");
    const reason = at({ conditions: [cond("Ready", "False", undefined, { reason: "Other" })] }, "3");
    assert.equal(statusChanged(base, message), false);
    assert.equal(statusChanged(base, reason), true);
    const running = at(
      { phase: "Running", conditions: [cond("Ready", "False", undefined, { message: "a" })] },
      "4",
    );
    assert.equal(statusChanged(base, running), true);
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
