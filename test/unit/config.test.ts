import assert from "node:assert/strict";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { setTimeout as sleep } from "node:timers/promises";
import { flagOverrides, parseFlags } from "../../src/config/flags.ts";
import {
  expandEnvironment,
  loadConfigFile,
  parseConfigText,
  watchConfigFile,
} from "../../src/config/load.ts";
import { ConfigError, validateConfig } from "../../src/config/validate.ts";
import { objectFamilies } from "../../src/core/series/catalog.ts";
import { type FamilyRules, selectFamilies } from "../../src/core/series/family-selection.ts";
import { problems } from "../support/config-problems.ts";

test("config.example.yaml loads and says what it shows", () => {
  const { config } = loadConfigFile(new URL("../../config.example.yaml", import.meta.url).pathname);
  assert.equal(config.resources.length, 2);
  const widgets = config.resources[0];
  assert.equal(widgets?.group, "example.com");
  assert.equal(widgets?.options.failedAfterSeconds, 300);
  assert.deepEqual(widgets?.options.phaseTransitions?.Pending, ["Provisioning", "Failed"]);
  assert.equal(config.tracing.generationTimeoutSeconds, 3600);
});

test("{} means defaults: every CRD, loopback listen", () => {
  const config = parseConfigText("{}", "empty.yaml");
  assert.equal(config.listen, "127.0.0.1:9184");
  assert.deepEqual(config.resources[0]?.groups, ["*"]);
});

test("readyCondition is unset unless given (detection chooses per kind); phaseResults as given", () => {
  const config = validateConfig({
    resources: [
      {
        group: "a.io",
        resource: "runs",
        readyCondition: "Succeeded",
        phaseResults: { Paused: "InProgress" },
      },
      { groups: ["*"] },
    ],
  });
  assert.equal(config.resources[0]?.options.readyCondition, "Succeeded");
  assert.deepEqual(config.resources[0]?.options.phaseResults, { Paused: "InProgress" });
  assert.equal(config.resources[1]?.options.readyCondition, undefined);
  assert.equal(config.resources[1]?.options.phaseResults, undefined);
});

