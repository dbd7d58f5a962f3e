// The exporter as users run it (`node src/main.ts`, what `npm start` runs):
// a configuration file reloaded while running — a bad edit is rejected and the
// last good configuration keeps running; a good edit takes effect, and a new
// metric selection re-renders without a restart — bad flags and files exit 2
// before serving, runtime failures exit 1, SIGTERM ends it cleanly with 0;
// -h/--help, --check-config; every stderr line is JSON; a full scrape passes
// `promtool check metrics`.
import assert from "node:assert/strict";
import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { condition, createCr, installCrd, patchStatus, refFor, useControlPlane } from "../cluster/index.ts";
import { eventually, series } from "../support/exporter.ts";
import { parseExposition } from "../support/exposition-check.ts";
import { promtoolCheckMetrics } from "../support/promtool.ts";

const main = join(import.meta.dirname, "..", "..", "src", "main.ts");
const testbed = useControlPlane();
let dir = "";
let ns = "";

before(async () => {
  const plane = await testbed.ready();
  await installCrd(plane.admin.rest, "widgets");
  await installCrd(plane.admin.rest, "gadgets");
  ns = await plane.createNamespace("main");
  await createCr(plane.admin.rest, refFor("widgets", ns, "w1"), "w1");
  await createCr(plane.admin.rest, refFor("gadgets", undefined, `${ns}-g1`), `${ns}-g1`);
  dir = mkdtempSync(join(tmpdir(), "cr-main-"));
});

after(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
});

function start(
  args: string[],
  launch: { nodeArgs?: string[]; env?: NodeJS.ProcessEnv } = {},
): { child: ChildProcess; url: Promise<string>; stderr: string[] } {
  const child = spawn(process.execPath, [...(launch.nodeArgs ?? []), main, ...args], {
    stdio: ["ignore", "ignore", "pipe"],
    env: launch.env ?? process.env,
  });
  const stderr: string[] = [];
  const url = new Promise<string>((resolve, reject) => {
    child.stderr?.setEncoding("utf8");
    child.stderr?.on("data", (chunk: string) => {
      stderr.push(chunk);
      const match = /"msg":"serving metrics","url":"([^"]+)\/metrics"/.exec(stderr.join(""));
      if (match?.[1]) resolve(match[1]);
    });
    child.once("exit", (code) => reject(new Error(`exited with ${code}: ${stderr.join("")}`)));
  });
  return { child, url, stderr };
}

/** The object labels of the widget every test watches. */
const w1Labels = () => ({ group: "example.com", kind: "Widget", namespace: ns, name: "w1" });

const widgetsOnly = "resources:\n  - group: example.com\n    resource: widgets\n";

/** Writes a configuration file into the test's directory and starts the exporter with it. */
function startWithConfig(file: string, content: string): ReturnType<typeof start> & { config: string } {
  const config = join(dir, file);
  writeFileSync(config, content);
  return {
    config,
    ...start(["--kubeconfig", testbed.plane.kubeconfigPath, "--config", config, "--listen", "127.0.0.1:0"]),
  };
}

async function scrape(url: string) {
  return parseExposition(await (await fetch(`${url}/metrics`)).text()).samples;
}

test("hot reload: a bad edit is rejected and counted, a good one takes effect", async () => {
  const { config, ...exporter } = startWithConfig("config.yaml", widgetsOnly);
  try {
    const url = await exporter.url;
    const widget = series("cr_metadata_generation", w1Labels());
    const gadget = series("cr_metadata_generation", {
      group: "example.com",
      kind: "Gadget",
      namespace: "",
      name: `${ns}-g1`,
    });
    await eventually("widget exported", async () => (await scrape(url)).get(widget) === 1);
    assert.equal((await scrape(url)).has(gadget), false);

    writeFileSync(
      config,
      "resources:\n  - group: example.com\n    resource: widgets\n    failedAfter: soon\n",
    );
    const rejected = await eventually("bad edit rejected", async () => {
      const s = await scrape(url);
      return s.get("cr_exporter_config_reload_success") === 0 ? s : undefined;
    });
    assert.equal(rejected.get('cr_exporter_config_reloads_total{result="failure"}'), 1);
    assert.equal(rejected.get(widget), 1, "the last good configuration keeps running");
    assert.match(
      exporter.stderr.join(""),
      /resources\[0\]\.failedAfter: expected a duration .* got \\"soon\\"/,
    );

    writeFileSync(
      config,
      "resources:\n  - group: example.com\n    resource: widgets\n  - group: example.com\n    resource: gadgets\n",
    );
    await eventually("good edit applied", async () => {
      const s = await scrape(url);
      return s.get("cr_exporter_config_reload_success") === 1 && s.get(gadget) === 1 && s.get(widget) === 1;
    });
  } finally {
    exporter.child.kill("SIGTERM");
  }
  const code = await new Promise<number | null>((resolve) => exporter.child.once("exit", resolve));
  assert.equal(code, 0, "SIGTERM ends the process cleanly");
});

