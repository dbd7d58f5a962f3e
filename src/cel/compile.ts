// CEL expressions of the configuration, compiled once at load (and reload)
// with @bufbuild/cel (a conformance-tested CEL for ECMAScript): parsed,
// checked for undeclared names and functions (a config error naming the
// field), and planned into a program the core evaluates per object version
// (src/core/cel.ts). The library (26 MiB of RSS, 0.2–0.4 s to load) is
// required on the first expression, so a configuration without one never
// loads it.
//
// The object: `object`, the custom resource as JSON, with integral numbers as
// CEL ints (as Kubernetes decodes unstructured objects, and Flux's and
// admission policies' CEL see them) and others as doubles; RFC 3339 strings
// stay strings (timestamp(...) reads them). The standard definitions only; no
// clock (an expression is evaluated on events, so now would go stale between
// them).
//
// The cost limit: @bufbuild/cel 0.6.1 has none, so each evaluation is
// metered here. Every function call costs 1 plus its arguments' sizes (a
// string's length, a list's or map's entries; deeply for ==, != and in,
// counted only up to what is left of the budget), and every comprehension
// (all, exists, exists_one, map, filter) costs its range's size times the
// expression nodes of its body, up front: its range is wrapped at compile
// time in a call that charges it. A standard function's work is linear in
// its arguments' sizes and a node's is constant (the object's maps are
// handed over as Maps, which the library wraps without copying), so the work
// of one evaluation is linear in the budget whatever the expression and the
// object. Past the budget the evaluation is unwound at once and its result
// is the cost_limit error. docs/configuration.md#cel has the measured times.
import { createRequire } from "node:module";
import type * as Cel from "@bufbuild/cel";
import type { CelFailure, CelOutcome, CelProgram, CelReadinessResult, CelValueResult } from "../core/cel.ts";
import { isRecord } from "../core/json-record.ts";

type Library = typeof Cel;
type Expr = ReturnType<Library["parse"]>["expr"];
type Parsed = ReturnType<Library["parse"]>;

/** Cost units one evaluation may spend (see the header; docs/configuration.md#cel for the time it bounds). */
export const celCostLimit = 1_000_000;
/** Longer expressions are refused: a configuration's expression is a line or a few, not a program. */
export const maxCelLength = 4096;

/** The identity function a comprehension's range is wrapped in, so it is charged. */
// Stryker disable next-line StringLiteral: any name works that no expression can spell (the parser makes no call named "" either)
const rangeFunction = "@cr_range";

let library: Library | undefined;
/** @bufbuild/cel, loaded on first use (synchronously: configuration is read synchronously). */
function cel(): Library {
  library ??= createRequire(import.meta.url)("@bufbuild/cel") as Library;
  return library;
}

/** The meter of the evaluation under way (evaluations are synchronous, so one at a time). */
// Stryker disable next-line BooleanLiteral: evaluate() sets both before each evaluation
const meter = { left: 0, exhausted: false };

/**
 * What a call's argument costs: a string's length; a list's or map's entries
 * (deeply for the functions that compare deeply, counted only up to `limit`,
 * so counting a big one costs no more than the limit); 1 for the rest.
 */
function sizeOf(lib: Library, value: unknown, deep: boolean, limit: number): number {
  if (typeof value === "string") return value.length;
  if (value instanceof Uint8Array) return value.length;
  const list = lib.isCelList(value);
  if (!list && !lib.isCelMap(value)) return 1;
  if (!deep) return value.size;
  let size = 0;
  for (const item of list ? value : value.values()) {
    size += 1 + sizeOf(lib, item, true, limit - size);
    if (size > limit) return size;
  }
  return size;
}

/** Functions whose work grows with their arguments' deep size: equality, and membership in a list. */
const deepFunctions = new Set(["_==_", "_!=_", "@in"]);

const costLimitMessage = `cost limit of ${celCostLimit} exceeded`;

type Resolver = Cel.CelEnv["funcs"];
type Group = NonNullable<ReturnType<Resolver["find"]>>;

/** Thrown past the budget: it unwinds the whole evaluation at once (plan() turns it into its error). */
class CostLimit extends Error {}

function charge(cost: number): void {
  meter.left -= cost;
  if (meter.left >= 0) return;
  // Stryker disable next-line BooleanLiteral: plan() returns the throw below as an error value with its message, which already says cost_limit (see evaluate)
  meter.exhausted = true;
  throw new CostLimit(costLimitMessage);
}

/**
 * A function group that charges each call before making it. The range
 * wrapper charges its range's size times the work of one iteration (its
 * second argument: the loop's expression nodes, see `weight`).
 */
