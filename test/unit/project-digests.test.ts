// The projection's digests and caps: which metadata changes the meta digest
// sees, what the status and spec digests ignore, where the condition list is
// cut, and how cut label values are counted.
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { maxLabelValueLength } from "../../src/core/label-values.ts";
import {
  asGeneration,
  defaultProjectionSettings,
  maxConditionsPerObject,
  ProjectionError,
  type ProjectionSettings,
  projectConditions,
  projectObject,
  specChangeTime,
  statusDigest,
} from "../../src/core/project/project.ts";
import { t, widget } from "../support/objects.ts";

const settings = defaultProjectionSettings;
const project = (raw: unknown, s: ProjectionSettings = settings) => projectObject(raw, s);
const meta = (metadata: Record<string, unknown>) =>
  project({ metadata: { uid: "u", name: "n", ...metadata } }).metaDigest;

describe("meta digest: what writes other than status writes change", () => {
  test("labels, annotations, finalizers, owners and deletion each change it; the same metadata does not", () => {
    const base = {
      labels: { app: "shop" },
      annotations: { note: "x" },
      finalizers: ["a", "b"],
      ownerReferences: [{ uid: "o1", controller: true, blockOwnerDeletion: true }],
    };
    const digest = meta(base);
    assert.equal(meta(structuredClone(base)), digest);
    const changes: [string, Record<string, unknown>][] = [
      ["a label value", { labels: { app: "cart" } }],
      ["a label key", { labels: { App: "shop" } }],
      ["a label added", { labels: { app: "shop", tier: "web" } }],
      ["an annotation value", { annotations: { note: "y" } }],
      ["a label moved to the annotations", { labels: {}, annotations: { note: "x", app: "shop" } }],
      ["a finalizer removed", { finalizers: ["a"] }],
      ["finalizers reordered", { finalizers: ["b", "a"] }],
      ["an owner's uid", { ownerReferences: [{ uid: "o2", controller: true, blockOwnerDeletion: true }] }],
      [
        "an owner's controller flag",
        { ownerReferences: [{ uid: "o1", controller: false, blockOwnerDeletion: true }] },
      ],
      [
        "an owner's blockOwnerDeletion",
        { ownerReferences: [{ uid: "o1", controller: true, blockOwnerDeletion: false }] },
      ],
      ["an owner added", { ownerReferences: [...base.ownerReferences, { uid: "o3" }] }],
      ["deletion", { deletionTimestamp: "2026-01-01T00:00:00Z" }],
    ];
    for (const [what, change] of changes) assert.notEqual(meta({ ...base, ...change }), digest, what);
  });

  test("content never passes unseen from one section to the next", () => {
    assert.notEqual(meta({ labels: { a: "x" } }), meta({ annotations: { x: "a" } }), "labels → annotations");
    // Each pair hashes the same pieces in the same order; only where a section starts tells them apart.
    assert.notEqual(
      meta({ annotations: { f: "o" } }),
      meta({ finalizers: ["f", "o"] }),
      "annotations → finalizers",
    );
    assert.notEqual(meta({ labels: { o: "1" } }), meta({ annotations: { o: "1" } }));
    assert.notEqual(
      meta({ finalizers: ["o1", "true", "false"] }),
      meta({ ownerReferences: [{ uid: "o1", controller: true, blockOwnerDeletion: false }] }),
      "finalizers → owners",
    );
  });

  test("long annotation values count by length only; up to 64 characters by content", () => {
    const at = (value: string) => meta({ annotations: { big: value } });
    assert.equal(at("a".repeat(65)), at("b".repeat(65)));
    assert.notEqual(at("a".repeat(65)), at("a".repeat(66)));
    assert.notEqual(at("a".repeat(64)), at(`${"a".repeat(63)}b`));
  });

  test("non-string values read as empty; malformed lists and owners add nothing", () => {
    assert.equal(meta({ labels: { app: 7 } }), meta({ labels: { app: "" } }));
    assert.equal(meta({ labels: ["x"] }), meta({}));
    assert.equal(meta({ finalizers: "a" }), meta({}));
    assert.equal(meta({ ownerReferences: "o" }), meta({}));
    assert.equal(meta({ ownerReferences: [null, "o"] }), meta({ ownerReferences: [] }));
  });

  test("the extra labels count, also when read from a field", () => {
    const s = { ...settings, extraLabels: [{ key: "spec.size", name: "size", from: "path" as const }] };
    const at = (size: number) => project({ metadata: { uid: "u", name: "n" }, spec: { size } }, s).metaDigest;
    assert.notEqual(at(1), at(2));
  });
});

