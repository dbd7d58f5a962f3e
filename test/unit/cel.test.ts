// CEL expressions of the configuration (readiness.cel, values[].cel): each
// compile problem named by its key; what a readiness expression decides in
// cr_status, and what a value expression exports; evaluation failures as
// bounded reasons, counted and logged at most once a minute; the cost limit
// on pathological expressions over big objects.
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { join } from "node:path";
import { test } from "node:test";
import { celCostLimit, compileCel, failureOf, maxCelLength } from "../../src/cel/compile.ts";
import { type ExplainedResource, formatExplanation } from "../../src/cli/explain.ts";
import { WatchTelemetry } from "../../src/collectors/watch-telemetry.ts";
import { validateConfig } from "../../src/config/validate.ts";
import { type CelProgram, type CelReadinessResult, celFailures } from "../../src/core/cel.ts";
import {
  defaultReadinessRules,
  isReady,
  isSettled,
  summarizeStatus,
} from "../../src/core/judge/readiness.ts";
import { celFields, defaultProjectionSettings, projectObject } from "../../src/core/project/project.ts";
import { createLogger } from "../../src/log.ts";
import { createSelfMetrics } from "../../src/metrics/self-metrics.ts";
import { problems } from "../support/config-problems.ts";
import { parseExposition } from "../support/exposition-check.ts";

const widgets = { group: "example.com", resource: "widgets" };

function compiled<P extends "readiness" | "value">(source: string, purpose: P) {
  const result = compileCel(source, purpose);
  if ("problem" in result) throw new Error(result.problem);
  return result.program;
}

test("a bad expression is a configuration problem naming its key and what is wrong", () => {
  const cases: [Record<string, unknown>, RegExp][] = [
    [
      { readiness: { cel: "objct.status.phase == 'Running'" } },
      /^resources\[0\]\.readiness\.cel: undeclared reference to 'objct' at 1:1$/,
    ],
    [
      { readiness: { cel: "object.status.phase ==" } },
      /^resources\[0\]\.readiness\.cel: does not parse: 1:\d+: /,
    ],
    [
      { readiness: { cel: "frobnicate(object) ? 'Current' : 'Failed'" } },
      /^resources\[0\]\.readiness\.cel: undeclared reference to 'frobnicate' at 1:1$/,
    ],
    [
      { readiness: { cel: "object.status.x ||\n  nope" } },
      /^resources\[0\]\.readiness\.cel: undeclared reference to 'nope' at 2:3$/,
    ],
    [{ readiness: { cel: "" } }, /^resources\[0\]\.readiness\.cel: expected a non-empty string, got ""$/],
    [
      { readiness: { cel: `object.x == '${"a".repeat(maxCelLength)}'` } },
      new RegExp(`^resources\\[0\\]\\.readiness\\.cel: longer than ${maxCelLength} characters`),
    ],
    [{ readiness: {} }, /^resources\[0\]\.readiness\.cel: required/],
    [{ readiness: "object.x" }, /^resources\[0\]\.readiness: expected a mapping/],
    [{ readiness: { cel: "true", when: "x" } }, /^resources\[0\]\.readiness\.when: unknown key/],
    [
      { values: [{ cel: "objct.status.replicas", name: "replicas" }] },
      /^resources\[0\]\.values\[0\]\.cel: undeclared reference to 'objct' at 1:1$/,
    ],
    [
      { values: [{ cel: "object.status.replicas" }] },
      /^resources\[0\]\.values\[0\]\.name: required with cel/,
    ],
    [
      { values: [{ cel: "object.status.replicas", name: "r", path: "status.replicas" }] },
      /^resources\[0\]\.values\[0\]\.path: a value is read at a path or computed by cel, not both/,
    ],
    [
      { values: [{ cel: "object.status.replicas", name: "r", type: "number" }] },
      /^resources\[0\]\.values\[0\]\.type: a value is read at a path or computed by cel, not both/,
    ],
    [
      { values: [{ path: "status.replicas" }, { cel: "1", name: "replicas" }] },
      /^resources\[0\]\.values\[1\]\.name: "replicas" is given twice/,
    ],
  ];
  for (const [options, expected] of cases) {
    const found = problems({ resources: [{ ...widgets, ...options }] });
    assert.equal(found.length, 1, `${JSON.stringify(options).slice(0, 80)}: ${found.join("; ")}`);
    assert.match(found[0] as string, expected);
  }
});

