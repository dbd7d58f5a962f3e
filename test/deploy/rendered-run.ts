// Runs what the deploy manifests render, outside a cluster: the image's
// command for a rendered workload's exporter container (Dockerfile ENTRYPOINT
// + the container's args, its ConfigMaps written into scratch directories
// where it mounts them), and the rendered (Cluster)Roles bound to a test user.
import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { parse, stringify } from "yaml";
import { repositoryRoot } from "../../scripts/deploy-sync.ts";
import type { RestClient, TestUser } from "../cluster/index.ts";
import { imageCommand } from "./exporter-process.ts";
import type { KubeObject } from "./render.ts";

export interface Container {
  name: string;
  args?: string[];
  volumeMounts?: { name: string; mountPath: string }[];
}

export interface PodSpec {
  containers: Container[];
  initContainers?: Container[];
  volumes: { name: string; configMap?: { name: string } }[];
}

export function exporterContainer(deployment: KubeObject): { container: Container; pod: PodSpec } {
  const pod = (deployment.spec as { template: { spec: PodSpec } }).template.spec;
  const container = [...(pod.initContainers ?? []), ...pod.containers].find(
    (c) => c.name === "cr-status-exporter",
  );
  if (!container) throw new Error(`no cr-status-exporter container in ${deployment.metadata.name}`);
  return { container, pod };
}

/**
 * The command the image runs for this container, with the ConfigMap volume
 * and emptyDir volumes mounted in scratch directories: Dockerfile ENTRYPOINT +
 * the container's args (which replace CMD), the config file edited by `edit`.
 */
export function commandFor(
  objects: KubeObject[],
  deployment: KubeObject,
  scratch: string,
  label: string,
  edit: (config: Record<string, unknown>) => void = () => {},
): string[] {
  const image = imageCommand(readFileSync(join(repositoryRoot, "deploy", "Dockerfile"), "utf8"));
  assert.equal(image.workdir, "/app");
  const { container, pod } = exporterContainer(deployment);
  const mounts: { mountPath: string; directory: string }[] = [];
  for (const mount of container.volumeMounts ?? []) {
    const volume = pod.volumes.find((v) => v.name === mount.name);
    const directory = mkdtempSync(join(scratch, `${label}-`));
    // ConfigMaps the chart does not render (extraVolumes) are mounted empty.
    const configMap = volume?.configMap
      ? objects.find((o) => o.kind === "ConfigMap" && o.metadata.name === volume.configMap?.name)
      : undefined;
    if (configMap) {
      for (const [file, text] of Object.entries(configMap.data as Record<string, string>)) {
        const config = parse(text) as Record<string, unknown>;
        edit(config);
        writeFileSync(join(directory, file), stringify(config));
      }
    }
    mounts.push({ mountPath: mount.mountPath, directory });
  }
  const args = (container.args ?? image.cmd).map((arg) => {
    const mount = mounts.find((m) => arg === m.mountPath || arg.startsWith(`${m.mountPath}/`));
    return mount ? mount.directory + arg.slice(mount.mountPath.length) : arg;
  });
  return [...image.entrypoint, ...args, "--listen", "127.0.0.1:0"];
}

export async function bindClusterRole(
  rest: RestClient,
  user: TestUser,
  clusterRole: KubeObject,
): Promise<void> {
  const name = `${user.name}-${clusterRole.metadata.name}`;
  await rest.create("/apis/rbac.authorization.k8s.io/v1/clusterroles", {
    metadata: { name },
    rules: clusterRole.rules,
  });
  await rest.create("/apis/rbac.authorization.k8s.io/v1/clusterrolebindings", {
    metadata: { name },
    roleRef: { apiGroup: "rbac.authorization.k8s.io", kind: "ClusterRole", name },
    subjects: [{ apiGroup: "rbac.authorization.k8s.io", kind: "User", name: user.name }],
  });
}

export async function bindRole(rest: RestClient, user: TestUser, role: KubeObject): Promise<void> {
  const namespace = role.metadata.namespace;
  assert.ok(namespace, "the rendered Role has a namespace");
  const name = `${user.name}-${role.metadata.name}`;
  await rest.create(`/apis/rbac.authorization.k8s.io/v1/namespaces/${namespace}/roles`, {
    metadata: { name },
    rules: role.rules,
  });
  await rest.create(`/apis/rbac.authorization.k8s.io/v1/namespaces/${namespace}/rolebindings`, {
    metadata: { name },
    roleRef: { apiGroup: "rbac.authorization.k8s.io", kind: "Role", name },
    subjects: [{ apiGroup: "rbac.authorization.k8s.io", kind: "User", name: user.name }],
  });
}
