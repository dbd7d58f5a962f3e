// A configuration that cannot be misread: a file that is not a mapping is an
// error with or without flags; numbers outside their range (NaN, .inf, 1e300)
// are refused naming the field; namespaces and watches are capped; a file a
// field names is read with the field in the error; and a reload after a read
// failure applies the same content again.
import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { setTimeout as sleep } from "node:timers/promises";
import { readFieldFile } from "../../src/config/field-file.ts";
import { flagOverrides, parseFlags } from "../../src/config/flags.ts";
import {
  loadConfigFile,
  maxConfigBytes,
  type Overrides,
  parseConfigText,
  watchConfigFile,
} from "../../src/config/load.ts";
import { ConfigError } from "../../src/config/validate.ts";
import { maxNamespacesPerEntry, maxWatches } from "../../src/config/watch-limits.ts";

function problemsOf(text: string | Buffer, overrides: Overrides = {}): string[] {
  try {
    parseConfigText(Buffer.isBuffer(text) ? text.toString("utf8") : text, "f.yaml", overrides);
  } catch (error) {
    if (error instanceof ConfigError) return error.problems;
    throw error;
  }
  return [];
}

const withFlags = flagOverrides(parseFlags(["--listen", "127.0.0.1:0", "--log-level", "debug"]));

// Bytes as found in a file overwritten by a binary (an image, a gzip): a NUL,
// or bytes that are not UTF-8 — both would otherwise parse as a plain string.
const gzipBytes = Buffer.from([0x1f, 0x8b, 0x08, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x03, 0x4b, 0x4c]);
const latin1Bytes = Buffer.from("listen: caf\xe9\n", "latin1");

const notAMapping: [string, string | Buffer, RegExp][] = [
  ["a YAML list", "- group: example.com\n  resource: widgets\n", /got a list of 1 item$/],
  ["a plain string", "resources widgets please\n", /got a plain string "resources widgets please"$/],
  ["a number", "42\n", /got a number 42$/],
  ["a boolean", "true\n", /got a boolean true$/],
  [
    "binary garbage (a gzip header)",
    gzipBytes,
    /^f\.yaml: not a text file: it holds a NUL byte \(at character 3\)$/,
  ],
  [
    "a NUL byte",
    "listen: 127.0.0.1:9184\n\u0000\n",
    /not a text file: it holds a NUL byte \(at character 23\)$/,
  ],
  ["bytes that are not UTF-8", latin1Bytes, /not a text file: it holds bytes that are not UTF-8/],
  ["an empty file", "", /holds no settings .*write \{\} to use the defaults/],
  ["only comments", "# resources:\n#   - groups: ['*']\n", /holds no settings/],
  ["null", "~\n", /holds no settings/],
];

for (const [name, text, expected] of notAMapping) {
  for (const [how, overrides] of [
    ["without flags", {}],
    ["with flags", withFlags],
  ] as const) {
    test(`rejected at the top level, ${how}: ${name}`, () => {
      const problems = problemsOf(text, overrides);
      assert.equal(problems.length, 1, JSON.stringify(problems));
      assert.match(problems[0] as string, /^f\.yaml: /);
      assert.match(problems[0] as string, expected);
    });
  }
}

test("{} is the defaults, with the flags laid over them", () => {
  const config = parseConfigText("{}\n", "f.yaml", withFlags);
  assert.equal(config.listen, "127.0.0.1:0");
  assert.equal(config.logLevel, "debug");
  assert.deepEqual(config.resources[0]?.groups, ["*"]);
});

// Every numeric field, each with the values YAML can spell but no setting means.
const numericFields: [string, (value: string) => string][] = [
  ["resources[0].maxSeries", (v) => `resources:\n  - groups: ['*']\n    maxSeries: ${v}\n`],
  ["resources[0].maxReasons", (v) => `resources:\n  - groups: ['*']\n    maxReasons: ${v}\n`],
  ["resources[0].failedAfter", (v) => `resources:\n  - groups: ['*']\n    failedAfter: ${v}\n`],
  ["tracing.generationTimeout", (v) => `tracing:\n  generationTimeout: ${v}\n`],
  ["statusPage.refresh", (v) => `statusPage:\n  refresh: ${v}\n`],
  ["statusPage.flappingWindow", (v) => `statusPage:\n  flappingWindow: ${v}\n`],
  ["statusPage.flappingTransitions", (v) => `statusPage:\n  flappingTransitions: ${v}\n`],
];
const badNumbers: [string, string][] = [
  [".nan", "NaN"],
  [".NaN", "NaN"],
  [".inf", "Infinity"],
  ["-.inf", "-Infinity"],
  ["1e300", "1e+300"],
  ["-1", "-1"],
];

