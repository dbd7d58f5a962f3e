// The shipped deployment, run for real against a real apiserver:
// - the image's command (Dockerfile ENTRYPOINT + the Deployment's args, the
//   rendered ConfigMap mounted where the Deployment mounts it) starts the
//   exporter, as a user bound only to the rendered ClusterRole;
// - a resource outside that grant gives a Forbidden watch-error metric and a
//   /readyz that says why, not a crash;
// - the same for the sidecar's namespaced Role with crdDiscovery: false.
// Everything listens on 127.0.0.1:0 here (`--listen`, which overrides the
// file's 0.0.0.0:9184) and reads credentials from KUBECONFIG, which the
// in-cluster loading honours before the pod's service account.
import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { parse } from "yaml";
import { repositoryRoot } from "../../scripts/deploy-sync.ts";
import {
  ControlPlane,
  condition,
  createCr,
  installCrd,
  loadFixtureCrd,
  patchStatus,
  refFor,
  type TestUser,
  waitUntil,
} from "../cluster/index.ts";
import { type ExporterProcess, startExporterProcess } from "../deploy/exporter-process.ts";
import { find, type KubeObject, type RenderedModes, renderAll } from "../deploy/render.ts";
import {
  bindClusterRole as bindRenderedClusterRole,
  bindRole as bindRenderedRole,
  commandFor as renderedCommand,
} from "../deploy/rendered-run.ts";
import { resolveDeployTools } from "../deploy/tools.ts";

let plane: ControlPlane | undefined;
let rendered: RenderedModes;
const scratch = mkdtempSync(join(tmpdir(), "cr-deploy-rbac-"));
const running: ExporterProcess[] = [];
const sidecarNamespace = "example-operator-system";
let appNamespace = "";

function cp(): ControlPlane {
  if (!plane) throw new Error("the control plane is not started");
  return plane;
}

before(async () => {
  rendered = renderAll(resolveDeployTools());
  plane = await ControlPlane.start();
  const rest = plane.admin.rest;
  for (const crd of ["widgets", "gadgets", "sprockets", "gizmos"] as const) await installCrd(rest, crd);
  appNamespace = await plane.createNamespace("app");
  await rest.create("/api/v1/namespaces", { metadata: { name: sidecarNamespace } });
  const ready = [condition("Ready", "True")];
  for (const [ref, name] of [
    [refFor("widgets", appNamespace), "shop"],
    [refFor("widgets", sidecarNamespace), "operated"],
    [refFor("gadgets"), "fleet"],
  ] as const) {
    await createCr(rest, ref, name);
    await patchStatus(rest, { ...ref, name }, { conditions: ready });
  }
});

after(async () => {
  for (const exporter of running) await exporter.stop().catch(() => undefined);
  await plane?.stop();
  rendered?.cleanup();
  rmSync(scratch, { recursive: true, force: true });
});

/** The image's command for the workload's exporter container (see rendered-run.ts). */
function commandFor(
  objects: KubeObject[],
  deployment: KubeObject,
  label: string,
  edit?: (config: Record<string, unknown>) => void,
): string[] {
  return renderedCommand(objects, deployment, scratch, label, edit);
}

const bindClusterRole = (user: TestUser, clusterRole: KubeObject) =>
  bindRenderedClusterRole(cp().admin.rest, user, clusterRole);
const bindRole = (user: TestUser, role: KubeObject) => bindRenderedRole(cp().admin.rest, user, role);

async function start(command: string[], user: TestUser, podNamespace?: string): Promise<ExporterProcess> {
  const exporter = await startExporterProcess(command, {
    cwd: repositoryRoot,
    // POD_NAMESPACE stands in for the downward API the sidecar manifests use.
    env: {
      PATH: process.env.PATH,
      HOME: process.env.HOME,
      KUBECONFIG: user.kubeconfigPath,
      ...(podNamespace !== undefined && { POD_NAMESPACE: podNamespace }),
    },
  });
  running.push(exporter);
  return exporter;
}

async function text(url: string): Promise<{ status: number; body: string }> {
  const response = await fetch(url);
  return { status: response.status, body: await response.text() };
}