describe("status digest", () => {
  const digest = (status: unknown, heartbeat?: string) => statusDigest(status, heartbeat?.split("."));

  test("values of different types differ: a string from a number, null from an empty string, a list from a map", () => {
    const values: unknown[] = ["1", 1, true, "true", null, "", "n", [], {}, [1], { 0: 1 }, "s"];
    const digests = values.map((v) => digest({ v }));
    assert.equal(new Set(digests).size, values.length);
    assert.equal(digest({ v: null }), digest({ v: undefined }));
    assert.notEqual(digest({ l: [null] }), digest({ l: [] }), "a null is a value");
    // Where a map ends is never in doubt, not even with an empty key.
    assert.notEqual(digest({ p: {}, s: 1, "": "1" }), digest({ p: { "": "1" }, s: 1 }));
    assert.notEqual(digest({ a: [] }), digest({ a: {} }));
    assert.notEqual(digest({ a: [[]] }), digest({ a: [{}] }));
  });

  test("a true field changed to false changes it", () => {
    assert.notEqual(digest({ ready: true }), digest({ ready: false }));
    assert.notEqual(digest({ l: [true] }), digest({ l: [false] }));
  });

  test("where a list or map starts and ends is part of it: the same items nested otherwise differ", () => {
    assert.notEqual(digest({ l: [[1], 2] }), digest({ l: [1, [], 2] }), "where a list starts");
    assert.notEqual(digest({ l: [[1], 2] }), digest({ l: [[1, 2]] }), "where a list ends");
    assert.notEqual(digest({ l: [{ 1: 2 }] }), digest({ l: [1, 2, {}] }), "where a map starts");
  });

  test("a list's items count in order; nested maps by key and value", () => {
    assert.notEqual(digest({ l: [1, 2] }), digest({ l: [2, 1] }));
    assert.notEqual(digest({ m: { a: 1 } }), digest({ m: { b: 1 } }));
    assert.notEqual(digest({ m: { a: 1 } }), digest({ m: { a: 2 } }));
    assert.notEqual(digest({ a: {}, b: 1 }), digest({ a: { b: 1 } }));
  });

  test("maps and lists deeper than 32 levels are not looked into; above, everything is", () => {
    const nest = (depth: number, leaf: unknown): unknown => {
      let node = leaf;
      for (let i = 0; i < depth; i++) node = { n: node };
      return node;
    };
    // The status itself is level 0; a scalar is read at any level, a map or list only above 32.
    assert.notEqual(digest(nest(32, 1)), digest(nest(32, 2)));
    assert.notEqual(digest(nest(31, { a: 1 })), digest(nest(31, { a: 2 })));
    assert.equal(digest(nest(32, { a: 1 })), digest(nest(32, { a: 2 })));
    assert.notEqual(digest(nest(31, [1])), digest(nest(31, [2])));
    assert.equal(digest(nest(32, [1])), digest(nest(32, [2])));
    assert.notEqual(digest(nest(30, [[1]])), digest(nest(30, [[2]])));
    assert.equal(digest(nest(31, [[1]])), digest(nest(31, [[2]])), "a list in a list counts a level too");
  });

  test("the heartbeat field is left out at its path only; a path outside status is not looked for in it", () => {
    const base = { a: { beat: 1, other: 1 }, beat: 1 };
    const same = (after: unknown, heartbeat: string) => digest(after, heartbeat) === digest(base, heartbeat);
    assert.equal(same({ ...base, a: { beat: 2, other: 1 } }, "status.a.beat"), true);
    assert.equal(same({ ...base, beat: 2 }, "status.a.beat"), false, "the same name elsewhere counts");
    assert.equal(same({ ...base, a: { beat: 1, other: 2 } }, "status.a.beat"), false, "a sibling counts");
    assert.equal(same({ ...base, beat: 2 }, "status.beat"), true);
    assert.equal(same({ ...base, a: { beat: 2, other: 1 } }, "status.beat"), false);
    assert.equal(same({ ...base, beat: 2 }, "spec.beat"), false, "not a status field");
    assert.equal(same({ ...base, beat: 2 }, "x.beat"), false);
    assert.equal(
      same({ a: [{ beat: 2, other: 1 }], beat: 1 }, "status.a.beat"),
      false,
      "lists are not on a path",
    );
  });
});

