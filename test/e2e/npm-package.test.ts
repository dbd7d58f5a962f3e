// The npm package as a user gets it: `npm pack` of this repository (its
// prepack builds dist/), the tarball installed into an empty prefix with its
// production dependencies, and its two commands run from that prefix's
// node_modules/.bin, where Node.js strips no TypeScript types: --help, explain
// and status against a real kube-apiserver, and the kubectl plugin's name.
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { existsSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { delimiter, dirname, join } from "node:path";
import { after, before, test } from "node:test";
import { promisify } from "node:util";
import { repositoryRoot } from "../../scripts/deploy-sync.ts";
import { condition, createCr, installCrd, patchStatus, refFor, useControlPlane } from "../cluster/index.ts";
import { table } from "../support/cli.ts";

const run = promisify(execFile);
const testbed = useControlPlane();
const scratch = mkdtempSync(join(tmpdir(), "cr-npm-package-"));
const prefix = join(scratch, "prefix");
// npm and the installed bins' `#!/usr/bin/env node` find this Node.js first.
const env = { ...process.env, PATH: [dirname(process.execPath), process.env.PATH].join(delimiter) };
let ns = "";

after(() => rmSync(scratch, { recursive: true, force: true }));

before(async () => {
  await run("npm", ["pack", "--silent", "--pack-destination", scratch], { cwd: repositoryRoot, env });
  const tarball = readdirSync(scratch).find((f) => f.endsWith(".tgz"));
  assert.ok(tarball, "npm pack wrote a tarball");
  assert.equal(existsSync(join(repositoryRoot, "dist")), false, "postpack removed dist/ from the clone");
  await run(
    "npm",
    [
      "install",
      "--prefix",
      prefix,
      "--omit=dev",
      "--no-audit",
      "--no-fund",
      "--prefer-offline",
      join(scratch, tarball),
    ],
    { env, timeout: 300_000 },
  );
  const plane = await testbed.ready();
  await installCrd(plane.admin.rest, "widgets");
  ns = await plane.createNamespace("pkg");
  const stuck = refFor("widgets", ns, "stuck-widget");
  await createCr(plane.admin.rest, stuck, "stuck-widget", { size: 1 });
  await patchStatus(plane.admin.rest, stuck, {
    observedGeneration: 1,
    conditions: [condition("Ready", "False", "ImagePullBackOff", "cannot pull", 1)],
  });
});

async function installed(
  bin: string,
  args: string[],
): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await run(join(prefix, "node_modules", ".bin", bin), args, {
      env,
      timeout: 60_000,
    });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const e = error as { code: number; stdout: string; stderr: string };
    return { code: e.code, stdout: e.stdout, stderr: e.stderr };
  }
}

test("the installed package carries JavaScript only, and its bin runs under node_modules", async () => {
  const files = readdirSync(join(prefix, "node_modules", "cr-status-exporter"), {
    recursive: true,
  }) as string[];
  assert.deepEqual(
    files.filter((f) => f.endsWith(".ts")),
    [],
    "no TypeScript: Node refuses to strip types under node_modules",
  );
  const help = await installed("cr-status-exporter", ["--help"]);
  assert.equal(help.code, 0, help.stderr);
  assert.match(help.stdout, /^Usage: cr-status-exporter/m);
  const version = await installed("cr-status-exporter", ["--version"]);
  assert.equal(version.stdout.trim(), "0.1.0");
});

test("explain and status from the installed package against a real apiserver", async () => {
  const kubeconfig = testbed.plane.kubeconfigPath;
  const explain = await installed("cr-status-exporter", ["explain", "--kubeconfig", kubeconfig]);
  assert.equal(explain.code, 0, explain.stderr);
  assert.match(explain.stdout, /widgets\.example\.com/);
  const status = await installed("cr-status-exporter", ["status", "--kubeconfig", kubeconfig, "-n", ns]);
  assert.equal(status.code, 0, status.stderr);
  assert.equal(table(status.stdout).get("stuck-widget")?.REASON, "ImagePullBackOff");
  const plugin = await installed("kubectl-cr_status", [
    "--kubeconfig",
    kubeconfig,
    "-n",
    ns,
    "--fail-if-not-ready",
  ]);
  assert.equal(plugin.code, 1, "the plugin is status: a not-Ready widget fails the gate");
  assert.ok(table(plugin.stdout).has("stuck-widget"));
});