function metered(lib: Library, group: Group): Group {
  const deep = deepFunctions.has(group.name);
  const range = group.name === rangeFunction;
  return {
    name: group.name,
    [Symbol.iterator]: () => group[Symbol.iterator](),
    call(id, target, args) {
      if (range) {
        charge(1 + sizeOf(lib, args[0], false, 0) * Number(args[1]));
        return args[0];
      }
      let cost = 1;
      // Stryker disable next-line ArithmeticOperator: a larger limit only counts a too-big argument further; it is over the budget either way
      for (const value of target === undefined ? args : [target, ...args])
        cost += sizeOf(lib, value, deep, meter.left - cost);
      charge(cost);
      return group.call(id, target, args);
    },
  };
}

interface Compiled {
  lib: Library;
  env: Cel.CelEnv;
}

let compiled: Compiled | undefined;

/**
 * The environment: `object`, the standard functions each metered, and the
 * range wrapper. plan() reads an environment's namespace, registry and
 * funcs, so a metered resolver stands in for the library's own.
 */
function environment(): Compiled {
  if (compiled) return compiled;
  const lib = cel();
  const { CelScalar } = lib;
  const base = lib.celEnv({
    // Stryker disable next-line ObjectLiteral: plan() resolves `object` from the bindings by name, declared or not (nothing here type-checks)
    variables: { object: lib.mapType(CelScalar.STRING, CelScalar.DYN) },
    funcs: [lib.celFunc(rangeFunction, [CelScalar.DYN, CelScalar.INT], CelScalar.DYN, (range) => range)],
  });
  const groups = new Map<string, Group | undefined>();
  const funcs = {
    [Symbol.iterator]: () => base.funcs[Symbol.iterator](),
    find(name: string): Group | undefined {
      if (!groups.has(name)) {
        const group = base.funcs.find(name);
        groups.set(name, group && metered(lib, group));
      }
      return groups.get(name);
    },
  } as unknown as Resolver;
  const env = {
    namespace: base.namespace,
    registry: base.registry,
    variables: base.variables,
    funcs,
  } as unknown as Cel.CelEnv;
  compiled = { lib, env };
  return compiled;
}

/** Calls the planner turns into evaluation steps of its own: never looked up as functions. */
const builtIn = new Set([
  "_&&_",
  "_||_",
  "_?_:_",
  "@not_strictly_false",
  "__not_strictly_false__",
  "_[_]",
  // Stryker disable next-line StringLiteral: optional syntax, which the parser is not given, and no identifier can spell it
  "_[?_]",
  // Stryker disable next-line StringLiteral: optional syntax, which the parser is not given, and no identifier can spell it
  "_?._",
]);

/**
 * Identifiers that name types (`type(x) == string`). Not `dyn`: the library
 * has no value of that name (`dyn(x)`, the function, is declared), so it is
 * an undeclared reference here rather than "unresolved attribute" on every
 * evaluation.
 */
const typeNames = new Set([
  "bool",
  "bytes",
  "double",
  "int",
  "list",
  "map",
  "null_type",
  "string",
  "type",
  "uint",
]);

/** Where an expression starts in the source (1-based line:column), when the parser says. */
function position(parsed: Parsed, source: string, expr: Expr): string {
  const offset = parsed.sourceInfo?.positions[expr.id.toString()];
  // Stryker disable next-line StringLiteral,ConditionalExpression: the parser records where every node it makes from the source starts, and only those are reported
  if (offset === undefined) return "";
  // The parser leaves sourceInfo.lineOffsets empty: lines are counted here.
  const before = source.slice(0, offset).split("\n");
  return ` at ${before.length}:${(before.at(-1) ?? "").length + 1}`;
}

/**
 * The names the expression uses that nothing declares (variables other than
 * `object` and the comprehensions' own, functions the environment lacks),
 * each as a problem; the comprehensions' ranges wrapped for the meter.
 */
function checkAndMeter(parsed: Parsed, source: string, env: Cel.CelEnv): string[] {
  const problems: string[] = [];
  const undeclared = (name: string, expr: Expr) =>
    problems.push(`undeclared reference to '${name}'${position(parsed, source, expr)}`);
  const visit = (expr: Expr | undefined, scope: ReadonlySet<string>): void => {
    if (expr === undefined) return;
    const kind = expr.exprKind;
    if (kind.case === "identExpr") {
      if (!scope.has(kind.value.name) && !typeNames.has(kind.value.name)) undeclared(kind.value.name, expr);
    } else if (kind.case === "selectExpr") visit(kind.value.operand, scope);
    else if (kind.case === "callExpr") {
      const call = kind.value;
      if (!builtIn.has(call.function) && env.funcs.find(call.function) === undefined)
        undeclared(call.function, expr);
      for (const arg of [call.target, ...call.args]) visit(arg, scope);
    } else if (kind.case === "listExpr") for (const element of kind.value.elements) visit(element, scope);
    else if (kind.case === "structExpr") {
      for (const entry of kind.value.entries) {
        if (entry.keyKind.case === "mapKey") visit(entry.keyKind.value, scope);
        visit(entry.value, scope);
      }
    } else if (kind.case === "comprehensionExpr") {
      const c = kind.value;
      visit(c.iterRange, scope);
      // Stryker disable next-line CallExpression: the macros' accumulator starts are constants the parser writes (true, false, 0, [])
      visit(c.accuInit, scope);
      const inner = new Set([...scope, c.iterVar, c.accuVar, ...(c.iterVar2 ? [c.iterVar2] : [])]);
      // Stryker disable next-line CallExpression: the macros' loop conditions read only the accumulator
      visit(c.loopCondition, inner);
      visit(c.loopStep, inner);
      visit(c.result, new Set([...scope, c.accuVar]));
      if (c.iterRange) c.iterRange = wrapped(c.iterRange, nodes(c.loopCondition) + nodes(c.loopStep));
    }
  };
  visit(parsed.expr, new Set(["object"]));
  return problems;
}