function series(metrics: string, name: string, labels: Record<string, string>): string[] {
  return metrics
    .split("\n")
    .filter(
      (line) =>
        line.startsWith(`${name}{`) && Object.entries(labels).every(([k, v]) => line.includes(`${k}="${v}"`)),
    );
}

const watchErrors = "cr_exporter_watch_errors_total";

for (const [title, objects] of [
  ["kustomize base", () => rendered.kustomizeBase],
  ["helm chart, ci/values-all.yaml", () => rendered.helmAll],
] as const) {
  test(`${title}: the image's command starts the exporter with the shipped config, as a user bound only to the rendered ClusterRole`, async (t) => {
    const user = cp().mintUser();
    await bindClusterRole(user, find(objects(), "ClusterRole"));
    const deployment = find(objects(), "Deployment");
    // HTTPS with Kubernetes auth, the audit receiver and tracing need Secrets and peers of their own: their
    // tests are metrics-tls, status-writes and tracing. Here: the watches under the rendered RBAC.
    const command = commandFor(objects(), deployment, "cluster", (config) => {
      for (const key of ["webConfigFile", "metricsAuth", "auditReceiver", "tracing"]) delete config[key];
    });
    t.diagnostic(`command: ${command.join(" ")}`);
    const exporter = await start(command, user);
    await waitUntil(
      "/readyz 200",
      30_000,
      async () => (await text(`${exporter.base}/readyz`)).status === 200,
    );
    const readyz = await text(`${exporter.base}/readyz`);
    t.diagnostic(`/readyz: ${readyz.body.trim().replaceAll("\n", " | ")}`);
    const metrics = (await text(`${exporter.base}/metrics`)).body;
    assert.equal(
      series(metrics, "cr_condition", { kind: "Widget", name: "shop", type: "Ready", status: "True" }).length,
      1,
    );
    assert.equal(
      series(metrics, "cr_condition", { kind: "Gadget", name: "fleet", type: "Ready", status: "True" })
        .length,
      1,
    );
    assert.deepEqual(
      metrics.split("\n").filter((l) => l.startsWith(`${watchErrors}{`)),
      [],
      "no watch errors",
    );
    assert.equal(await exporter.stop(), 0, "SIGTERM ends the exporter cleanly");
    assert.ok(exporter.lines.some((l) => l.includes('"shutting down"')));
  });
}

test("cluster mode: a resource outside the rendered ClusterRole is a Forbidden metric and a /readyz reason, not a crash", async (t) => {
  const user = cp().mintUser();
  await bindClusterRole(user, find(rendered.kustomizeBase, "ClusterRole"));
  const deployment = find(rendered.kustomizeBase, "Deployment");
  const command = commandFor(rendered.kustomizeBase, deployment, "forbidden", (config) => {
    (config.resources as unknown[]).push({ group: "example.com", resource: "sprockets" });
  });
  const exporter = await start(command, user);
  let metrics = "";
  await waitUntil("a 403 watch error for sprockets", 30_000, async () => {
    metrics = (await text(`${exporter.base}/metrics`)).body;
    return series(metrics, watchErrors, { kind: "Sprocket", code: "403" }).length > 0;
  });
  for (const line of series(metrics, watchErrors, { kind: "Sprocket" })) t.diagnostic(line);
  assert.equal(series(metrics, "cr_condition", { kind: "Widget", name: "shop", status: "True" }).length, 1);
  const readyz = await text(`${exporter.base}/readyz`);
  t.diagnostic(`/readyz ${readyz.status}: ${readyz.body.trim().replaceAll("\n", " | ")}`);
  assert.equal(readyz.status, 503);
  assert.match(readyz.body, /sprockets\.example\.com\/v1: not ready: .*forbidden/i);
  assert.match(readyz.body, /widgets\.example\.com\/v1: synced/);
  assert.equal(exporter.child.exitCode, null, "still running");
  assert.equal(await exporter.stop(), 0);
});

