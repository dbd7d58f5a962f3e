// The exporter as users run it (`node src/main.ts`, what `npm start` runs):
// a configuration file reloaded while running — a bad edit is rejected and the
// last good configuration keeps running; a good edit takes effect — bad flags
// and files exit non-zero before serving, and SIGTERM ends it cleanly.
import assert from "node:assert/strict";
import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { createCr, installCrd, refFor, useControlPlane } from "../cluster/index.ts";
import { eventually, series } from "../support/exporter.ts";
import { parseExposition } from "../support/exposition-check.ts";

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

function start(args: string[]): { child: ChildProcess; url: Promise<string>; stderr: string[] } {
  const child = spawn(process.execPath, [main, ...args], { stdio: ["ignore", "ignore", "pipe"] });
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

async function scrape(url: string) {
  return parseExposition(await (await fetch(`${url}/metrics`)).text()).samples;
}

test("hot reload: a bad edit is rejected and counted, a good one takes effect", async () => {
  const config = join(dir, "config.yaml");
  writeFileSync(config, "resources:\n  - group: example.com\n    resource: widgets\n");
  const exporter = start([
    "--kubeconfig",
    testbed.plane.kubeconfigPath,
    "--config",
    config,
    "--listen",
    "127.0.0.1:0",
  ]);
  try {
    const url = await exporter.url;
    const widget = series("cr_metadata_generation", {
      group: "example.com",
      kind: "Widget",
      namespace: ns,
      name: "w1",
    });
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

test("bad configuration exits 2 before serving, naming the field and value", () => {
  const config = join(dir, "bad.yaml");
  writeFileSync(config, "resources:\n  - groups: ['*']\n    mode: turbo\nlisten: nowhere\n");
  const result = spawnSync(
    process.execPath,
    [main, "--kubeconfig", testbed.plane.kubeconfigPath, "--config", config],
    {
      encoding: "utf8",
      timeout: 30_000,
    },
  );
  assert.equal(result.status, 2);
  assert.match(result.stderr, /resources\[0\]\.mode: expected one of objects, aggregate, got "turbo"/);
  assert.match(result.stderr, /listen: expected host:port, got "nowhere"/);
});

test("no cluster configured: a clear error, not a stack trace", () => {
  const result = spawnSync(process.execPath, [main, "--kubeconfig", join(dir, "missing.yaml")], {
    encoding: "utf8",
    timeout: 30_000,
  });
  assert.equal(result.status, 1);
  assert.match(result.stderr, /^cr-status-exporter: .*missing\.yaml/m);
  assert.doesNotMatch(result.stderr, /\n\s+at /, "no stack trace");
});