for (const [field, yaml] of numericFields) {
  for (const [value, shown] of badNumbers) {
    test(`${field}: ${value} is refused, naming the field and the value`, () => {
      const problems = problemsOf(yaml(value));
      const quote = (text: string) => text.replace(/[[\].+]/g, "\\$&");
      const expected = new RegExp(`^f\\.yaml: ${quote(field)}: expected .*, got ${quote(shown)}$`);
      assert.ok(
        problems.some((p) => expected.test(p)),
        JSON.stringify(problems),
      );
    });
  }
}

test("durations: a string beyond 24.8 days is refused as well; the longest one passes", () => {
  assert.match(
    problemsOf("statusPage:\n  refresh: 600h\n")[0] as string,
    /statusPage\.refresh: expected a duration .* from 0 to 2147483 s? ?\(24\.8 days\), got "600h"$/,
  );
  assert.equal(
    parseConfigText("statusPage:\n  refresh: 596h\n", "f.yaml").statusPage.refreshSeconds,
    2_145_600,
  );
  assert.equal(
    parseConfigText("tracing:\n  generationTimeout: 2147483\n", "f.yaml").tracing.generationTimeoutSeconds,
    2_147_483,
  );
});

test("integers: the int32 maximum passes, one more does not", () => {
  const yaml = (n: number) => `resources:\n  - groups: ['*']\n    maxSeries: ${n}\n`;
  assert.equal(parseConfigText(yaml(2_147_483_647), "f.yaml").resources[0]?.options.maxSeries, 2_147_483_647);
  assert.match(
    problemsOf(yaml(2_147_483_648))[0] as string,
    /resources\[0\]\.maxSeries: expected an integer ≤ 2147483647, got 2147483648$/,
  );
});

function namespaces(count: number, from = 0): string[] {
  return Array.from({ length: count }, (_, i) => `ns-${from + i}`);
}

function entries(...counts: number[]): string {
  return `resources:\n${counts
    .map(
      (n, i) =>
        `  - group: example.com\n    resource: r${i}\n    namespaces: ${JSON.stringify(namespaces(n))}\n`,
    )
    .join("")}`;
}

test(`namespaces: ${maxNamespacesPerEntry} per entry pass, one more is refused naming the entry and the limit`, () => {
  assert.equal(
    parseConfigText(entries(maxNamespacesPerEntry), "f.yaml").resources[0]?.options.namespaces.length,
    maxNamespacesPerEntry,
  );
  const problems = problemsOf(entries(1, maxNamespacesPerEntry + 1));
  assert.deepEqual(problems, [
    `f.yaml: resources[1].namespaces: ${maxNamespacesPerEntry + 1} namespaces, more than the ${maxNamespacesPerEntry} allowed per resource entry (each is a list/watch of its own); omit namespaces to watch the whole cluster with one watch`,
  ]);
});

test("namespaces: a generated list of thousands is refused at once, with one problem", () => {
  const yaml = `resources:\n  - groups: ['*']\n    namespaces: ${JSON.stringify(namespaces(20_000))}\n`;
  const problems = problemsOf(yaml);
  assert.equal(problems.length, 1);
  assert.match(
    problems[0] as string,
    /^f\.yaml: resources\[0\]\.namespaces: 20000 namespaces, more than the 500/,
  );
});

test(`watches: ${maxWatches} in total pass, more are refused naming resources and the limit`, () => {
  const full = Array.from({ length: maxWatches / maxNamespacesPerEntry }, () => maxNamespacesPerEntry);
  assert.equal(parseConfigText(entries(...full), "f.yaml").resources.length, full.length);
  const problems = problemsOf(entries(...full, 1));
  assert.deepEqual(problems, [
    `f.yaml: resources: the entries start ${maxWatches + 1} list/watches (one per listed namespace of each entry), more than the ${maxWatches} allowed; watch the whole cluster (omit namespaces) for the larger ones`,
  ]);
  // An entry without namespaces is one cluster-wide watch.
  const manyEntries = `resources:\n${"  - groups: ['*']\n".repeat(maxWatches + 1)}`;
  assert.match(problemsOf(manyEntries).join("\n"), /start 1001 list\/watches/);
});

test("namespaces: names must be namespace names, each listed once", () => {
  const problems = problemsOf(
    `resources:\n  - groups: ['*']\n    namespaces: [team-a, Team_B, team-a, '${"x".repeat(64)}']\n`,
  );
  assert.deepEqual(problems, [
    `f.yaml: resources[0].namespaces[1]: expected a namespace name (lower-case letters, digits and '-', at most 63), got "Team_B"`,
    `f.yaml: resources[0].namespaces[2]: "team-a" is listed twice`,
    `f.yaml: resources[0].namespaces[3]: expected a namespace name (lower-case letters, digits and '-', at most 63), got "${"x".repeat(64)}"`,
  ]);
});