test("readiness.cel with the options it replaces in one mapping is a problem naming both; a kinds override replaces them", () => {
  const cel = { cel: "true" };
  assert.deepEqual(problems({ resources: [{ ...widgets, readiness: cel, readyCondition: "Ready" }] }), [
    "resources[0].readyCondition: readiness.cel decides cr_status for this kind; give readyCondition or readiness.cel, not both",
  ]);
  assert.match(
    problems({ resources: [{ ...widgets, readiness: cel, phaseResults: { Up: "Current" } }] }).join(),
    /^resources\[0\]\.phaseResults: readiness\.cel decides cr_status/,
  );
  assert.match(
    problems({
      resources: [
        { ...widgets, readiness: cel, states: [{ name: "health", path: "status.health", ready: ["Ok"] }] },
      ],
    }).join(),
    /^resources\[0\]\.states\[0\]: ready\/failed take part in readiness/,
  );
  // A state without ready/failed is only exported: no conflict.
  assert.deepEqual(
    problems({ resources: [{ ...widgets, readiness: cel, states: [{ name: "h", path: "status.h" }] }] }),
    [],
  );
  assert.match(
    problems({
      resources: [{ groups: ["*"], kinds: [{ kind: "Widget", readiness: cel, readyCondition: "Ready" }] }],
    }).join(),
    /^resources\[0\]\.kinds\[0\]\.readyCondition: readiness\.cel decides/,
  );
  const config = validateConfig({
    resources: [
      {
        groups: ["*"],
        readyCondition: "Available",
        kinds: [
          { kind: "Widget", readiness: cel },
          { kind: "Gadget", readyCondition: "Ready" },
        ],
      },
    ],
  });
  const entry = config.resources[0];
  const [widget, gadget] = entry?.overrides ?? [];
  assert.equal(widget?.options.readiness?.cel.source, "true");
  assert.equal(
    widget?.options.readyCondition,
    undefined,
    "the override's expression replaces the entry's condition",
  );
  assert.equal(gadget?.options.readiness, undefined);
  const withCel = validateConfig({
    resources: [{ groups: ["*"], readiness: cel, kinds: [{ kind: "Gadget", readyCondition: "Ready" }] }],
  });
  const override = withCel.resources[0]?.overrides[0];
  assert.equal(override?.options.readyCondition, "Ready");
  assert.equal(
    override?.options.readiness,
    undefined,
    "the override's condition replaces the entry's expression",
  );
});

test("compiled expressions show as their source in fingerprints and JSON", () => {
  const config = validateConfig({
    resources: [{ ...widgets, readiness: { cel: "true" }, values: [{ cel: "1", name: "one" }] }],
  });
  const options = config.resources[0]?.options;
  assert.equal(JSON.stringify(options?.readiness), '{"cel":"true"}');
  assert.equal(JSON.stringify(options?.values), '[{"name":"one","cel":"1"}]');
});

const base = {
  apiVersion: "example.com/v1",
  kind: "Widget",
  metadata: { name: "w", namespace: "shop", uid: "u1", resourceVersion: "7", generation: 3 },
  spec: { replicas: 3 },
  status: {
    observedGeneration: 3,
    readyReplicas: 3,
    ratio: 0.5,
    phase: "Running",
    notAfter: "2026-06-01T12:00:00Z",
    conditions: [{ type: "Ready", status: "False", reason: "Waiting" }],
  },
};

function verdict(source: string, object: Record<string, unknown> = base, now = 1000) {
  const readiness = compiled(source, "readiness");
  const state = projectObject(object, { ...defaultProjectionSettings, readiness });
  return { state, status: summarizeStatus(state, defaultReadinessRules, now).result };
}

