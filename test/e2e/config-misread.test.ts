// The exporter process (`node src/main.ts`) given configuration files that
// could be misread: a file that is not a mapping, with the flags the shipped
// manifests pass; numbers YAML can spell but no setting means; namespace lists
// that would start thousands of watches; a certificate file that is missing.
// Each is refused at start (exit 2, naming the field) and on hot reload (the
// last good configuration keeps running and the reload gauge says so), and a
// file that could not be read for a while and comes back unchanged restores
// cr_exporter_config_reload_success to 1.
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdtempSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { createCr, installCrd, refFor, useControlPlane } from "../cluster/index.ts";
import { startExporterProcess } from "../deploy/exporter-process.ts";
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
  ns = await plane.createNamespace("misread");
  await createCr(plane.admin.rest, refFor("widgets", ns, "w1"), "w1");
  await createCr(plane.admin.rest, refFor("gadgets", undefined, `${ns}-g1`), `${ns}-g1`);
  dir = mkdtempSync(join(tmpdir(), "cr-misread-"));
});

after(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
});

/** The flags every shipped manifest passes besides --config. */
const flags = () => ["--kubeconfig", testbed.plane.kubeconfigPath, "--listen", "127.0.0.1:0"];

function namespaces(count: number): string {
  return JSON.stringify(Array.from({ length: count }, (_, i) => `ns-${i}`));
}

const refusedAtStart: [string, string | Buffer, RegExp][] = [
  [
    "a YAML list",
    "- group: example.com\n  resource: gadgets\n",
    /expected a mapping of settings .* got a list/,
  ],
  // Printed in a JSON log line, where quotes are escaped.
  ["a plain string", "watch widgets\n", /got a plain string \\?"watch widgets\\?"/],
  [
    "binary garbage",
    Buffer.concat([Buffer.from([0x1f, 0x8b, 0x08, 0x00]), randomBytes(64)]),
    /not a text file/,
  ],
  ["an empty file", "", /holds no settings .* write \{\} to use the defaults/],
  [
    "maxSeries: .nan",
    "resources:\n  - group: example.com\n    resource: widgets\n    maxSeries: .nan\n",
    /resources\[0\]\.maxSeries: expected an integer ≥ 0, got NaN/,
  ],
  [
    "failedAfter: .inf",
    "resources:\n  - group: example.com\n    resource: widgets\n    failedAfter: .inf\n",
    /resources\[0\]\.failedAfter: expected a duration .* got Infinity/,
  ],
  [
    "maxReasons: 1e300",
    "resources:\n  - group: example.com\n    resource: widgets\n    maxReasons: 1e300\n",
    /resources\[0\]\.maxReasons: expected an integer ≤ 2147483647, got 1e\+300/,
  ],
  [
    "501 namespaces in one entry",
    `resources:\n  - group: example.com\n    resource: widgets\n    namespaces: ${namespaces(501)}\n`,
    /resources\[0\]\.namespaces: 501 namespaces, more than the 500 allowed per resource entry/,
  ],
  [
    "262,144 namespaces (3 MB)",
    `resources:\n  - groups: ['*']\n    namespaces: ${namespaces(262_144)}\n`,
    /cannot read the configuration file: the file is larger than 262144 bytes/,
  ],
  [
    "three entries of 400 namespaces",
    `resources:\n${[0, 1, 2].map((i) => `  - group: example.com\n    resource: r${i}\n    namespaces: ${namespaces(400)}\n`).join("")}`,
    /resources: the entries start 1200 list\/watches .* more than the 1000 allowed/,
  ],
];

for (const [name, content, expected] of refusedAtStart) {
  test(`refused at start with flags, exit 2: ${name}`, () => {
    const path = join(dir, `start-${name.replace(/\W+/g, "-")}.yaml`);
    writeFileSync(path, content);
    const started = performance.now();
    const result = spawnSync(process.execPath, [main, ...flags(), "--config", path], {
      encoding: "utf8",
      timeout: 60_000,
    });
    const tookMs = Math.round(performance.now() - started);
    assert.equal(result.status, 2, `exit status; stderr: ${result.stderr}`);
    assert.match(result.stderr, expected);
    assert.doesNotMatch(result.stderr, /serving metrics/, "refused before serving");
    console.error(`# ${name}: exit 2 after ${tookMs} ms: ${result.stderr.trim().split("\n").at(-1)}`);
  });
}

