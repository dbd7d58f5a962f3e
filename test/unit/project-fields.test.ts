// Reading configured fields beyond conditions: paths, state fields, the
// suspend switch and extra labels. Malformed values read as absent.
import assert from "node:assert/strict";
import { test } from "node:test";
import { isRecord } from "../../src/core/json-record.ts";
import {
  extraLabels,
  isSuspended,
  type LabelSource,
  projectStates,
  readPath,
} from "../../src/core/project/fields.ts";
import { t } from "../support/objects.ts";

test("isRecord: plain objects only, not arrays, null or scalars", () => {
  assert.equal(isRecord({}), true);
  assert.equal(isRecord({ a: 1 }), true);
  assert.equal(isRecord([]), false);
  assert.equal(isRecord(null), false);
  assert.equal(isRecord("x"), false);
  assert.equal(isRecord(undefined), false);
});

test("readPath follows keys through objects; anything else on the way reads as undefined", () => {
  const raw = { status: { health: { status: "Healthy" }, list: [{ a: 1 }], n: 3 } };
  assert.equal(readPath(raw, ["status", "health", "status"]), "Healthy");
  assert.deepEqual(readPath(raw, []), raw);
  assert.equal(readPath(raw, ["status", "list", "0", "a"]), undefined);
  assert.equal(readPath(raw, ["status", "n", "x"]), undefined);
  assert.equal(readPath(raw, ["status", "missing", "x"]), undefined);
  assert.equal(readPath(null, ["status"]), undefined);
});

test("state fields: non-empty strings only, with a lastTransitionTime next to the field as their time", () => {
  const raw = {
    status: {
      health: { status: "Degraded", lastTransitionTime: "2026-01-01T00:00:00Z" },
      sync: { status: "Synced" },
      empty: { status: "" },
      number: { status: 3 },
    },
  };
  const sources = ["health", "sync", "empty", "number", "missing"].map((name) => ({
    name,
    path: ["status", name, "status"],
  }));
  assert.deepEqual(projectStates(raw, sources), [
    {
      name: "health",
      value: "Degraded",
      since: t("2026-01-01T00:00:00Z"),
      sinceSource: "lastTransitionTime",
    },
    { name: "sync", value: "Synced", since: undefined, sinceSource: undefined },
  ]);
});

test("suspended: the suspend field true or the strings true/on in any case; anything else is not", () => {
  const at = (suspend: unknown) =>
    isSuspended(
      { spec: { suspend } },
      {},
      { suspendPath: ["spec", "suspend"], suspendAnnotation: undefined },
    );
  for (const on of [true, "true", "True", "on", "ON"]) assert.equal(at(on), true, JSON.stringify(on));
  for (const off of [false, "false", "off", "yes", 1, undefined, null, {}])
    assert.equal(at(off), false, JSON.stringify(off));
  // No path configured: the field is not looked at.
  assert.equal(
    isSuspended({ spec: { suspend: true } }, {}, { suspendPath: undefined, suspendAnnotation: undefined }),
    false,
  );
});

test("suspended: the suspend annotation with any value but false/off (in any case)", () => {
  const settings = { suspendPath: ["spec", "suspend"], suspendAnnotation: "example.com/paused" };
  const at = (annotations: unknown) => isSuspended({ spec: { suspend: false } }, { annotations }, settings);
  for (const value of ["true", "on", "", "anything"])
    assert.equal(at({ "example.com/paused": value }), true, value);
  for (const value of ["false", "FALSE", "off", "Off"])
    assert.equal(at({ "example.com/paused": value }), false, value);
  assert.equal(
    at({ "example.com/paused": true }),
    false,
    "annotations are strings; anything else is malformed",
  );
  assert.equal(at({ "example.com/other": "true" }), false);
  assert.equal(at(undefined), false);
  assert.equal(at(["example.com/paused"]), false);
  // The annotation alone counts when no path is configured, and not when none is named.
  assert.equal(
    isSuspended(
      {},
      { annotations: { "example.com/paused": "true" } },
      { ...settings, suspendPath: undefined },
    ),
    true,
  );
  assert.equal(
    isSuspended(
      {},
      { annotations: { "example.com/paused": "true" } },
      { ...settings, suspendAnnotation: undefined },
    ),
    false,
  );
});

test("extra labels: from labels, annotations and scalar fields; anything else is the empty value", () => {
  const raw = {
    spec: { size: 3, suspend: true, ratio: 0.5, name: "x", nested: { a: 1 }, list: [1], nan: Number.NaN },
  };
  const metadata = { labels: { app: "shop", n: 1 }, annotations: { owner: "bob", app: "annotated" } };
  // [where from, key, label name, value read]
  const cases: [LabelSource["from"], string, string, string][] = [
    ["label", "app", "app", "shop"],
    ["annotation", "owner", "owner", "bob"],
    ["annotation", "app", "app_annotation", "annotated"],
    ["label", "owner", "owner_label", ""],
    ["label", "n", "n", ""],
    ["path", "spec.size", "size", "3"],
    ["path", "spec.suspend", "suspend", "true"],
    ["path", "spec.ratio", "ratio", "0.5"],
    ["path", "spec.name", "spec_name", "x"],
    ["path", "spec.nested", "nested", ""],
    ["path", "spec.list", "list", ""],
    ["path", "spec.nan", "nan", ""],
    ["path", "spec.missing", "missing", ""],
  ];
  assert.deepEqual(
    extraLabels(
      raw,
      metadata,
      cases.map(([from, key, name]) => ({ from, key, name })),
    ),
    Object.fromEntries(cases.map(([, , name, value]) => [name, value])),
  );
});

test("extra labels: labels or annotations that are not maps read as none", () => {
  assert.deepEqual(
    extraLabels({}, { labels: ["app"], annotations: "owner" }, [
      { key: "0", name: "app", from: "label" },
      { key: "0", name: "owner", from: "annotation" },
    ]),
    { app: "", owner: "" },
  );
});

test("extra labels: without any configured, every object shares one frozen empty record", () => {
  const a = extraLabels({}, { labels: { app: "shop" } }, []);
  assert.deepEqual(a, {});
  assert.equal(extraLabels({ spec: {} }, {}, []), a);
  assert.ok(Object.isFrozen(a));
});