test("sidecar mode: the rendered namespaced Role (crdDiscovery: false) exports the operator's resources; others are Forbidden", async (t) => {
  const user = cp().mintUser();
  const role = find(rendered.kustomizeSidecar, "Role");
  assert.equal(role.metadata.namespace, sidecarNamespace);
  await bindRole(user, role);
  const deployment = find(rendered.kustomizeSidecar, "Deployment");
  const gizmos = loadFixtureCrd("gizmos");
  const gizmoVersion = gizmos.spec.versions.find((v) => v.storage)?.name;
  const command = commandFor(rendered.kustomizeSidecar, deployment, "sidecar", (config) => {
    assert.equal(config.crdDiscovery, false);
    (config.resources as unknown[]).push({
      group: "example.com",
      version: gizmoVersion,
      resource: "gizmos",
      kind: "Gizmo",
      namespaced: true,
      namespaces: [sidecarNamespace],
    });
  }).filter((arg, i, all) => !arg.startsWith("--api-proxy") && !all[i - 1]?.startsWith("--api-proxy"));
  // The API-proxy flags are left out here: the RBAC of the watches is under
  // test, and the proxy has its own end-to-end test (status-writes).
  t.diagnostic(`command: ${command.join(" ")}`);
  const exporter = await start(command, user, sidecarNamespace);
  let metrics = "";
  await waitUntil("a 403 watch error for gizmos", 30_000, async () => {
    metrics = (await text(`${exporter.base}/metrics`)).body;
    return series(metrics, watchErrors, { kind: "Gizmo", code: "403" }).length > 0;
  });
  for (const line of series(metrics, watchErrors, {})) t.diagnostic(line);
  await waitUntil("the operator's widget exported", 30_000, async () => {
    metrics = (await text(`${exporter.base}/metrics`)).body;
    return series(metrics, "cr_condition", { kind: "Widget", name: "operated", status: "True" }).length === 1;
  });
  assert.deepEqual(
    series(metrics, "cr_condition", { kind: "Widget", name: "shop" }),
    [],
    "widgets outside the operator's namespace are not watched",
  );
  assert.deepEqual(
    series(metrics, watchErrors, { kind: "Widget" }),
    [],
    "the granted resource has no errors",
  );
  const readyz = await text(`${exporter.base}/readyz`);
  t.diagnostic(`/readyz ${readyz.status}: ${readyz.body.trim().replaceAll("\n", " | ")}`);
  assert.equal(readyz.status, 503);
  assert.match(readyz.body, /gizmos\.example\.com\/v1\w*: not ready: .*forbidden/i);
  assert.equal(exporter.child.exitCode, null, "still running");
  assert.equal(await exporter.stop(), 0);
});

test("sidecar mode: the container's full args, API proxy included, start the exporter and write the operator's kubeconfig", async (t) => {
  const user = cp().mintUser();
  await bindRole(user, find(rendered.kustomizeSidecar, "Role"));
  const deployment = find(rendered.kustomizeSidecar, "Deployment");
  // The proxy's fixed port is moved to a free one, like --listen.
  const command = commandFor(rendered.kustomizeSidecar, deployment, "sidecar-proxy").map((arg) =>
    arg === "127.0.0.1:8001" ? "127.0.0.1:0" : arg,
  );
  t.diagnostic(`command: ${command.join(" ")}`);
  const kubeconfigArg = command[command.indexOf("--api-proxy-kubeconfig") + 1] ?? "";
  assert.ok(kubeconfigArg.startsWith(scratch), "the kubeconfig lands in the emptyDir");
  const exporter = await start(command, user, sidecarNamespace);
  await waitUntil("/readyz 200", 30_000, async () => (await text(`${exporter.base}/readyz`)).status === 200);
  const written = parse(readFileSync(kubeconfigArg, "utf8")) as {
    clusters: { cluster: { server: string; "certificate-authority-data"?: string } }[];
  };
  assert.match(written.clusters[0]?.cluster.server ?? "", /^https:\/\/127\.0\.0\.1:\d+/);
  assert.ok(
    written.clusters[0]?.cluster["certificate-authority-data"],
    "the proxy's CA is in the kubeconfig",
  );
  assert.equal(await exporter.stop(), 0);
});
