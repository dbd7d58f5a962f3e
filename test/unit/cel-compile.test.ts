// The compiled CEL program (src/cel/compile.ts) as docs/configuration.md#cel
// describes it: the cost limit's arithmetic at its boundary, integral numbers
// as ints, the names an expression may use, the length limit, and the text of
// a result the field does not take.
import assert from "node:assert/strict";
import { test } from "node:test";
import { compileCel, failureOf } from "../../src/cel/compile.ts";

/** docs/configuration.md#cel: "Past 1,000,000 units the evaluation stops with cost_limit." */
const documentedLimit = 1_000_000;
const overLimit = { ok: false, reason: "cost_limit", message: `cost limit of ${documentedLimit} exceeded` };

function evaluate(source: string, object: Record<string, unknown>, purpose: "readiness" | "value" = "value") {
  const compiled = compileCel(source, purpose);
  if ("problem" in compiled) throw new Error(`${source}: ${compiled.problem}`);
  return compiled.program.evaluate(object);
}

const text = (length: number) => ({ status: { text: "x".repeat(length) } });
const list = (length: number) => ({ status: { items: Array.from({ length }, (_, i) => i) } });
const withK = (length: number) => ({ status: { k: 1, s: "ab", items: list(length).status.items } });
const map = (size: number) => ({
  status: { byName: Object.fromEntries(Array.from({ length: size }, (_, i) => [`k${i}`, i])) },
});

/**
 * The largest object the expression runs on and the next size up, which it
 * does not: a call costs 1 plus its arguments' sizes (a string's length, a
 * list's or map's entries, deeply for ==, != and in, where each entry counts
 * 1 plus its own size), a comprehension its range's size times its body's
 * expression nodes.
 */
const boundaries: [string, string, (n: number) => Record<string, unknown>, number, unknown][] = [
  // contains: 1 + the string's length + the argument's 1 character.
  ["a string's length", "object.status.text.contains('y')", text, documentedLimit - 2, 0],
  // bytes(): 1 + length; size(): 1 + the bytes' length.
  ["a bytes value's length", "size(bytes(object.status.text))", text, documentedLimit / 2 - 1, 499_999],
  // size(): 1 + the list's entries (not deep).
  ["a list's entries", "size(object.status.items)", list, documentedLimit - 1, 999_999],
  // in: 1 + 1 for the int + the list deeply (each int entry 1 + 1).
  ["in, deeply", "1 in object.status.items", list, documentedLimit / 2 - 1, 1],
  // ==, !=: 1 + both lists deeply.
  ["==, deeply", "object.status.items == object.status.items", list, documentedLimit / 4 - 1, 1],
  ["!=, deeply", "object.status.items != object.status.items", list, documentedLimit / 4 - 1, 0],
  ["== over maps, deeply", "object.status.byName == object.status.byName", map, documentedLimit / 4 - 1, 1],
  // all(x, true): 1 + the range's size times 5 nodes (the loop condition's 2, the step's 3).
  ["a comprehension's range times its body", "object.status.items.all(x, true)", list, 199_999, 1],
  // Each iteration: 9 nodes (the condition's 2; the step's && 1, __result__ 1, == 1, a select chain of 3, 1)
  // and the == call's 3: 1 + 12n.
  // 9 nodes (a method call: itself 1, its target's select chain 3, its argument 1; && 2; condition 2) and the
  // startsWith call's 1 + 2 characters + 1: 1 + 13n.
  ["a body's method call", "object.status.items.all(x, object.status.s.startsWith('a'))", withK, 76_923, 1],
  ["a body's field selections", "object.status.items.all(x, object.status.k == 1)", withK, 83_333, 1],
  // 11 nodes (a list literal of x and a one-entry map literal: 5, the empty list 1, != 1, && 2, condition 2)
  // and != over [x, {'a': x}] deeply (6): 1 + 17n.
  ["a body's list and map literals", "object.status.items.all(x, [x, {'a': x}] != [])", list, 58_823, 1],
  // 11 nodes (the inner comprehension: itself, its charged range of 4, its init and result; && 2; condition 2)
  // and the inner range's charge, 1 + 1 × 5: 1 + 17n.
  ["a comprehension in a body", "object.status.items.all(x, [1].all(y, true))", list, 58_823, 1],
];

