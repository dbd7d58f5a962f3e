// Configured numeric fields (`values`, cr_value): Kubernetes quantities, and
// each way of reading a field; what is missing or unreadable yields nothing.
import assert from "node:assert/strict";
import { test } from "node:test";
import { parseQuantity, projectValues, type ValueKind } from "../../src/core/project/project.ts";

test("quantities: decimal and binary suffixes, exponents, signs; anything else is not one", () => {
  const cases: [string, number | undefined][] = [
    ["500m", 0.5],
    ["2", 2],
    ["1.5", 1.5],
    [".5", 0.5],
    ["2k", 2000],
    ["3M", 3e6],
    ["1G", 1e9],
    ["2Gi", 2 * 2 ** 30],
    ["1536Mi", 1536 * 2 ** 20],
    ["4Ki", 4096],
    ["1Ti", 2 ** 40],
    ["1e3", 1000],
    ["-2", -2],
    ["100n", 100e-9],
    ["5u", 5e-6],
    ["1Kb", undefined],
    ["ten", undefined],
    ["", undefined],
    ["1 Gi", undefined],
    ["Gi", undefined],
  ];
  for (const [text, expected] of cases) {
    const got = parseQuantity(text);
    if (expected === undefined) assert.equal(got, undefined, text);
    else
      assert.ok(
        got !== undefined && Math.abs(got - expected) <= Math.abs(expected) * 1e-12,
        `${text}: ${got}`,
      );
  }
});

test("each kind reads what it names; a missing or unreadable field has no value", () => {
  const object = {
    status: {
      count: 7,
      text: "12",
      flag: true,
      at: "2026-01-01T00:00:00Z",
      size: "2Gi",
      nested: { ready: 3 },
      nan: "NaN",
      list: [1],
    },
  };
  const read = (path: string, kind: ValueKind) =>
    projectValues(object, [{ name: "v", path: path.split("."), kind }])[0]?.value;
  assert.equal(read("status.count", "auto"), 7);
  assert.equal(read("status.count", "number"), 7);
  assert.equal(read("status.count", "quantity"), 7);
  assert.equal(read("status.count", "timestamp"), undefined);
  assert.equal(read("status.text", "number"), 12);
  assert.equal(read("status.text", "auto"), 12, "a numeric string is a quantity without suffix");
  assert.equal(read("status.flag", "auto"), 1);
  assert.equal(read("status.flag", "boolean"), 1);
  assert.equal(read("status.flag", "number"), undefined);
  assert.equal(read("status.at", "auto"), Date.parse("2026-01-01T00:00:00Z") / 1000);
  assert.equal(read("status.at", "quantity"), undefined);
  assert.equal(read("status.size", "auto"), 2 * 2 ** 30);
  assert.equal(read("status.size", "number"), undefined, "a quantity is not a plain number");
  assert.equal(read("status.size", "timestamp"), undefined);
  assert.equal(read("status.nested.ready", "auto"), 3);
  assert.equal(read("status.nan", "auto"), undefined);
  assert.equal(read("status.list", "auto"), undefined);
  assert.equal(read("status.missing", "auto"), undefined);
  assert.equal(read("spec.none.deeper", "auto"), undefined);
});

test("a value that is there but unreadable is handed back with why; absent and null ones are not", () => {
  const unread: { name: string; reason: string }[] = [];
  const values = projectValues(
    {
      status: { n: "three", at: 5, q: "2Gx", b: "yes", o: { x: 1 }, l: [1], z: null, long: "y".repeat(100) },
    },
    [
      { name: "n", path: ["status", "n"], kind: "number" },
      { name: "at", path: ["status", "at"], kind: "timestamp" },
      { name: "q", path: ["status", "q"], kind: "auto" },
      { name: "b", path: ["status", "b"], kind: "boolean" },
      { name: "o", path: ["status", "o"], kind: "auto" },
      { name: "l", path: ["status", "l"], kind: "quantity" },
      { name: "z", path: ["status", "z"], kind: "auto" },
      { name: "missing", path: ["status", "missing"], kind: "auto" },
      { name: "long", path: ["status", "long"], kind: "number" },
    ],
    (value) => unread.push(value),
  );
  assert.deepEqual(values, []);
  assert.deepEqual(unread, [
    { name: "n", reason: '"three" is not a number' },
    { name: "at", reason: "5 is not an RFC 3339 time" },
    { name: "q", reason: '"2Gx" is not a number, boolean, RFC 3339 time or quantity' },
    { name: "b", reason: '"yes" is not a boolean' },
    { name: "o", reason: "an object is not a number, boolean, RFC 3339 time or quantity" },
    { name: "l", reason: "a list is not a quantity" },
    { name: "long", reason: `"${"y".repeat(40)}" is not a number` },
  ]);
});

test("values keep the configuration's order and skip the unset ones", () => {
  const values = projectValues({ status: { a: 1, c: 3 } }, [
    { name: "c", path: ["status", "c"], kind: "auto" },
    { name: "b", path: ["status", "b"], kind: "auto" },
    { name: "a", path: ["status", "a"], kind: "auto" },
  ]);
  assert.deepEqual(values, [
    { name: "c", value: 3 },
    { name: "a", value: 1 },
  ]);
});

test("readings at their edges: RFC 3339 forms, quantity and number spellings, boolean strings", () => {
  const at = (value: unknown, kind: ValueKind) =>
    projectValues({ v: value }, [{ name: "v", path: ["v"], kind }])[0]?.value;
  const midnight = Date.parse("2026-01-01T00:00:00Z") / 1000;
  const cases: [unknown, ValueKind, number | undefined][] = [
    // Whole seconds, as every time the exporter reads.
    ["2026-01-01T00:00:00.123Z", "timestamp", midnight],
    ["2026-01-01T01:00:00+01:00", "timestamp", midnight],
    ["2025-12-31T23:00:00-01:00", "timestamp", midnight],
    ["2026-01-01t00:00:00z", "timestamp", midnight],
    [" 2026-01-01T00:00:00Z", "timestamp", undefined],
    ["2026-01-01T00:00:00Z ", "timestamp", undefined],
    ["2026-01-01T00:00:00", "timestamp", undefined],
    ["2026-01-01", "timestamp", undefined],
    ["x5", "quantity", undefined],
    ["5x", "quantity", undefined],
    [" 2Gi ", "quantity", 2 * 2 ** 30],
    [".55", "quantity", 0.55],
    ["1.25Gi", "quantity", 1.25 * 2 ** 30],
    ["12.5", "quantity", 12.5],
    ["1E3", "quantity", 1000],
    ["2E", "quantity", 2e18],
    ["1e-3", "quantity", 0.001],
    ["12", "number", 12],
    ["-3", "number", -3],
    ["12.5", "number", 12.5],
    [".25", "number", 0.25],
    ["1e3", "number", 1000],
    ["1e-3", "number", 0.001],
    ["1e10", "number", 1e10],
    ["x12", "number", undefined],
    ["12x", "number", undefined],
    ["1.2.3", "number", undefined],
    [7, "boolean", undefined],
    ["true", "boolean", 1],
    ["false", "boolean", 0],
    ["yes", "boolean", undefined],
    ["", "boolean", undefined],
    [false, "auto", 0],
  ];
  for (const [value, kind, expected] of cases) {
    const got = at(value, kind);
    if (expected === undefined) assert.equal(got, undefined, `${JSON.stringify(value)} as ${kind}`);
    else
      assert.ok(
        got !== undefined && Math.abs(got - expected) <= Math.abs(expected) * 1e-12,
        `${JSON.stringify(value)} as ${kind}: ${got}`,
      );
  }
});