const bad: [string, unknown, RegExp][] = [
  ["unknown top-level key", { lisen: "x" }, /^lisen: unknown key \(allowed: listen,/],
  [
    "unknown resource key",
    { resources: [{ groups: ["*"], namespace: ["a"] }] },
    /^resources\[0\]\.namespace: unknown key/,
  ],
  [
    "bad duration names path and value",
    { resources: [{ groups: ["*"], failedAfter: "soon" }] },
    /^resources\[0\]\.failedAfter: expected a duration .*, got "soon"$/,
  ],
  [
    "a phase result that is not one of the three",
    { resources: [{ groups: ["*"], phaseResults: { Running: "Current", Paused: "Sleeping" } }] },
    /^resources\[0\]\.phaseResults\.Paused: expected one of Current, InProgress, Failed, got "Sleeping"$/,
  ],
  [
    "phaseResults not a mapping",
    { resources: [{ groups: ["*"], phaseResults: ["Failed"] }] },
    /^resources\[0\]\.phaseResults: expected a mapping from phase to one of Current, InProgress, Failed, got \["Failed"\]$/,
  ],
  [
    "a readyCondition that is not a condition type",
    { resources: [{ groups: ["*"], readyCondition: "Ready=True" }] },
    /^resources\[0\]\.readyCondition: expected a condition type such as Ready, got "Ready=True"$/,
  ],
  [
    "wrong type",
    { resources: [{ groups: ["*"], namespaces: "default" }] },
    /^resources\[0\]\.namespaces: expected a list of strings, got "default"$/,
  ],
  [
    "explicit and discovery mixed",
    { resources: [{ group: "a.io", resource: "xs", groups: ["*"] }] },
    /not both/,
  ],
  ["explicit without resource or kind", { resources: [{ group: "a.io" }] }, /needs group and resource/],
  [
    "reserved extra label name",
    { resources: [{ groups: ["*"], labels: [{ fromLabel: "x", name: "namespace" }] }] },
    /reserved/,
  ],
  [
    "tracing.operation without finishedAt",
    {
      resources: [
        {
          group: "argoproj.io",
          resource: "applications",
          tracing: { operation: { startedAt: "status.operationState.startedAt" } },
        },
      ],
    },
    /^resources\[0\]\.tracing\.operation\.finishedAt: required/,
  ],
  [
    "tracing.operation with a path that is no dotted path",
    {
      resources: [
        {
          group: "argoproj.io",
          resource: "applications",
          tracing: {
            operation: { startedAt: "status..startedAt", finishedAt: "status.operationState.finishedAt" },
          },
        },
      ],
    },
    /^resources\[0\]\.tracing\.operation\.startedAt: expected a dotted field path/,
  ],
  ["bad prefix", { metricPrefix: "9x" }, /^metricPrefix: expected a metric name prefix/],
  [
    "bad mode",
    { resources: [{ groups: ["*"], mode: "fast" }] },
    /^resources\[0\]\.mode: expected one of objects, aggregate, got "fast"$/,
  ],
  [
    "static mode needs full identity",
    { crdDiscovery: false, resources: [{ group: "a.io", resource: "xs" }] },
    /crdDiscovery: false/,
  ],
  [
    "a metric family pattern that matches nothing names the field and the value",
    { metrics: { deny: ["cr_condition", "cr_conditon_reason"] } },
    /^metrics\.deny\[1\]: "cr_conditon_reason" matches no metric family/,
  ],
  [
    "per resource too",
    { resources: [{ groups: ["*"], metrics: { allow: ["cr_status_update"] } }] },
    /^resources\[0\]\.metrics\.allow\[0\]: "cr_status_update" matches no metric family/,
  ],
  [
    "names are matched with the configured prefix",
    { metricPrefix: "crs_", metrics: { allow: ["cr_condition"] } },
    /^metrics\.allow\[0\]: "cr_condition" matches no metric family \(names are as exported, e\.g\. crs_condition/,
  ],
  [
    "allow and deny together",
    { metrics: { allow: ["cr_condition"], deny: ["cr_phase"] } },
    /^metrics: allow and deny are mutually exclusive/,
  ],
  [
    "optIn next to allow",
    { resources: [{ groups: ["*"], metrics: { allow: ["cr_condition"], optIn: ["cr_condition_stale"] } }] },
    /^resources\[0\]\.metrics\.optIn: has no effect next to allow/,
  ],
  [
    "not a family name",
    { metrics: { optIn: ["cr condition"] } },
    /^metrics\.optIn\[0\]: expected a metric family name or a glob such as cr_condition\*, got "cr condition"$/,
  ],
  [
    "unknown metrics key",
    { metrics: { include: ["cr_*"] } },
    /^metrics\.include: unknown key \(allowed: allow, deny, optIn\)$/,
  ],
  [
    "the removed conditionReasons option says what replaced it",
    { resources: [{ groups: ["*"], conditionReasons: true }] },
    /^resources\[0\]\.conditionReasons: no longer an option: cr_condition_reason is in the default set/,
  ],
  [
    "API proxy plainHttp not a boolean",
    { apiProxy: { listen: "127.0.0.1:8001", plainHttp: "yes" } },
    /^apiProxy\.plainHttp: expected true or false, got "yes"$/,
  ],
  [
    "API proxy user given twice",
    { apiProxy: { listen: "127.0.0.1:8001", tokenFile: "/t", userFromKubeconfig: "/k" } },
    /^apiProxy: give tokenFile or userFromKubeconfig, not both/,
  ],
  [
    "audit receiver needs authentication",
    { auditReceiver: { listen: ":9443", certFile: "c", keyFile: "k" } },
    /must be authenticated/,
  ],
];
for (const [name, input, expected] of bad) {
  test(`rejected: ${name}`, () => {
    const found = problems(input);
    assert.ok(
      found.some((p) => expected.test(p)),
      `expected a problem matching ${expected}, got ${JSON.stringify(found)}`,
    );
  });
}

test("per-resource metrics rules are matched with the configured prefix, not cr_", () => {
  const found = problems({
    metricPrefix: "crs_",
    resources: [{ groups: ["*"], metrics: { deny: ["crs_phase", "cr_phase"] } }],
  });
  assert.equal(found.length, 1, JSON.stringify(found));
  assert.match(
    found[0] ?? "",
    /^resources\[0\]\.metrics\.deny\[1\]: "cr_phase" matches no metric family \(names are as exported, e\.g\. crs_condition/,
  );
});

test("every problem is reported at once", () => {
  assert.equal(
    problems({ listen: 1, logLevel: "loud", resources: [{ groups: ["*"], maxSeries: -1 }] }).length,
    3,
  );
});

test("YAML syntax errors name the file and line", () => {
  assert.throws(
    () => parseConfigText("resources:\n  - groups: [\n", "bad.yaml"),
    /bad\.yaml: not valid YAML at line \d/,
  );
});

test("flags override the file and go through the same validation", () => {
  const flags = parseFlags(["--listen", "0.0.0.0:9999", "--api-proxy-listen", "127.0.0.1:8001"]);
  const config = parseConfigText("listen: 127.0.0.1:1\nlogLevel: warn\n", "f.yaml", flagOverrides(flags));
  assert.equal(config.listen, "0.0.0.0:9999");
  assert.equal(config.logLevel, "warn");
  assert.equal(config.apiProxy?.listen, "127.0.0.1:8001");
  assert.equal(config.apiProxy?.plainHttp, false, "TLS unless asked");
  const plain = parseConfigText(
    "{}",
    "f.yaml",
    flagOverrides(parseFlags(["--api-proxy-listen", "127.0.0.1:1", "--api-proxy-plain-http"])),
  );
  assert.equal(plain.apiProxy?.plainHttp, true);
  assert.throws(
    () => parseConfigText("{}", "f.yaml", flagOverrides(parseFlags(["--listen", "x"]))),
    / {2}--listen: listen: expected host:port/,
  );
});

test("a bad flag value is blamed on the flag, the file's own mistakes on the file", () => {
  const flags = parseFlags(["--metric-allowlist", "cr_nope", "--api-proxy-listen", "127.0.0.1:70000"]);
  const error = (() => {
    try {
      parseConfigText("logLevel: loud\n", "f.yaml", flagOverrides(flags));
    } catch (e) {
      return e as ConfigError;
    }
    assert.fail("refused");
  })();
  assert.deepEqual(error.problems.map((p) => p.split(": ").slice(0, 2).join(": ")).sort(), [
    "--api-proxy-listen: apiProxy.listen",
    "--metric-allowlist: metrics.allow[0]",
    "f.yaml: logLevel",
  ]);
  // A flag only takes the blame for the path it set: the file's apiProxy keys stay the file's.
  assert.match(
    (() => {
      try {
        parseConfigText(
          "apiProxy: { listen: '127.0.0.1:1', plainHttp: yes }\n",
          "f.yaml",
          flagOverrides(parseFlags(["--api-proxy-listen", "127.0.0.1:2"])),
        );
      } catch (e) {
        return (e as ConfigError).problems.join("\n");
      }
      return "";
    })(),
    /^f\.yaml: apiProxy\.plainHttp/,
  );
});

test("listen ports run from 0 to 65535, on every listening option", () => {
  for (const [key, wrap] of [
    ["listen", (v: string) => ({ listen: v })],
    ["apiProxy.listen", (v: string) => ({ apiProxy: { listen: v } })],
    ["auditReceiver.listen", (v: string) => ({ auditReceiver: { listen: v, certFile: "c", keyFile: "k" } })],
  ] as const) {
    for (const ok of ["127.0.0.1:0", "0.0.0.0:65535", "[::1]:9184", ":443"]) {
      assert.deepEqual(
        problems(wrap(ok)).filter((p) => p.startsWith(key)),
        [],
        `${key} ${ok}`,
      );
    }
    for (const refused of ["0.0.0.0:65536", "0.0.0.0:99999", "host:", "host:-1", "host:1e3"]) {
      assert.ok(
        problems(wrap(refused)).some((p) =>
          p.startsWith(`${key}: expected host:port with a port from 0 to 65535`),
        ),
        `${key} ${refused}`,
      );
    }
  }
});

test("metric family rules: globs select from the catalog, globally and refined per resource", () => {
  const config = validateConfig({
    metrics: { deny: ["cr_condition_reason"] },
    resources: [
      { group: "a.io", resource: "xs", metrics: { optIn: ["cr_condition_transitions_total"] } },
      { group: "b.io", resource: "ys", metrics: { allow: ["cr_condition*"] } },
    ],
  });
  const names = (rules: FamilyRules[]) => {
    const s = selectFamilies(config.metricPrefix, rules);
    return objectFamilies.filter((f) => s.objects & (1 << f.slot)).map((f) => `cr_${f.suffix}`);
  };
  const [xs, ys] = config.resources.map((r) => names([config.metrics, r.options.metrics]));
  assert.ok(xs?.includes("cr_condition_transitions_total"), "opted in");
  assert.ok(!xs?.includes("cr_condition_reason"), "denied globally");
  assert.ok(xs?.includes("cr_status_updates_total"), "the rest of the default set");
  assert.deepEqual(ys, [
    "cr_condition",
    "cr_condition_last_transition_timestamp_seconds",
    "cr_condition_reason",
    "cr_condition_stale",
    "cr_condition_transitions_total",
  ]);
});

test("metric flags replace the file's global rules (kube-state-metrics' flag names)", () => {
  const file = "metrics:\n  deny: [cr_phase]\n";
  const allow = parseConfigText(
    file,
    "f.yaml",
    flagOverrides(parseFlags(["--metric-allowlist", "cr_condition, cr_metadata_generation"])),
  );
  assert.deepEqual(allow.metrics, {
    allow: ["cr_condition", "cr_metadata_generation"],
    deny: undefined,
    optIn: undefined,
  });
  const optIn = parseConfigText(
    file,
    "f.yaml",
    flagOverrides(parseFlags(["--metric-opt-in-list", "cr_condition_stale"])),
  );
  assert.deepEqual(optIn.metrics.optIn, ["cr_condition_stale"]);
  assert.equal(optIn.metrics.deny, undefined);
  assert.throws(
    () => parseConfigText("{}", "f.yaml", flagOverrides(parseFlags(["--metric-denylist", "cr_nothing*"]))),
    /metrics\.deny\[0\]: "cr_nothing\*" matches no metric family/,
  );
});

test("hot reload: good changes are delivered, bad ones reported, unchanged content ignored", async () => {
  const dir = mkdtempSync(join(tmpdir(), "cr-config-"));
  const path = join(dir, "config.yaml");
  writeFileSync(path, "logLevel: info\n");
  const changes: string[] = [];
  const errors: string[] = [];
  const stop = watchConfigFile(
    path,
    {},
    (c) => changes.push(c.config.logLevel),
    (e) => errors.push(e.message),
    50,
  );
  try {
    // Let the poller take its first stat before the file changes.
    await sleep(200);
    writeFileSync(path, "logLevel: debug\n");
    await waitFor(() => changes.length === 1);
    writeFileSync(path, "logLevel: [\n");
    await waitFor(() => errors.length === 1);
    writeFileSync(path, "logLevel: loud\n");
    await waitFor(() => errors.length === 2);
    assert.match(errors[1] as string, /logLevel: expected one of debug, info, warn, error, got "loud"/);
    assert.deepEqual(changes, ["debug"]);
  } finally {
    stop();
  }
});

async function waitFor(condition: () => boolean): Promise<void> {
  for (let i = 0; i < 200 && !condition(); i++) await sleep(25);
  assert.ok(condition(), "timed out");
}

test("environment variables expand in the file; unset ones are named", () => {
  const env = { POD_NAMESPACE: "team-a" };
  assert.equal(expandEnvironment("namespaces: [${POD_NAMESPACE}]", "f.yaml", env), "namespaces: [team-a]");
  assert.equal(expandEnvironment("x: ${MISSING:-fallback}", "f.yaml", env), "x: fallback");
  assert.equal(expandEnvironment("x: $${POD_NAMESPACE}", "f.yaml", env), "x: ${POD_NAMESPACE}");
  assert.throws(
    () => expandEnvironment("a: ${NOPE}\nb: ${ALSO_NOPE}", "f.yaml", env),
    (error: unknown) =>
      error instanceof ConfigError &&
      error.problems.length === 2 &&
      /f\.yaml: \$\{NOPE\} is used but the environment variable NOPE is not set/.test(error.message),
  );
});

test("expansion applies to values in the file, not to comments", () => {
  const previous = process.env.CR_TEST_NS;
  process.env.CR_TEST_NS = "team-b";
  try {
    const config = parseConfigText(
      '# e.g. ${NOT_SET_ANYWHERE}\nresources:\n  - groups: ["*"]\n    namespaces: ["${CR_TEST_NS}"]\n',
      "f.yaml",
    );
    assert.deepEqual(config.resources[0]?.options.namespaces, ["team-b"]);
  } finally {
    if (previous === undefined) delete process.env.CR_TEST_NS;
    else process.env.CR_TEST_NS = previous;
  }
});