for (const [what, source, object, largest, value] of boundaries) {
  test(`the cost limit at its boundary: ${what} (${source})`, () => {
    assert.deepEqual(evaluate(source, object(largest)), { ok: true, value }, `${largest}`);
    assert.deepEqual(evaluate(source, object(largest + 1)), overLimit, `${largest + 1}`);
  });
}

test("past the budget the result does not count, even when || would absorb the error", () => {
  const source = "object.status.text.contains('y') || true";
  // 1 + length + 1 for contains, then || absorbs nothing: the limit was passed.
  assert.deepEqual(evaluate(source, text(documentedLimit - 2)), { ok: true, value: 1 });
  assert.deepEqual(evaluate(source, text(documentedLimit - 1)), overLimit);
  assert.deepEqual(evaluate(source, text(documentedLimit - 1), "readiness"), overLimit);
});

test("each evaluation has the whole budget: a stopped one does not leave less for the next", () => {
  const source = "object.status.text.contains('y')";
  const near = text(documentedLimit - 2);
  for (let i = 0; i < 3; i++) {
    assert.deepEqual(evaluate(source, near), { ok: true, value: 0 }, `round ${i}`);
    assert.deepEqual(evaluate(source, text(documentedLimit)), overLimit, `round ${i}`);
  }
});

test("integral JSON numbers are ints, in lists and maps too; beyond 2^53 they are doubles", () => {
  const object = { status: { n: 3, ratio: 0.5, big: 2 ** 60, items: [1, 2], nested: { a: 4 } } };
  const cases: [string, unknown][] = [
    ["object.status.n + 1", { ok: true, value: 4 }],
    ["object.status.items[1] + 1", { ok: true, value: 3 }],
    ["object.status.nested.a + 1", { ok: true, value: 5 }],
    ["object.status.ratio + 1.0", { ok: true, value: 1.5 }],
    ["object.status.big + 1.0", { ok: true, value: 2 ** 60 + 1 }],
  ];
  for (const [source, expected] of cases) assert.deepEqual(evaluate(source, object), expected, source);
  assert.deepEqual(evaluate("object.status.big + 1", object), {
    ok: false,
    reason: "wrong_type",
    message: "found no matching overload for '_+_' applied to '(double, int)'",
  });
});

test("consecutive objects each give their own result", () => {
  const a = { status: { n: 1 } };
  const b = { status: { n: 2 } };
  const results = [a, b, a, b].map((o) => evaluate("object.status.n * 10", o));
  assert.deepEqual(
    results.map((r) => (r.ok ? r.value : r.reason)),
    [10, 20, 10, 20],
  );
});

test("the names an expression may use: object, type names, the standard functions and operators, its own loop variables", () => {
  const object = { status: { items: [1, 2], phase: "Running" } };
  const source = [
    "type(1) == int && type('') == string && type(true) == bool && type(b'') == bytes",
    "type(1.0) == double && type(null) == null_type && type([]) == list && type({}) == map",
    "type(1u) == uint && type(int) == type && dyn(1) == 1",
    "(object.status.items[0] == 1 || false) && (true ? 1 : 2) == 1 && !(1 > 2)",
    "object.status.items.all(x, x > 0) && object.status.items.exists_one(x, x == 2)",
    "object.status.items.map(x, x * 2)[1] == 4 && object.status.items.filter(x, x > 1).size() == 1",
    "object.status.phase.startsWith('Run') && 'a' in ['a'] && {'k': object.status.phase}['k'] == 'Running'",
  ].join(" && ");
  assert.deepEqual(evaluate(source, object), { ok: true, value: 1 });
  const undeclared: [string, string][] = [
    ["{nope: 1}", "undeclared reference to 'nope' at 1:2"],
    ["{'a': nope}", "undeclared reference to 'nope' at 1:7"],
    ["[1, nope]", "undeclared reference to 'nope' at 1:5"],
    ["nope.x", "undeclared reference to 'nope' at 1:1"],
    ["[nope].exists(x, true)", "undeclared reference to 'nope' at 1:2"],
    ["[1].exists(x, x == nope)", "undeclared reference to 'nope' at 1:20"],
    ["[1].all(x, x > 0) && x > 0", "undeclared reference to 'x' at 1:22"],
    ["[1].map(x, x).size() + x", "undeclared reference to 'x' at 1:24"],
    ["object.status.phase.size2()", "undeclared reference to 'size2' at 1:20"],
    // dyn(x) is a function; the library has no type value named dyn (it would fail every evaluation).
    ["type(object) == dyn", "undeclared reference to 'dyn' at 1:17"],
    ["nope(1) + nada", "undeclared reference to 'nope' at 1:1; undeclared reference to 'nada' at 1:11"],
  ];
  for (const [expression, problem] of undeclared) {
    const compiled = compileCel(expression, "value");
    assert.deepEqual("problem" in compiled ? compiled.problem : "compiled", problem, expression);
  }
});