async function stopped(child: ChildProcess): Promise<number | null> {
  child.kill("SIGTERM");
  return new Promise((resolve) => {
    if (child.exitCode !== null) resolve(child.exitCode);
    else child.once("exit", resolve);
  });
}

test("a reload that changes the metric selection re-renders without a restart or relist; a full scrape passes promtool", async () => {
  const { config, ...exporter } = startWithConfig("selection.yaml", widgetsOnly);
  try {
    const url = await exporter.url;
    const w1 = w1Labels();
    const seen = series("cr_metadata_generation", w1);
    await eventually("w1 exported", async () =>
      parseExposition(await (await fetch(`${url}/metrics`)).text()).samples.has(seen),
    );
    await patchStatus(testbed.plane.admin.rest, refFor("widgets", ns, "w1"), {
      conditions: [condition("Ready", "False", "Waiting", "", 1)],
    });
    const updates = series("cr_status_updates_total", w1);
    const reason = series("cr_condition_reason", { ...w1, type: "Ready", reason: "Waiting" });
    const before = await eventually("w1's status write counted", async () => {
      const text = await (await fetch(`${url}/metrics`)).text();
      const s = parseExposition(text).samples;
      return (s.get(updates) ?? 0) >= 1 && s.get(reason) === 1 ? { text, s } : undefined;
    });
    // Users run exactly this in CI: the whole scrape, process and runtime families included.
    promtoolCheckMetrics(before.text);
    const relists =
      'cr_exporter_relists_total{group="example.com",version="v1",kind="Widget",reason="initial"}';
    assert.equal(before.s.get(relists), 1);

    writeFileSync(
      config,
      "metrics:\n  deny: [cr_condition_reason]\nresources:\n  - group: example.com\n    resource: widgets\n    metrics:\n      optIn: [cr_condition_transitions_total]\n",
    );
    const after = await eventually("the new selection rendered", async () => {
      const text = await (await fetch(`${url}/metrics`)).text();
      return /^cr_condition_transitions_total\{/m.test(text) ? text : undefined;
    });
    const s = parseExposition(after).samples;
    assert.doesNotMatch(after, /cr_condition_reason/, "a denied family loses its series and its HELP/TYPE");
    assert.equal(s.get(updates), before.s.get(updates), "counters keep their values");
    assert.equal(s.get(relists), 1, "no relist");
    assert.equal(s.get("cr_exporter_config_reload_success"), 1);
    assert.equal(exporter.child.exitCode, null, "the same process");
  } finally {
    assert.equal(await stopped(exporter.child), 0);
  }
});

/** The command line and environment of a running process, as the kernel has them. */
function launchedWith(pid: number | undefined): { argv: string[]; env: Map<string, string> } {
  const read = (what: string) => readFileSync(`/proc/${pid}/${what}`, "latin1").split("\0").filter(Boolean);
  return {
    argv: read("cmdline"),
    env: new Map(read("environ").map((v) => [v.slice(0, v.indexOf("=")), v.slice(v.indexOf("=") + 1)])),
  };
}

test("started without its runtime flags and allocator setting, the process runs with them (same pid); the operator's own are kept", async () => {
  const { MALLOC_ARENA_MAX: _, ...environment } = process.env;
  const config = join(dir, "runtime.yaml");
  writeFileSync(config, widgetsOnly);
  const bare = start(
    ["--config", config, "--kubeconfig", testbed.plane.kubeconfigPath, "--listen", "127.0.0.1:0"],
    {
      env: environment,
    },
  );
  const own = start(
    ["--config", config, "--kubeconfig", testbed.plane.kubeconfigPath, "--listen", "127.0.0.1:0"],
    {
      nodeArgs: ["--max-semi-space-size=16"],
      env: { ...environment, MALLOC_ARENA_MAX: "4" },
    },
  );
  let codes: (number | null)[] = [];
  try {
    await Promise.all([bare.url, own.url]);
    const set = launchedWith(bare.child.pid);
    assert.equal(set.env.get("MALLOC_ARENA_MAX"), "2");
    for (const flag of [
      "--liftoff-only",
      "--max-semi-space-size=8",
      "--initial-old-space-size=64",
      "--heap-growing-percent=20",
    ])
      assert.ok(set.argv.includes(flag), `${flag} in ${set.argv.join(" ")}`);
    const kept = launchedWith(own.child.pid);
    assert.equal(kept.env.get("MALLOC_ARENA_MAX"), "4");
    assert.ok(kept.argv.includes("--max-semi-space-size=16"));
    assert.ok(!kept.argv.includes("--max-semi-space-size=8"));
    assert.ok(kept.argv.includes("--liftoff-only"), "the flags not given are still added");
  } finally {
    codes = await Promise.all([stopped(bare.child), stopped(own.child)]);
  }
  assert.deepEqual(codes, [0, 0], "SIGTERM ends both cleanly");
});

test("--metric-allowlist exports exactly the families named", async () => {
  const exporter = start([
    "--kubeconfig",
    testbed.plane.kubeconfigPath,
    "--listen",
    "127.0.0.1:0",
    "--metric-allowlist",
    "cr_condition,cr_metadata_generation,cr_status_observed_generation,cr_phase",
  ]);
  try {
    const url = await exporter.url;
    const w1 = series("cr_metadata_generation", w1Labels());
    const s = await eventually("w1 exported", async () => {
      const text = await (await fetch(`${url}/metrics`)).text();
      return parseExposition(text).samples.has(w1) ? parseExposition(text) : undefined;
    });
    const allowed = ["cr_condition", "cr_metadata_generation", "cr_phase", "cr_status_observed_generation"];
    const perObject = [...s.families.keys()].filter(
      (f) => f.startsWith("cr_") && !f.startsWith("cr_exporter_"),
    );
    assert.ok(perObject.includes("cr_metadata_generation"), perObject.join(" "));
    assert.deepEqual(
      perObject.filter((f) => !allowed.includes(f)),
      [],
      "no family outside the allow list, the per-kind histograms included",
    );
  } finally {
    assert.equal(await stopped(exporter.child), 0);
  }
});

function run(args: string[], env: NodeJS.ProcessEnv = process.env) {
  return spawnSync(process.execPath, [main, ...args], { encoding: "utf8", timeout: 30_000, env });
}

/** Every stderr line parsed as a JSON log record (a line that is not JSON fails the test). */
function logLines(stderr: string): Record<string, unknown>[] {
  return stderr
    .split("\n")
    .filter((line) => line !== "")
    .map((line) => {
      try {
        return JSON.parse(line) as Record<string, unknown>;
      } catch {
        throw new Error(`not a JSON log line: ${line}`);
      }
    });
}

test("bad configuration exits 2 before serving, as a JSON log line naming each field and value", () => {
  const config = join(dir, "bad.yaml");
  writeFileSync(config, "resources:\n  - groups: ['*']\n    mode: turbo\nlisten: nowhere\n");
  const result = run(["--kubeconfig", testbed.plane.kubeconfigPath, "--config", config]);
  assert.equal(result.status, 2, result.stderr);
  const [line, ...rest] = logLines(result.stderr);
  assert.deepEqual(rest, []);
  assert.equal(line?.level, "error");
  assert.equal(line?.msg, "invalid configuration");
  assert.deepEqual(line?.problems, [
    `${config}: resources[0].mode: expected one of objects, aggregate, got "turbo"`,
    `${config}: listen: expected host:port with a port from 0 to 65535, got "nowhere"`,
  ]);
});

test("configuration errors from flags and OTEL_* variables exit 2 too", () => {
  const flag = run(["--no-such-flag"]);
  assert.equal(flag.status, 2);
  assert.match(String(logLines(flag.stderr)[0]?.problems), /command line: Unknown option '--no-such-flag'/);
  const grpc = run(
    ["--kubeconfig", testbed.plane.kubeconfigPath, "--tracing-endpoint", "http://127.0.0.1:1"],
    {
      ...process.env,
      OTEL_EXPORTER_OTLP_PROTOCOL: "grpc",
    },
  );
  assert.equal(grpc.status, 2, grpc.stderr);
  assert.match(
    String(logLines(grpc.stderr).at(-1)?.problems),
    /OTEL_EXPORTER_OTLP_PROTOCOL: "grpc" is not supported/,
  );
});

test("no cluster configured: exit 1 with a clear JSON error, not a stack trace", () => {
  const result = run(["--kubeconfig", join(dir, "missing.yaml")]);
  assert.equal(result.status, 1);
  const last = logLines(result.stderr).at(-1);
  assert.equal(last?.msg, "cannot start");
  assert.match(String(last?.error), /missing\.yaml/);
  assert.doesNotMatch(result.stderr, /\n\s+at /, "no stack trace");
});

test("-h and --help: flags, environment variables and exit codes on stdout, exit 0", () => {
  const short = run(["-h"]);
  const long = run(["--help"]);
  assert.equal(short.status, 0);
  assert.equal(long.status, 0);
  assert.equal(short.stdout, long.stdout);
  assert.equal(long.stderr, "");
  for (const expected of [
    /^Usage: cr-status-exporter \[flags\]/,
    /--check-config PATH/,
    /^Environment:$/m,
    /^ {2}KUBECONFIG /m,
    /^ {2}OTEL_EXPORTER_OTLP_ENDPOINT, OTEL_EXPORTER_OTLP_TRACES_ENDPOINT$/m,
    /^ {2}OTEL_EXPORTER_OTLP_PROTOCOL, OTEL_EXPORTER_OTLP_TRACES_PROTOCOL$/m,
    /^Exit codes:$/m,
    /^ {2}0 {2}stopped by SIGTERM or SIGINT/m,
    /^ {2}1 {2}runtime error/m,
    /^ {2}2 {2}configuration error/m,
  ]) {
    assert.match(long.stdout, expected);
  }
});

test("--check-config: 0 for a valid file (without contacting a cluster), 2 naming the problem", () => {
  const good = join(dir, "good.yaml");
  writeFileSync(good, "resources:\n  - group: example.com\n    resource: widgets\n");
  const ok = run(["--check-config", good, "--kubeconfig", join(dir, "missing.yaml")]);
  assert.equal(ok.status, 0, ok.stderr);
  const [line] = logLines(ok.stderr);
  assert.equal(line?.msg, "configuration is valid");
  assert.equal(line?.config, good);
  assert.equal(line?.tracing, "off (no OTLP endpoint configured)");

  const traced = run(["--check-config", good], {
    ...process.env,
    OTEL_EXPORTER_OTLP_ENDPOINT: "http://collector:4318",
    OTEL_EXPORTER_OTLP_PROTOCOL: "http/json",
  });
  assert.equal(traced.status, 0, traced.stderr);
  assert.equal(logLines(traced.stderr)[0]?.tracing, "on (http/json to http://collector:4318/v1/traces)");

  const bad = join(dir, "bad-check.yaml");
  writeFileSync(bad, "resources:\n  - group: example.com\n    resource: widgets\n    failedAfter: soon\n");
  const rejected = run(["--check-config", bad]);
  assert.equal(rejected.status, 2);
  assert.match(
    String(logLines(rejected.stderr)[0]?.problems),
    /resources\[0\]\.failedAfter: expected a duration/,
  );
  assert.equal(
    run(["--check-config", join(dir, "absent.yaml")]).status,
    2,
    "an unreadable file is a config error",
  );
});