test("spec digest: kept only when asked for, and it follows the spec", () => {
  const s = { ...settings, specDigest: true };
  const at = (spec: unknown, o = s) => project({ metadata: { uid: "u", name: "n" }, spec }, o).specDigest;
  assert.equal(at({ size: 1 }, settings), undefined);
  assert.equal(typeof at({ size: 1 }), "number");
  assert.equal(at({ size: 1 }), at({ size: 1 }));
  assert.notEqual(at({ size: 1 }), at({ size: 2 }));
  // Volatile status names mean nothing in spec.
  assert.notEqual(at({ lastUpdateTime: "a" }), at({ lastUpdateTime: "b" }));
});

describe("conditions", () => {
  const entries = (n: number, prefix = "C") =>
    Array.from({ length: n }, (_, i) => ({ type: `${prefix}${i}`, status: "True" }));

  test("at most maxConditionsPerObject are kept; the rest are counted as cut, duplicates are not", () => {
    const cuts = { labelValues: 0, conditions: 0 };
    const kept = projectConditions(
      [...entries(maxConditionsPerObject), { type: "C0", status: "False" }, ...entries(2, "X")],
      256,
      cuts,
    );
    assert.equal(kept.length, maxConditionsPerObject);
    assert.equal(kept.at(-1)?.type, `C${maxConditionsPerObject - 1}`);
    assert.deepEqual(cuts, { labelValues: 0, conditions: 2 });
    assert.equal(
      projectConditions(entries(maxConditionsPerObject - 1), 256).length,
      maxConditionsPerObject - 1,
    );
  });

  test("statuses in any case; booleans; anything else Unknown", () => {
    const statuses = ["TRUE", "False", "unknown", "yes", "", false, true, null].map((status, i) => ({
      type: `S${i}`,
      status,
    }));
    assert.deepEqual(
      projectConditions(statuses, 256).map((c) => c.status),
      ["True", "False", "Unknown", "Unknown", "Unknown", "False", "True", "Unknown"],
    );
  });

  test("types and reasons are cut to the label value cap and counted; a long type cut to an existing one is a duplicate", () => {
    const long = "T".repeat(maxLabelValueLength + 10);
    const cuts = { labelValues: 0, conditions: 0 };
    const kept = projectConditions(
      [
        { type: long, status: "True", reason: "R".repeat(maxLabelValueLength + 1) },
        { type: `${long}x`, status: "False" },
        { type: "Ready", status: "True", reason: 5, message: 7 },
        { type: "", status: "True" },
        "junk",
      ],
      10,
      cuts,
    );
    assert.equal(kept.length, 2);
    assert.equal(kept[0]?.type.length, maxLabelValueLength);
    assert.equal(kept[0]?.reason.length, maxLabelValueLength);
    assert.equal(kept[0]?.status, "True", "the first of the duplicates");
    assert.deepEqual([kept[1]?.reason, kept[1]?.message], ["", ""]);
    assert.deepEqual(cuts, { labelValues: 3, conditions: 0 });
  });

  test("a condition without a lastTransitionTime has no since and no source for it", () => {
    const [withTime, without] = projectConditions(
      [
        { type: "A", status: "True", lastTransitionTime: "2026-01-01T00:00:00Z" },
        { type: "B", status: "True", lastTransitionTime: "not a time" },
      ],
      256,
    );
    assert.deepEqual(
      [withTime?.since, withTime?.sinceSource],
      [t("2026-01-01T00:00:00Z"), "lastTransitionTime"],
    );
    assert.deepEqual([without?.since, without?.sinceSource], [undefined, undefined]);
  });

  test("a condition's observedGeneration: a non-negative safe integer, else absent", () => {
    assert.equal(asGeneration(0), 0);
    assert.equal(asGeneration(7), 7);
    for (const bad of [-1, 1.5, 2 ** 53, "2", null, Number.NaN])
      assert.equal(asGeneration(bad), undefined, String(bad));
  });
});