/**
 * The expression nodes under `expr`: what one evaluation of it costs beyond
 * its function calls (which are charged apart), each node a constant amount
 * of work (a list or map literal's entries are nodes of their own).
 */
function nodes(expr: Expr | undefined): number {
  if (expr === undefined) return 0;
  const kind = expr.exprKind;
  switch (kind.case) {
    case "selectExpr":
      return 1 + nodes(kind.value.operand);
    case "callExpr":
      return 1 + nodes(kind.value.target) + kind.value.args.reduce((n, a) => n + nodes(a), 0);
    case "listExpr":
      return 1 + kind.value.elements.reduce((n, e) => n + nodes(e), 0);
    case "structExpr":
      return (
        1 +
        kind.value.entries.reduce(
          (n, e) => n + nodes(e.value) + (e.keyKind.case === "mapKey" ? nodes(e.keyKind.value) : 0),
          0,
        )
      );
    case "comprehensionExpr": {
      const c = kind.value;
      return 1 + nodes(c.iterRange) + nodes(c.accuInit) + nodes(c.result);
    }
    default:
      return 1;
  }
}

/** `range` as the argument of the metered identity function, with the work of one iteration. */
function wrapped(range: Expr, weight: number): Expr {
  const constant = {
    $typeName: "cel.expr.Expr",
    id: range.id,
    exprKind: {
      case: "constExpr",
      value: { $typeName: "cel.expr.Constant", constantKind: { case: "int64Value", value: BigInt(weight) } },
    },
  };
  const call = {
    $typeName: "cel.expr.Expr.Call",
    function: rangeFunction,
    args: [range, constant],
    target: undefined,
  };
  return {
    $typeName: "cel.expr.Expr",
    id: range.id,
    exprKind: { case: "callExpr", value: call },
  } as unknown as Expr;
}

/**
 * A JSON value as CEL input: integral numbers (safe integers) as ints,
 * objects as Maps (the library wraps a Map as it is, but copies a plain
 * object's entries on every access), lists copied through. O(size of the
 * object), once per object version for all of a kind's expressions (see
 * `converted`).
 */
function toCelInput(value: unknown): unknown {
  if (typeof value === "number") return Number.isSafeInteger(value) ? BigInt(value) : value;
  if (Array.isArray(value)) return value.map(toCelInput);
  if (isRecord(value)) {
    const out = new Map<string, unknown>();
    for (const key in value) out.set(key, toCelInput(value[key]));
    return out;
  }
  return value;
}

/** The last object converted: a kind's expressions are evaluated one after another on the same object. */
let last: { object: Record<string, unknown>; input: unknown } | undefined;

function converted(object: Record<string, unknown>): unknown {
  if (last?.object !== object) last = { object, input: toCelInput(object) };
  return last.input;
}

/** Which bounded reason an evaluation error is. */
export function failureOf(message: string): CelFailure {
  if (message.startsWith("cost limit")) return "cost_limit";
  if (/field not found|no such key|out of bounds|no such field/.test(message)) return "no_such_key";
  if (/no matching overload|type mismatch|unsupported|expected bool|unbound function|bad type/.test(message))
    return "wrong_type";
  return "other";
}

const fail = (reason: CelFailure, message: string): CelOutcome<never> => ({ ok: false, reason, message });

/** What the value `v` is, for a result the field does not take. */
function describe(lib: Library, v: unknown): string {
  if (typeof v === "string") return `the string ${JSON.stringify(v.length > 40 ? `${v.slice(0, 40)}…` : v)}`;
  if (v === null) return "null";
  if (typeof v === "object") return `a ${lib.celType(v as Cel.CelValue).name}`;
  // Both purposes take a bool: what is left is a number.
  return `${typeof v === "bigint" ? "the int" : "the double"} ${String(v)}`;
}