test("an expression of 4096 characters compiles; one longer is refused with its length", () => {
  const of = (length: number) => `object.x == '${"a".repeat(length - 14)}'`;
  assert.equal(of(4096).length, 4096);
  assert.ok("program" in compileCel(of(4096), "value"));
  assert.deepEqual(compileCel(of(4097), "value"), { problem: "longer than 4096 characters (4097)" });
});

test("a result the field does not take is described in the error", () => {
  const readiness = 'expected "Current", "InProgress", "Failed" or a bool';
  const value = "expected a number, bool, timestamp or duration";
  const cases: [string, "readiness" | "value", string][] = [
    ["null", "readiness", `returned null; ${readiness}`],
    ["[1]", "readiness", `returned a list; ${readiness}`],
    ["{'a': 1}", "readiness", `returned a map; ${readiness}`],
    ["1", "readiness", `returned the int 1; ${readiness}`],
    ["1.5", "readiness", `returned the double 1.5; ${readiness}`],
    [`'${"y".repeat(41)}'`, "readiness", `returned the string "${"y".repeat(40)}…"; ${readiness}`],
    [`'${"y".repeat(40)}'`, "readiness", `returned the string "${"y".repeat(40)}"; ${readiness}`],
    ["'abc'", "value", `returned the string "abc"; ${value}`],
    ["1.0 / 0.0", "value", `returned the double Infinity; ${value}`],
    ["b'ab'", "value", `returned a bytes; ${value}`],
  ];
  for (const [source, purpose, message] of cases)
    assert.deepEqual(evaluate(source, {}, purpose), { ok: false, reason: "bad_result", message }, source);
});

test("value results: bools as 1 and 0, uints, negative durations and fractional timestamps in seconds", () => {
  const cases: [string, number][] = [
    ["true", 1],
    ["false", 0],
    ["uint(7)", 7],
    ["duration('-1.5s')", -1.5],
    ["timestamp('2026-01-01T00:00:00.25Z')", Date.parse("2026-01-01T00:00:00Z") / 1000 + 0.25],
  ];
  for (const [source, expected] of cases)
    assert.deepEqual(evaluate(source, {}), { ok: true, value: expected }, source);
  assert.deepEqual(evaluate("'Failed'", {}, "readiness"), { ok: true, value: "Failed" });
  assert.deepEqual(evaluate("false", {}, "readiness"), { ok: true, value: "InProgress" });
});

test("every error message the library gives for a type problem or a missing key maps to its reason", () => {
  const cases: [string, string][] = [
    ["no such field: spec", "no_such_key"],
    ["unsupported type: foo", "wrong_type"],
    ["expected bool, got int", "wrong_type"],
    ["unbound function: frob", "wrong_type"],
    ["bad type for the argument", "wrong_type"],
    ["Cannot convert x to a BigInt", "other"],
  ];
  for (const [message, reason] of cases) assert.equal(failureOf(message), reason, message);
});