describe("projectObject", () => {
  test("identity: uid and name must be non-empty strings; namespace and resourceVersion default to empty", () => {
    for (const metadata of [
      { uid: "", name: "n" },
      { uid: "u", name: "" },
      { uid: 1, name: "n" },
      { uid: "u" },
    ])
      assert.throws(() => project({ metadata }), ProjectionError, JSON.stringify(metadata));
    assert.throws(() => project({ metadata: [] }), /object has no metadata$/);
    assert.throws(() => project({ metadata: { uid: "u" } }), {
      message: "object has no metadata.uid or metadata.name",
    });
    assert.throws(() => project([{ metadata: { uid: "u", name: "n" } }]), ProjectionError);
    const state = project({ metadata: { uid: "u", name: "n" } });
    assert.deepEqual([state.namespace, state.resourceVersion, state.generation], ["", "", undefined]);
  });

  test("no conditions path, phase path or heartbeat path: none read", () => {
    const raw = widget({
      status: {
        conditions: [{ type: "Ready", status: "True" }],
        phase: "Running",
        beat: "2026-01-01T00:00:00Z",
      },
    });
    const state = project(raw, { ...settings, conditionsPath: undefined, phasePath: undefined });
    assert.deepEqual([state.conditions, state.phase, state.heartbeat], [[], undefined, undefined]);
    assert.equal(
      project(raw, { ...settings, heartbeatPath: ["status", "beat"] }).heartbeat,
      t("2026-01-01T00:00:00Z"),
    );
  });

  test("cut label values are counted over phase, states and extra labels; no cut, the shared empty count", () => {
    const long = "v".repeat(maxLabelValueLength + 1);
    const s: ProjectionSettings = {
      ...settings,
      states: [{ name: "health", path: ["status", "health", "status"] }],
      extraLabels: [{ key: "app", name: "app", from: "label" }],
    };
    const state = project(
      widget({ labels: { app: long }, status: { phase: long, health: { status: long } } }),
      s,
    );
    assert.deepEqual(state.cuts, { labelValues: 3, conditions: 0, unreadableValues: 0 });
    assert.equal(state.phase?.length, maxLabelValueLength);
    assert.equal(state.states[0]?.value.length, maxLabelValueLength);
    assert.equal(state.extraLabels.app?.length, maxLabelValueLength);
    const plain = project(widget({ labels: { app: "a" }, status: { phase: "Running" } }), s);
    assert.deepEqual(plain.cuts, { labelValues: 0, conditions: 0, unreadableValues: 0 });
    assert.equal(plain.cuts, project(widget(), s).cuts, "one shared frozen value");
    const many = project(
      widget({
        status: { conditions: Array.from({ length: 40 }, (_, i) => ({ type: `C${i}`, status: "True" })) },
      }),
      s,
    );
    assert.deepEqual(many.cuts, { labelValues: 0, conditions: 8, unreadableValues: 0 });
  });
});

test("specChangeTime: the newest spec write wins in any order; writes without a time or spec are skipped", () => {
  const write = (time: unknown, fields: unknown = { "f:spec": {} }, extra = {}) => ({
    time,
    fieldsV1: fields,
    ...extra,
  });
  assert.equal(
    specChangeTime([write("2026-01-01T00:10:00Z"), write("2026-01-01T00:05:00Z"), write("bad")]),
    t("2026-01-01T00:10:00Z"),
  );
  assert.equal(
    specChangeTime([write("2026-01-01T00:05:00Z"), write("2026-01-01T00:10:00Z")]),
    t("2026-01-01T00:10:00Z"),
  );
  assert.equal(specChangeTime([write("2026-01-01T00:05:00Z", "f:spec")]), undefined);
  assert.equal(specChangeTime([write("2026-01-01T00:05:00Z", {}, { subresource: "scale" })]), undefined);
  assert.equal(
    specChangeTime([write("2026-01-01T00:05:00Z", { "f:spec": {} }, { subresource: "" })]),
    t("2026-01-01T00:05:00Z"),
  );
  assert.equal(specChangeTime([]), undefined);
});
