// The option tables are the one declaration of every configuration key: the
// validator reads them, and config.example.yaml, the JSON Schema and the
// flags are checked against them here (docs/configuration.md and
// docs/config.schema.json are kept equal to what they generate by
// monitoring-generated.test.ts).
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { Compile } from "typebox/compile";
import { parse } from "yaml";
import { flagOfKey } from "../../src/config/flags.ts";
import type { OptionTable } from "../../src/config/option.ts";
import { configTable } from "../../src/config/options.ts";
import { configJsonSchema } from "../../src/config/reference.ts";
import { resourceOptionTable } from "../../src/config/resource-options.ts";
import { defaultConfig } from "../../src/config/schema.ts";
import { ConfigError, validateConfig } from "../../src/config/validate.ts";
import { selectorTable } from "../../src/config/validate-resources.ts";

const repo = join(import.meta.dirname, "..", "..");
const exampleText = readFileSync(join(repo, "config.example.yaml"), "utf8");

interface JsonSchema {
  properties?: Record<string, JsonSchema>;
  items?: JsonSchema;
  anyOf?: JsonSchema[];
  additionalProperties?: boolean | JsonSchema;
}
const { $schema: _dialect, ...schema } = JSON.parse(configJsonSchema()) as JsonSchema & { $schema: string };
const schemaCheck = Compile(schema as never);

/** Every key the schema declares at any depth, as `a.b.c` paths (list items and alternatives walked through). */
function schemaKeys(node: JsonSchema, prefix = ""): string[] {
  const here = Object.entries(node.properties ?? {}).flatMap(([key, child]) => [
    `${prefix}${key}`,
    ...schemaKeys(child, `${prefix}${key}.`),
  ]);
  const nested = [node.items, ...(node.anyOf ?? [])].filter((n): n is JsonSchema => n !== undefined);
  return [...here, ...nested.flatMap((n) => schemaKeys(n, prefix))];
}

function problemsOf(input: unknown): string[] {
  try {
    validateConfig(input);
    return [];
  } catch (error) {
    if (error instanceof ConfigError) return error.problems;
    throw error;
  }
}

test("config.example.yaml shows every key of the file (set, or in a comment)", () => {
  const keys = new Set(schemaKeys(schema).map((path) => path.split(".").at(-1) as string));
  assert.ok(keys.size > 60, `only ${keys.size} keys found in the schema`);
  const missing = [...keys].filter((key) => !new RegExp(`(^|[\\s{,#-])${key}:`, "m").test(exampleText));
  assert.deepEqual(missing, [], "keys the example neither sets nor mentions");
});

test("the example's top-level and tracing values are the defaults (one value per default)", () => {
  const example = validateConfig(parse(exampleText));
  const scalar = (v: unknown) => v === undefined || ["string", "number", "boolean"].includes(typeof v);
  for (const [field, value] of Object.entries(defaultConfig)) {
    if (scalar(value)) assert.equal(example[field as keyof typeof example], value, field);
  }
  assert.deepEqual(example.tracing, defaultConfig.tracing);
});

test("the JSON Schema accepts what the validator accepts: the example and the empty file", () => {
  for (const input of [parse(exampleText), {}]) {
    assert.deepEqual(problemsOf(input), []);
    assert.ok(schemaCheck.Check(input), JSON.stringify([...schemaCheck.Errors(input)].slice(0, 3)));
  }
});

/** A value that is wrong for every option: a mapping with a key none declares. */
const wrong = { notAnOption: true };

function everyOption(table: OptionTable, at: (key: string) => { input: unknown; path: string }) {
  return Object.values(table).map((o) => at(o.key));
}

