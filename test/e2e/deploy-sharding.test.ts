// The sharded deploy manifests, run for real against a real apiserver: the
// rendered StatefulSet (kustomize's sharded overlay, the chart with
// ci/values-sharded.yaml) is created on the testbed, and its three "pods" are
// the image's command with the container's args, $(POD_NAME) and
// $(POD_NAMESPACE) expanded as the kubelet does, running as a user bound only
// to the rendered ClusterRole and shards Role. Together they export every
// widget once; the ServiceMonitor reaches every pod through the Service.
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { repositoryRoot } from "../../scripts/deploy-sync.ts";
import { ControlPlane, installCrd, waitUntil } from "../cluster/index.ts";
import { type ExporterProcess, startExporterProcess } from "../deploy/exporter-process.ts";
import { find, helmNamespace, type KubeObject, type RenderedModes, renderAll } from "../deploy/render.ts";
import { bindClusterRole, bindRole, commandFor } from "../deploy/rendered-run.ts";
import { resolveDeployTools } from "../deploy/tools.ts";
import { compareUnion, createWidgets, objectLines } from "../support/shard-fleet.ts";

let plane: ControlPlane | undefined;
let rendered: RenderedModes;
let appNamespace = "";
const scratch = mkdtempSync(join(tmpdir(), "cr-deploy-sharding-"));
const widgets = Array.from({ length: 30 }, (_, i) => `w${i}`);

function cp(): ControlPlane {
  if (!plane) throw new Error("the control plane is not started");
  return plane;
}

before(async () => {
  rendered = renderAll(resolveDeployTools());
  plane = await ControlPlane.start();
  const rest = plane.admin.rest;
  await installCrd(rest, "widgets");
  for (const name of ["cr-status-exporter", helmNamespace]) {
    await rest.create("/api/v1/namespaces", { metadata: { name } });
  }
  appNamespace = await plane.createNamespace("app");
  await createWidgets(rest, appNamespace, widgets);
});

after(async () => {
  await plane?.stop();
  rendered?.cleanup();
  rmSync(scratch, { recursive: true, force: true });
});

interface LabelSelector {
  matchLabels: Record<string, string>;
}

/** Whether every label of `selector` is among `labels`. */
function selects(selector: Record<string, string>, labels: Record<string, string> | undefined): boolean {
  return Object.entries(selector).every(([k, v]) => labels?.[k] === v);
}

for (const [title, objects] of [
  ["kustomize sharded overlay", () => rendered.kustomizeSharded],
  ["helm chart, ci/values-sharded.yaml", () => rendered.helmSharded],
] as const) {
  test(`${title}: the StatefulSet's three pods, with the rendered RBAC, export every widget once`, async (t) => {
    const list = objects();
    const statefulSet = find(list, "StatefulSet");
    const namespace = statefulSet.metadata.namespace ?? "";
    const spec = statefulSet.spec as {
      replicas: number;
      selector: LabelSelector;
      template: { metadata: { labels: Record<string, string> } };
    };
    assert.equal(spec.replicas, 3);
    assert.equal(list.filter((o) => o.kind === "Deployment").length, 0, "no Deployment beside it");

    // Prometheus scrapes every pod: the ServiceMonitor selects the Service, whose selector matches the pods.
    const service = find(list, "Service");
    const monitor = find(list, "ServiceMonitor").spec as {
      selector: LabelSelector;
      endpoints: { port: string }[];
    };
    assert.ok(
      selects(monitor.selector.matchLabels, service.metadata.labels),
      "the ServiceMonitor selects the Service",
    );
    const serviceSpec = service.spec as { selector: Record<string, string>; ports: { name: string }[] };
    assert.ok(
      selects(serviceSpec.selector, spec.template.metadata.labels),
      "the Service selects every shard's pod",
    );
    assert.ok(serviceSpec.ports.some((p) => p.name === monitor.endpoints[0]?.port));

    // The StatefulSet as the pods read it: created for real (no controller runs its pods here).
    const rest = cp().admin.rest;
    await rest.create(`/apis/apps/v1/namespaces/${namespace}/statefulsets`, statefulSet);
    t.after(() =>
      rest.delete(`/apis/apps/v1/namespaces/${namespace}/statefulsets/${statefulSet.metadata.name}`),
    );
    const user = cp().mintUser();
    await bindClusterRole(rest, user, find(list, "ClusterRole"));
    const shardsRole = list.find(
      (o) => o.kind === "Role" && o.metadata.name.endsWith("-shards"),
    ) as KubeObject;
    assert.ok(shardsRole, "a Role for reading the StatefulSet");
    await bindRole(rest, user, shardsRole);

    const pods: ExporterProcess[] = [];
    t.after(async () => {
      await Promise.all(pods.map((p) => p.stop()));
    });
    for (let ordinal = 0; ordinal < 3; ordinal++) {
      const pod = `${statefulSet.metadata.name}-${ordinal}`;
      const env = { POD_NAME: pod, POD_NAMESPACE: namespace };
      // The kubelet expands $(VAR) in args from the container's env.
      const command = commandFor(list, statefulSet, scratch, `${title.replace(/\W+/g, "-")}-${ordinal}`).map(
        (arg) => arg.replace(/\$\((POD_NAME|POD_NAMESPACE)\)/g, (_, name: keyof typeof env) => env[name]),
      );
      if (ordinal === 0) t.diagnostic(`pod ${pod}: ${command.join(" ")}`);
      pods.push(
        await startExporterProcess(command, {
          cwd: repositoryRoot,
          env: { PATH: process.env.PATH, HOME: process.env.HOME, KUBECONFIG: user.kubeconfigPath, ...env },
        }),
      );
    }
    const scrape = async (p: ExporterProcess) => (await fetch(`${p.base}/metrics`)).text();
    let last = "";
    await waitUntil("the shards to export every widget once", 60_000, async () => {
      const texts = await Promise.all(pods.map(scrape));
      const lines = texts.map((text) => objectLines(text).filter((l) => l.startsWith("cr_status{")));
      const expected = widgets.map(
        (w) => `group="example.com",kind="Widget",namespace="${appNamespace}",name="${w}"`,
      );
      const check = compareUnion(
        expected.map((id) => `cr_status{${id},result="Current"} 1`),
        lines.map((l) => l.map((line) => line.replace(/result="[A-Za-z]+"/, 'result="Current"'))),
      );
      last = check.message;
      return check.ok && check.perShard.every((n) => n > 0);
    }).catch((error: Error) => {
      throw new Error(
        `${error.message}\n${last}\n${pods.map((p) => p.lines.slice(-5).join("\n")).join("\n")}`,
      );
    });
    t.diagnostic(`every widget once: ${last}`);
    for (const [ordinal, pod] of pods.entries()) {
      assert.match(await scrape(pod), new RegExp(`^cr_exporter_shards\\{shard="${ordinal}"\\} 3$`, "m"));
    }
  });
}
