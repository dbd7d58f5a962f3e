// `npm start` without a cluster: a plain run starts the demo; a subcommand or a
// flag goes to the exporter, which says what it lacks (it used to start a
// second demo that died with EADDRINUSE). The real `npm start` is run for the
// two documented forms.
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, test } from "node:test";
import { startsDemo } from "../../scripts/start.ts";
import { defaultKubeConfigOrigin, noKubeConfigMessage } from "../../src/kube/kubeconfig.ts";

const root = join(import.meta.dirname, "..", "..");
const home = mkdtempSync(join(tmpdir(), "cr-start-home-"));
after(() => rmSync(home, { recursive: true, force: true }));

const nothing = () => false;

test("the default kubeconfig comes from an existing KUBECONFIG file, else ~/.kube/config, else the pod", () => {
  const exists = (paths: string[]) => (p: string) => paths.includes(p);
  assert.equal(defaultKubeConfigOrigin({ KUBECONFIG: "/a:/b" }, exists(["/b"]), "/h"), "KUBECONFIG");
  // kubectl reads ~/.kube/config only when KUBECONFIG is unset or empty.
  assert.equal(defaultKubeConfigOrigin({ KUBECONFIG: "/a" }, exists(["/h/.kube/config"]), "/h"), undefined);
  assert.equal(
    defaultKubeConfigOrigin({ KUBECONFIG: "" }, exists(["/h/.kube/config"]), "/h"),
    "~/.kube/config",
  );
  assert.equal(defaultKubeConfigOrigin({}, exists(["/other/.kube/config"]), "/h"), undefined);
  assert.equal(defaultKubeConfigOrigin({ KUBERNETES_SERVICE_HOST: "10.0.0.1" }, nothing, "/h"), "in-cluster");
  assert.equal(defaultKubeConfigOrigin({}, nothing, "/h"), undefined);
});

test("only a plain npm start without a cluster starts the demo", () => {
  const noCluster = { HOME: home };
  assert.equal(startsDemo([], noCluster), true);
  assert.equal(startsDemo(["status"], noCluster), false);
  assert.equal(startsDemo(["--check-config", "config.example.yaml"], noCluster), false);
  assert.equal(startsDemo([], { KUBERNETES_SERVICE_HOST: "10.0.0.1" }), false);
});

function npmStart(args: string[], env: Record<string, string> = {}) {
  const clean = Object.fromEntries(
    Object.entries(process.env).filter(
      ([key]) => key !== "KUBECONFIG" && key !== "KUBERNETES_SERVICE_HOST" && !key.startsWith("NODE_TEST"),
    ),
  );
  return spawnSync("npm", ["start", "--silent", "--", ...args], {
    cwd: root,
    encoding: "utf8",
    env: { ...clean, HOME: home, ...env },
    timeout: 60_000,
  });
}

test("npm start -- --check-config FILE without a kubeconfig checks the file and starts no demo", () => {
  const run = npmStart(["--check-config", "config.example.yaml"]);
  assert.equal(run.status, 0, run.stderr);
  assert.match(run.stdout + run.stderr, /configuration is valid/);
  assert.doesNotMatch(run.stdout + run.stderr, /demo/);
});

test("npm start -- status without a kubeconfig says none was found (exit 2) and starts no demo", () => {
  const run = npmStart(["status"]);
  assert.equal(run.status, 2, run.stdout + run.stderr);
  assert.ok(run.stderr.includes(noKubeConfigMessage), run.stderr);
  assert.doesNotMatch(run.stdout + run.stderr, /demo|skipTLSVerify/);
});

test("a kubeconfig in ~/.kube/config is used without KUBECONFIG", () => {
  const kube = join(home, ".kube");
  mkdirSync(kube, { recursive: true });
  // A cluster on a port nothing listens on: the error is about that server, not a missing kubeconfig.
  writeFileSync(
    join(kube, "config"),
    [
      "apiVersion: v1",
      "kind: Config",
      "clusters: [{name: c, cluster: {server: 'https://127.0.0.1:1'}}]",
      "users: [{name: u, user: {token: t}}]",
      "contexts: [{name: x, context: {cluster: c, user: u}}]",
      "current-context: x",
    ].join("\n"),
  );
  try {
    const run = npmStart(["status"]);
    assert.notEqual(run.status, 0);
    assert.ok(!run.stderr.includes(noKubeConfigMessage), run.stderr);
    assert.match(run.stderr, /127\.0\.0\.1:1|ECONNREFUSED/);
  } finally {
    rmSync(kube, { recursive: true, force: true });
  }
});