test("a readiness expression decides cr_status whatever the conditions say; a failed evaluation is Unknown", () => {
  const cases: [string, string, string | undefined][] = [
    ["object.status.readyReplicas == object.spec.replicas ? 'Current' : 'InProgress'", "Current", undefined],
    ["object.status.readyReplicas > 5 ? 'Current' : 'InProgress'", "InProgress", undefined],
    ["object.status.phase == 'Running' ? 'Failed' : 'Current'", "Failed", undefined],
    ["object.status.observedGeneration == object.metadata.generation", "Current", undefined],
    ["object.status.readyReplicas < 1", "InProgress", undefined],
    ["object.status.missing == 1 ? 'Current' : 'Failed'", "Unknown", "no_such_key"],
    ["object.status.ratio + 1 > 0", "Unknown", "wrong_type"],
    ["object.status.phase", "Unknown", "bad_result"],
    ["object.status.readyReplicas", "Unknown", "bad_result"],
    ["1 / (object.status.readyReplicas - 3) > 0", "Unknown", "other"],
  ];
  for (const [source, expected, reason] of cases) {
    const { state, status } = verdict(source);
    assert.equal(status, expected, source);
    assert.equal(state.cuts.celErrors?.[0]?.reason, reason, source);
    if (reason) assert.equal(state.cuts.celErrors?.[0]?.field, "readiness.cel");
  }
  // The Ready=False condition would say InProgress (and Failed after failedAfter): the expression wins.
  assert.equal(verdict("true", base, 10 ** 10).status, "Current");
  const terminating = { ...base, metadata: { ...base.metadata, deletionTimestamp: "2026-01-01T00:00:00Z" } };
  assert.equal(verdict("true", terminating).status, "Terminating", "Terminating still comes first");
  const { state } = verdict("'Current'");
  assert.equal(isReady(state, defaultReadinessRules), true, "time to ready follows the expression");
  assert.equal(isSettled(verdict("'Failed'").state, defaultReadinessRules), true);
  assert.equal(
    projectObject(base, defaultProjectionSettings).celVerdict,
    undefined,
    "no expression, no verdict",
  );
});

test("value expressions: numbers, ints, bools, timestamps and durations as numbers; null or a failure, no series", () => {
  const cases: [string, number | undefined, string | undefined][] = [
    ["object.status.readyReplicas + 1", 4, undefined],
    ["object.status.ratio * 2.0", 1, undefined],
    ["double(object.status.readyReplicas) / double(object.spec.replicas + 1)", 0.75, undefined],
    ["object.status.readyReplicas == object.spec.replicas", 1, undefined],
    ["object.status.conditions.exists(c, c.type == 'Ready' && c.status == 'True')", 0, undefined],
    ["timestamp(object.status.notAfter)", Date.parse("2026-06-01T12:00:00Z") / 1000, undefined],
    ["timestamp(object.status.notAfter) - timestamp('2026-06-01T11:00:00Z')", 3600, undefined],
    ["duration('1m30.5s')", 90.5, undefined],
    ["uint(object.status.readyReplicas)", 3, undefined],
    ["object.status.conditions.filter(c, c.status != 'True').size()", 1, undefined],
    ["has(object.status.missing) ? object.status.missing : null", undefined, undefined],
    ["object.status.missing", undefined, "no_such_key"],
    ["object.status.phase + 1", undefined, "wrong_type"],
    ["object.status.phase", undefined, "bad_result"],
    ["[1, 2]", undefined, "bad_result"],
    ["timestamp(object.status.phase)", undefined, "other"],
  ];
  for (const [source, expected, reason] of cases) {
    const cel = compiled(source, "value");
    const state = projectObject(base, { ...defaultProjectionSettings, values: [{ name: "v", cel }] });
    assert.deepEqual(
      state.values,
      expected === undefined ? [] : [{ name: "v", value: expected }],
      `${source}: ${JSON.stringify(state.cuts)}`,
    );
    assert.equal(state.cuts.celErrors?.[0]?.reason, reason, source);
  }
});

test("one object's failures: readiness and each value, with their fields; path values beside them unchanged", () => {
  const settings = {
    ...defaultProjectionSettings,
    readiness: compiled("object.status.nope", "readiness"),
    values: [
      { name: "ready", path: ["status", "readyReplicas"], kind: "auto" as const },
      { name: "bad", cel: compiled("object.status.phase * 2", "value") },
      { name: "good", cel: compiled("object.spec.replicas", "value") },
    ],
  };
  assert.deepEqual(celFields(settings), ["readiness.cel", "bad", "good"]);
  const state = projectObject(base, settings);
  assert.deepEqual(state.values, [
    { name: "ready", value: 3 },
    { name: "good", value: 3 },
  ]);
  assert.deepEqual(
    state.cuts.celErrors?.map((e) => [e.field, e.reason]),
    [
      ["bad", "wrong_type"],
      ["readiness.cel", "no_such_key"],
    ],
  );
  assert.equal(state.celVerdict, "Unknown");
});