const verdicts: readonly string[] = ["Current", "InProgress", "Failed"];

function readinessResult(lib: Library, v: unknown): CelOutcome<CelReadinessResult> {
  if (v === true) return { ok: true, value: "Current" };
  if (v === false) return { ok: true, value: "InProgress" };
  if (typeof v === "string" && verdicts.includes(v)) return { ok: true, value: v as CelReadinessResult };
  return fail(
    "bad_result",
    `returned ${describe(lib, v)}; expected "Current", "InProgress", "Failed" or a bool`,
  );
}

/** Seconds of a google.protobuf.Timestamp or Duration result; undefined for anything else. */
function seconds(v: unknown): number | undefined {
  // Stryker disable next-line OptionalChaining: valueResult has handled null, and a result is never undefined
  const message = (v as { desc?: { typeName?: string }; message?: { seconds?: bigint; nanos?: number } })
    ?.message;
  // Stryker disable next-line OptionalChaining: valueResult has handled null, and a result is never undefined
  const type = (v as { desc?: { typeName?: string } })?.desc?.typeName;
  if (type !== "google.protobuf.Timestamp" && type !== "google.protobuf.Duration") return undefined;
  return Number(message?.seconds ?? 0n) + (message?.nanos ?? 0) / 1e9;
}

function valueResult(lib: Library, v: unknown): CelOutcome<CelValueResult> {
  if (v === null) return { ok: true, value: null };
  let n: number | undefined;
  if (typeof v === "number") n = v;
  else if (typeof v === "bigint") n = Number(v);
  else if (typeof v === "boolean") n = v ? 1 : 0;
  else if (lib.isCelUint(v)) n = Number(v.value);
  else n = seconds(v);
  if (n !== undefined && Number.isFinite(n)) return { ok: true, value: n };
  return fail("bad_result", `returned ${describe(lib, v)}; expected a number, bool, timestamp or duration`);
}

/** What an expression is for: its result becomes cr_status's or a cr_value series'. */
export type CelPurpose = "readiness" | "value";
type ResultOf<P extends CelPurpose> = P extends "readiness" ? CelReadinessResult : CelValueResult;

class Program<T> implements CelProgram<T> {
  readonly source: string;
  readonly #run: (bindings: { object: unknown }) => unknown;
  readonly #result: (value: unknown) => CelOutcome<T>;

  constructor(
    source: string,
    run: (bindings: { object: unknown }) => unknown,
    result: (value: unknown) => CelOutcome<T>,
  ) {
    this.source = source;
    this.#run = run;
    this.#result = result;
  }

  evaluate(object: Record<string, unknown>): CelOutcome<T> {
    const { lib } = environment();
    meter.left = celCostLimit;
    meter.exhausted = false;
    let value: unknown;
    try {
      value = this.#run({ object: converted(object) });
      // Stryker disable next-line BlockStatement: plan() returns every throw as an error value (its own catch), so this guards only against a change in the library
    } catch (error) {
      // Stryker disable next-line ConditionalExpression: as above
      if (error instanceof CostLimit) return fail("cost_limit", costLimitMessage);
      // plan() returns errors as values; a throw is the library's bug, still no crash.
      return fail("other", error instanceof Error ? error.message : String(error));
    }
    // Past the budget the result may still have come out (an error absorbed by || or &&): it does not count.
    if (meter.exhausted) return fail("cost_limit", costLimitMessage);
    if (lib.isCelError(value)) return fail(failureOf(value.message), value.message);
    return this.#result(value);
  }

  /** In configuration fingerprints and JSON output: the expression as written. */
  toJSON(): string {
    return this.source;
  }
}

/** The compiled expression, or why it cannot be (the problem text, without the field's path). */
export function compileCel<P extends CelPurpose>(
  source: string,
  purpose: P,
): { program: CelProgram<ResultOf<P>> } | { problem: string } {
  if (source.length > maxCelLength)
    return { problem: `longer than ${maxCelLength} characters (${source.length})` };
  const { lib, env } = environment();
  let parsed: Parsed;
  try {
    parsed = lib.parse(source);
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    return { problem: `does not parse: ${message.replace(/^<input>:/, "")}` };
  }
  const problems = checkAndMeter(parsed, source, env);
  if (problems.length > 0) return { problem: problems.join("; ") };
  let run: (bindings: { object: unknown }) => unknown;
  try {
    run = lib.plan(env, parsed) as unknown as typeof run;
  } catch (error) {
    return { problem: `cannot be planned: ${error instanceof Error ? error.message : String(error)}` };
  }
  const result =
    purpose === "readiness" ? (v: unknown) => readinessResult(lib, v) : (v: unknown) => valueResult(lib, v);
  return { program: new Program(source, run, result as (v: unknown) => CelOutcome<ResultOf<P>>) };
}