test("a file named by a field: errors name the field, the path and the reason", () => {
  const dir = mkdtempSync(join(tmpdir(), "cr-field-file-"));
  try {
    const missing = join(dir, "tls.crt");
    assert.throws(
      () => readFieldFile("auditReceiver.certFile", missing),
      (error: unknown) =>
        error instanceof ConfigError &&
        error.problems[0] ===
          `auditReceiver.certFile: cannot read ${JSON.stringify(missing)}: no such file (ENOENT)`,
    );
    mkdirSync(join(dir, "keys"));
    assert.throws(
      () => readFieldFile("auditReceiver.keyFile", join(dir, "keys")),
      /auditReceiver\.keyFile: cannot read .*keys": it is a directory \(EISDIR\)/,
    );
    writeFileSync(join(dir, "token"), "s3cret\n");
    assert.equal(readFieldFile("auditReceiver.bearerTokenFile", join(dir, "token")), "s3cret");
    assert.equal(readFieldFile("auditReceiver.clientCaFile", undefined), undefined);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

async function waitFor(what: string, condition: () => boolean): Promise<void> {
  for (let i = 0; i < 400 && !condition(); i++) await sleep(25);
  assert.ok(condition(), `timed out waiting for ${what}`);
}

test("hot reload: a read failure, then the same content back, is applied again", async () => {
  const dir = mkdtempSync(join(tmpdir(), "cr-config-"));
  const path = join(dir, "config.yaml");
  const content = "logLevel: warn\n";
  writeFileSync(path, content);
  const applied: string[] = [];
  const errors: string[] = [];
  const stop = watchConfigFile(
    path,
    {},
    (c) => applied.push(c.config.logLevel),
    (e) => errors.push(e.message),
    20,
  );
  try {
    await sleep(100); // the poller's first stat
    renameSync(path, `${path}.away`);
    await waitFor("the read failure", () => errors.length === 1);
    assert.match(errors[0] as string, /cannot read the configuration file/);
    renameSync(`${path}.away`, path);
    await waitFor("the same content applied again", () => applied.length === 1);
    assert.deepEqual(applied, ["warn"]);
  } finally {
    stop();
    rmSync(dir, { recursive: true, force: true });
  }
});

test("hot reload: a file turned into a list or emptied is rejected, not read as the defaults", async () => {
  const dir = mkdtempSync(join(tmpdir(), "cr-config-"));
  const path = join(dir, "config.yaml");
  writeFileSync(path, "logLevel: warn\n");
  const applied: string[] = [];
  const errors: string[] = [];
  const stop = watchConfigFile(
    path,
    withFlags,
    (c) => applied.push(c.config.logLevel),
    (e) => errors.push(e.message),
    20,
  );
  try {
    await sleep(100);
    writeFileSync(path, "- logLevel: error\n");
    await waitFor("the list rejected", () => errors.length === 1);
    assert.match(
      errors[0] as string,
      /expected a mapping of settings at the top level .* got a list of 1 item/,
    );
    writeFileSync(path, "");
    await waitFor("the empty file rejected", () => errors.length === 2);
    assert.match(errors[1] as string, /holds no settings/);
    writeFileSync(path, "logLevel: error\n");
    await waitFor("a good file applied", () => applied.length === 1);
    assert.deepEqual(applied, ["debug"], "the flag still overrides the file");
  } finally {
    stop();
    rmSync(dir, { recursive: true, force: true });
  }
});

test(`a file over ${maxConfigBytes} bytes is refused before it is parsed`, () => {
  const dir = mkdtempSync(join(tmpdir(), "cr-config-"));
  try {
    const path = join(dir, "config.yaml");
    const names = JSON.stringify(namespaces(262_144));
    writeFileSync(path, `resources:\n  - groups: ['*']\n    namespaces: ${names}\n`);
    // The size error, not the namespaces one: the YAML was never parsed.
    assert.throws(
      () => loadConfigFile(path),
      (error: unknown) =>
        error instanceof ConfigError &&
        error.problems[0] ===
          `${path}: cannot read the configuration file: the file is larger than ${maxConfigBytes} bytes, far more than a configuration needs`,
    );
    writeFileSync(path, `# ${"x".repeat(maxConfigBytes - 10)}\n{}\n`);
    assert.equal(loadConfigFile(path).config.listen, "127.0.0.1:9184", "just under the limit loads");
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