test("error messages map to bounded reasons", () => {
  const cases: [string, string][] = [
    ["field not found: status", "no_such_key"],
    ["no such key: x", "no_such_key"],
    ["index 3 out of bounds [0, 2)", "no_such_key"],
    ["found no matching overload for '_+_' applied to '(double, int)'", "wrong_type"],
    ["type mismatch: expected bool, got int", "wrong_type"],
    ["int divide by zero", "other"],
    ["int overflow during multiplication", "other"],
    [`cost limit of ${celCostLimit} exceeded`, "cost_limit"],
  ];
  for (const [message, reason] of cases) assert.equal(failureOf(message), reason, message);
  assert.deepEqual([...celFailures], ["no_such_key", "wrong_type", "bad_result", "cost_limit", "other"]);
});

/** A big object: 10,000-element lists, a 10,000-key map, a 1 MB string. */
function bigObject(n = 10_000): Record<string, unknown> {
  return {
    metadata: { name: "big", uid: "u" },
    status: {
      items: Array.from({ length: n }, (_, i) => i),
      names: Array.from({ length: n }, (_, i) => `item-${i}`),
      byName: Object.fromEntries(Array.from({ length: n }, (_, i) => [`k${i}`, i])),
      text: "x".repeat(1_000_000),
    },
  };
}

test("the cost limit stops pathological expressions over a big object within a bounded time", () => {
  const object = bigObject();
  const pathological = [
    "object.status.items.all(a, object.status.items.all(b, a == b || true))",
    "object.status.items.all(a, object.status.items.all(b, true))",
    "object.status.items.all(a, a in object.status.items)",
    "object.status.items.all(a, object.status.items == object.status.items)",
    "object.status.items.all(a, object.status.items.exists(b, b == a))",
    "object.status.items.all(a, object.status.text.matches('y$') == false)",
    "object.status.items.all(a, object.status.text.contains('y') == false)",
    "object.status.items.all(a, object.status.byName.all(k, true))",
    "object.status.items.map(a, object.status.items.map(b, b)).size() > 0",
    "object.status.items.map(x, x).size() > 0",
    "object.status.items.filter(x, x > 5).size() > 0",
    "object == object",
  ];
  for (const source of pathological) {
    const program = compiled(source, "value");
    const started = performance.now();
    const outcome = program.evaluate(object);
    const ms = performance.now() - started;
    assert.deepEqual(
      outcome,
      { ok: false, reason: "cost_limit", message: `cost limit of ${celCostLimit} exceeded` },
      source,
    );
    // 15–35 ms measured; generous for a shared 2-core machine (the first includes the object's conversion).
    assert.ok(ms < 2000, `${source}: ${ms.toFixed(0)} ms`);
  }
  // Linear work over the same object stays within the limit, and a stopped evaluation leaves nothing behind.
  const linear: [string, number][] = [
    ["object.status.items.exists(a, a == -1)", 0],
    ["object.status.names.all(n, n.startsWith('item-'))", 1],
    ["object.status.byName.all(k, object.status.byName[k] >= 0)", 1],
    ["object.status.items.map(x, x * 2).size()", 1000],
    ["size(object.status.names)", 10_000],
  ];
  const small = bigObject(1000);
  for (const [source, expected] of linear) {
    const outcome = compiled(source, "value").evaluate(source.includes("map(x") ? small : object);
    assert.deepEqual(outcome, { ok: true, value: expected }, source);
  }
});

test("failed evaluations are counted per kind, field and reason from 0, and logged at most once a minute per reason", () => {
  const metrics = createSelfMetrics("cr_", "test");
  const lines: string[] = [];
  let now = 1000;
  const telemetry = new WatchTelemetry(
    { group: "example.com", version: "v1", kind: "Widget", resource: "widgets", namespaced: true },
    {
      metrics,
      logger: createLogger({ level: "debug", write: (line) => lines.push(line) }),
      clock: () => now,
      staleAfterSeconds: 600,
      celFields: ["readiness.cel", "expiresIn"],
    },
  );
  const count = async (field: string, reason: string) =>
    parseExposition(await metrics.registry.metrics()).samples.get(
      `cr_exporter_cel_errors_total{group="example.com",version="v1",kind="Widget",field="${field}",reason="${reason}"}`,
    );
  const failures = (reason: "no_such_key" | "wrong_type", field = "readiness.cel") => ({
    labelValues: 0,
    conditions: 0,
    unreadableValues: 0,
    celErrors: [{ field, reason, message: `${reason} happened` }],
  });
  return (async () => {
    for (const field of ["readiness.cel", "expiresIn"])
      for (const reason of celFailures) assert.equal(await count(field, reason), 0, `${field} ${reason}`);
    telemetry.cuts(failures("no_such_key"), { namespace: "shop", name: "w1" });
    telemetry.cuts(failures("no_such_key"), { namespace: "shop", name: "w2" });
    telemetry.cuts(failures("wrong_type", "expiresIn"), { namespace: "shop", name: "w2" });
    now += 59;
    telemetry.cuts(failures("no_such_key"), { namespace: "shop", name: "w3" });
    assert.equal(await count("readiness.cel", "no_such_key"), 3);
    assert.equal(await count("expiresIn", "wrong_type"), 1);
    const warned = () =>
      lines
        .map(
          (l) =>
            JSON.parse(l) as { level: string; msg: string; reason?: string; object?: string; field?: string },
        )
        .filter((l) => l.level === "warn" && l.msg.startsWith("CEL expression failed"));
    assert.deepEqual(
      warned().map((l) => [l.reason, l.field, l.object]),
      [
        ["no_such_key", "readiness.cel", "shop/w1"],
        ["wrong_type", "expiresIn", "shop/w2"],
      ],
    );
    now += 1;
    telemetry.cuts(failures("no_such_key"), { namespace: "shop", name: "w4" });
    assert.equal(warned().length, 3, "a minute later the reason is logged again");
  })();
});