test("every option of every table is read by the validator at its path, and refused by the schema alike", () => {
  const sections = Object.values(configTable).filter((o) => o.table !== undefined);
  const cases = [
    ...everyOption(configTable, (key) => ({ input: { [key]: wrong }, path: key })),
    ...sections.flatMap((s) =>
      everyOption(s.table as OptionTable, (key) => ({
        input: { [s.key]: { listen: "127.0.0.1:1", certFile: "c", keyFile: "k", [key]: wrong } },
        path: `${s.key}.${key}`,
      })),
    ),
    ...everyOption({ ...selectorTable, ...resourceOptionTable }, (key) => ({
      input: { resources: [{ groups: ["*"], [key]: wrong }] },
      path: `resources[0].${key}`,
    })),
    ...everyOption(resourceOptionTable, (key) => ({
      input: { resources: [{ groups: ["*"], kinds: [{ kind: "Widget", [key]: wrong }] }] },
      path: `resources[0].kinds[0].${key}`,
    })),
  ];
  assert.ok(cases.length > 70, `${cases.length} cases`);
  for (const { input, path } of cases) {
    const problems = problemsOf(input);
    assert.ok(
      problems.some((p) => p.startsWith(`${path}:`) || p.startsWith(`${path}.`)),
      `${path}: ${JSON.stringify(problems)}`,
    );
    assert.equal(schemaCheck.Check(input), false, `the schema accepts a wrong ${path}`);
  }
});

test("the schema and the validator agree on values of the right kind", () => {
  const agreeing: [unknown, boolean][] = [
    [{ tracing: { generationTimeout: "90m" } }, true],
    [{ tracing: { generationTimeout: "soon" } }, false],
    [{ resources: [{ groups: ["*"], failedAfter: 30 }] }, true],
    [{ resources: [{ groups: ["*"], failedAfter: -1 }] }, false],
    [{ resources: [{ groups: ["*"], mode: "aggregate" }] }, true],
    [{ resources: [{ groups: ["*"], mode: "sometimes" }] }, false],
    [{ resources: [{ groups: ["*"], maxReasons: 0 }] }, false],
    [{ resources: [{ groups: ["*"], conditionsPath: "status..conditions" }] }, false],
    [{ resources: [{ group: "example.com", resource: "widgets", version: "v1" }] }, true],
    [{ resources: [{ group: "Example.com", resource: "widgets" }] }, false],
    [{ resources: [] }, false],
    [{ logLevel: "verbose" }, false],
    [{ listen: "0.0.0.0:9184", metricsAuth: "none" }, true],
    [{ sharding: { shard: 1, totalShards: 3 } }, true],
    [{ sharding: { shard: 1, pod: "x-0" } }, false],
    [{ sharding: { pod: "cr-status-exporter-2", podNamespace: "monitoring" } }, true],
    [{ statusPage: { refresh: "0s", flappingTransitions: 2 } }, true],
    [{ statusPage: { flappingTransitions: 0 } }, false],
    [{ apiProxy: { listen: "127.0.0.1:8001", plainHttp: "yes" } }, false],
  ];
  for (const [input, valid] of agreeing) {
    assert.equal(problemsOf(input).length === 0, valid, `validator on ${JSON.stringify(input)}`);
    assert.equal(schemaCheck.Check(input), valid, `schema on ${JSON.stringify(input)}`);
  }
});

test("every configuration flag sets a key the file has", () => {
  const keys = new Set(schemaKeys(schema));
  assert.ok(flagOfKey.size >= 20, `${flagOfKey.size} flags`);
  for (const [key, flag] of flagOfKey)
    assert.ok(keys.has(key), `${flag} sets ${key}, which no table declares`);
});

test("problems are listed in the file's order; the values do not depend on it (fingerprints compare them as text)", () => {
  assert.deepEqual(problemsOf({ resources: [{ groups: ["*"], mode: "turbo" }], listen: "nowhere" }), [
    'resources[0].mode: expected one of objects, aggregate, got "turbo"',
    'listen: expected host:port with a port from 0 to 65535, got "nowhere"',
  ]);
  assert.deepEqual(problemsOf({ listen: "nowhere", resources: [{ mode: "turbo", groups: ["*"] }] }), [
    'listen: expected host:port with a port from 0 to 65535, got "nowhere"',
    'resources[0].mode: expected one of objects, aggregate, got "turbo"',
  ]);
  const one = validateConfig({
    listen: "0.0.0.0:1",
    resources: [{ groups: ["*"], mode: "aggregate", maxReasons: 3 }],
  });
  const other = validateConfig({
    resources: [{ maxReasons: 3, mode: "aggregate", groups: ["*"] }],
    listen: "0.0.0.0:1",
  });
  assert.equal(JSON.stringify(one), JSON.stringify(other));
});