test("a missing audit certificate file is named by its field, not a bare ENOENT", () => {
  const path = join(dir, "audit.yaml");
  const missing = join(dir, "no-such-dir", "tls.crt");
  writeFileSync(
    path,
    `resources:\n  - group: example.com\n    resource: widgets\nauditReceiver:\n  listen: 127.0.0.1:0\n  certFile: ${missing}\n  keyFile: ${missing}.key\n  bearerTokenFile: ${missing}.token\n`,
  );
  const result = spawnSync(process.execPath, [main, ...flags(), "--config", path], {
    encoding: "utf8",
    timeout: 60_000,
  });
  assert.equal(result.status, 2, `stderr: ${result.stderr}`);
  assert.match(
    result.stderr,
    new RegExp(
      `auditReceiver\\.certFile: cannot read \\\\?"${missing.replace(/[.]/g, "\\.")}\\\\?": no such file \\(ENOENT\\)`,
    ),
  );
  assert.doesNotMatch(result.stderr, /\n\s+at /, "no stack trace");
});

async function scrape(url: string) {
  return parseExposition(await (await fetch(`${url}/metrics`)).text()).samples;
}

test("hot reload: non-mappings and extreme files are rejected; a file back after a read failure restores success", async () => {
  const config = join(dir, "config.yaml");
  const good = "resources:\n  - group: example.com\n    resource: widgets\n";
  writeFileSync(config, good);
  const repo = join(import.meta.dirname, "..", "..");
  const exporter = await startExporterProcess(["node", main, ...flags(), "--config", config], {
    cwd: repo,
    env: process.env,
    startTimeoutMs: 60_000,
  });
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
  const success = "cr_exporter_config_reload_success";
  const failures = 'cr_exporter_config_reloads_total{result="failure"}';
  let code: number | null | undefined;
  try {
    const url = exporter.base;
    await eventually("widget exported", async () => (await scrape(url)).get(widget) === 1, 30_000);

    // Each bad file: rejected, counted, and the widgets-only configuration keeps running.
    const badFiles: [string, string][] = [
      ["a list naming gadgets", "- group: example.com\n  resource: gadgets\n"],
      ["a plain string", "gadgets\n"],
      ["an empty file", ""],
      ["1,200 watches", refusedAtStart[9]?.[1] as string],
      ["3 MB of namespaces", refusedAtStart[8]?.[1] as string],
    ];
    for (const [i, [name, content]] of badFiles.entries()) {
      writeFileSync(config, content);
      const seen = await eventually(
        `${name} rejected`,
        async () => {
          const s = await scrape(url);
          return s.get(failures) === i + 1 ? s : undefined;
        },
        20_000,
      );
      assert.equal(seen.get(success), 0, `${name}: reload_success`);
      assert.equal(seen.get(widget), 1, `${name}: the last good configuration keeps running`);
      assert.equal(seen.has(gadget), false, `${name}: the watched kinds did not change`);
      const healthStarted = performance.now();
      assert.equal((await fetch(`${url}/healthz`)).status, 200);
      console.error(
        `# ${name}: rejected; /healthz answered in ${Math.round(performance.now() - healthStarted)} ms`,
      );
      // Back to the good file (the same content as before): applied again.
      writeFileSync(config, good);
      await eventually(
        `good file back after ${name}`,
        async () => (await scrape(url)).get(success) === 1,
        20_000,
      );
    }

    // The file is gone for a while (a ConfigMap being replaced), then back unchanged.
    renameSync(config, `${config}.away`);
    await eventually("read failure reported", async () => (await scrape(url)).get(success) === 0, 20_000);
    renameSync(`${config}.away`, config);
    const restored = await eventually(
      "same content back: success restored",
      async () => {
        const s = await scrape(url);
        return s.get(success) === 1 ? s : undefined;
      },
      20_000,
    );
    assert.equal(restored.get(widget), 1);
    assert.match(exporter.lines.join("\n"), /expected a mapping of settings at the top level/);
  } finally {
    code = await exporter.stop();
  }
  assert.equal(code, 0, "SIGTERM ends the process cleanly");
});