test("the CEL library is loaded with the first expression only", () => {
  const script = (config: string) => `
    import { createRequire } from "node:module";
    import { validateConfig } from ${JSON.stringify(join(import.meta.dirname, "../../src/config/validate.ts"))};
    validateConfig(${config});
    const loaded = Object.keys(createRequire(import.meta.url).cache).some((p) => p.includes("@bufbuild"));
    process.stdout.write(String(loaded));`;
  const run = (config: string) =>
    spawnSync(process.execPath, ["--input-type=module", "-e", script(config)], { encoding: "utf8" });
  const without = run(`{ resources: [{ group: "example.com", resource: "widgets" }] }`);
  assert.equal(without.stdout, "false", without.stderr);
  const withCel = run(
    `{ resources: [{ group: "example.com", resource: "widgets", readiness: { cel: "true" } }] }`,
  );
  assert.equal(withCel.stdout, "true", withCel.stderr);
});

test("a program's readiness result type: the three words or a bool", () => {
  const program: CelProgram<CelReadinessResult> = compiled("object.metadata.name == 'w'", "readiness");
  assert.deepEqual(program.evaluate(base), { ok: true, value: "Current" });
  assert.deepEqual(compiled("'InProgress'", "readiness").evaluate(base), { ok: true, value: "InProgress" });
  assert.deepEqual(compiled("'Ready'", "readiness").evaluate(base), {
    ok: false,
    reason: "bad_result",
    message: 'returned the string "Ready"; expected "Current", "InProgress", "Failed" or a bool',
  });
});

test("explain's table lists each expression with its failures by reason and the first results", () => {
  const resource = {
    resource: "widgets.example.com",
    kind: "Widget",
    version: "v1",
    scope: "Namespaced",
    statusSubresource: true,
    mode: "objects",
    readyCondition: null,
    readinessSource: "cel",
    conditions: { path: "status.conditions", from: "schema" },
    observedGeneration: { path: "status.observedGeneration", from: "schema" },
    phase: { path: null, from: "none (no phase in the schema)", phases: [] },
    objects: 3,
    seriesPerObject: 10,
    estimatedSeries: 30,
    detected: null,
    valueCandidates: [],
    exportedCandidates: [],
    cel: [
      {
        field: "readiness.cel",
        expression: "object.status.replicas >= 1",
        evaluated: 3,
        sample: [
          { object: "shop/a", result: "Current" },
          { object: "shop/b", result: "error no_such_key: field not found: status" },
          { object: "shop/c", result: "InProgress" },
        ],
        failed: 1,
        errors: { no_such_key: 1 },
      },
    ],
  } satisfies ExplainedResource;
  const text = formatExplanation({ resources: [resource], totalSeries: 30, notSelected: [], missing: [] });
  const section = text.slice(text.indexOf("CEL expressions on the sampled objects"));
  assert.equal(
    section.split("\n").slice(1, 6).join("\n"),
    [
      "  widgets.example.com readiness.cel: object.status.replicas >= 1",
      "    3 evaluated, 1 failed (no_such_key 1)",
      "    shop/a   Current",
      "    shop/b   error no_such_key: field not found: status",
      "    shop/c   InProgress",
    ].join("\n"),
  );
  assert.match(text, /widgets\.example\.com +Widget +v1 +Namespaced +yes +- \(cel\)/);
});
