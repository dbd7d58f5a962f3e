// Static checks of the shipped deploy files that need no cluster: the RBAC
// grants exactly what the shipped configs watch, and the image is built the
// way docs/install.md says (Node of the project, production dependencies, a
// numeric non-root user, no HEALTHCHECK, the exporter as the entry command).
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { parse } from "yaml";
import { repositoryRoot } from "../../scripts/deploy-sync.ts";
import { imageCommand } from "../deploy/exporter-process.ts";

const read = (path: string): string => readFileSync(join(repositoryRoot, path), "utf8");
const yaml = <T>(path: string): T => parse(read(path)) as T;

interface Rule {
  apiGroups: string[];
  resources: string[];
  verbs: string[];
}
interface ShippedConfig {
  crdDiscovery?: boolean;
  warningEvents?: { enabled?: boolean };
  resources: { group: string; resource: string; namespaces?: string[] }[];
}

/** group/resource pairs a rule list grants list+watch on. */
function granted(rules: Rule[]): string[] {
  return rules
    .flatMap((rule) => {
      assert.deepEqual([...rule.verbs].sort(), ["list", "watch"], "read-only: list and watch only");
      return rule.apiGroups.flatMap((g) => rule.resources.map((r) => `${g}/${r}`));
    })
    .sort();
}

function wanted(config: ShippedConfig): string[] {
  return [
    ...(config.crdDiscovery === false ? [] : ["apiextensions.k8s.io/customresourcedefinitions"]),
    ...(config.warningEvents?.enabled === false ? [] : ["events.k8s.io/events"]),
    ...config.resources.map((r) => `${r.group}/${r.resource}`),
  ].sort();
}

test("cluster base: the ClusterRole grants list/watch on exactly the configured resources plus CRDs", () => {
  const config = yaml<ShippedConfig>("deploy/kustomize/base/config.yaml");
  const role = yaml<{ rules: Rule[] }>("deploy/kustomize/base/clusterrole.yaml");
  assert.deepEqual(granted(role.rules), wanted(config));
  assert.ok(granted(role.rules).includes("apiextensions.k8s.io/customresourcedefinitions"));
});

test("sidecar overlay: the Role grants exactly the configured resources, in the operator's namespace", () => {
  const config = yaml<ShippedConfig>("deploy/kustomize/sidecar/config.yaml");
  const role = yaml<{ rules: Rule[] }>("deploy/kustomize/sidecar/role.yaml");
  const kustomization = yaml<{ namespace: string }>("deploy/kustomize/sidecar/kustomization.yaml");
  assert.equal(config.crdDiscovery, false);
  assert.deepEqual(granted(role.rules), wanted(config));
  // The namespace comes from the pod (downward API → POD_NAMESPACE), which is the kustomization's.
  for (const resource of config.resources) assert.deepEqual(resource.namespaces, ["${POD_NAMESPACE}"]);
  const patch = read("deploy/kustomize/sidecar/sidecar-patch.yaml");
  assert.match(
    patch,
    /- name: POD_NAMESPACE\n\s+valueFrom:\n\s+fieldRef:\n\s+fieldPath: metadata\.namespace/,
  );
  assert.ok(kustomization.namespace);
  // A native sidecar's readiness counts toward the operator pod's Ready condition: it has no readiness probe.
  assert.doesNotMatch(patch.replace(/#.*$/gm, ""), /readinessProbe/);
  assert.match(patch, /restartPolicy: Always/);
});

test("Dockerfile: bases pinned by digest, the project's Node, production dependencies, no npm in the final stage", () => {
  const dockerfile = read("deploy/Dockerfile");
  const pkg = JSON.parse(read("package.json")) as {
    version: string;
    devDependencies: Record<string, string>;
  };
  const stages = dockerfile.match(/^FROM .*$/gm) ?? [];
  assert.ok(stages.length >= 2, "multi-stage");
  for (const from of stages)
    assert.match(from, /^FROM \S+:\S+@sha256:[0-9a-f]{64}( AS \w+)?$/, "tag and digest");
  assert.match(
    stages[0] ?? "",
    new RegExp(`^FROM node:${pkg.devDependencies.node?.replaceAll(".", "\\.")}-`),
  );
  const finalStage = dockerfile.slice(dockerfile.lastIndexOf("\nFROM "));
  assert.doesNotMatch(
    finalStage.split("\n")[1] ?? "",
    /^FROM node:/,
    "the final stage is not the Node image",
  );
  // From the Node stage only the binary and the production node_modules reach the final stage.
  assert.deepEqual(
    [...finalStage.matchAll(/^COPY --from=node (\S+)/gm)].map((m) => m[1]),
    ["/usr/local/bin/node", "/app/node_modules"],
  );
  assert.doesNotMatch(finalStage, /\b(npm|npx|yarn|corepack)\b/);
  assert.match(dockerfile, /npm ci --omit=dev/);
  assert.doesNotMatch(dockerfile, /^HEALTHCHECK/m);
  assert.match(finalStage, new RegExp(`^ARG VERSION=${pkg.version.replaceAll(".", "\\.")}$`, "m"));
  const image = imageCommand(dockerfile);
  assert.ok(image.user && /^[1-9]\d*:\d+$/.test(image.user), "USER is numeric and not root");
  assert.deepEqual(image.entrypoint, [
    "node",
    "--liftoff-only",
    "--max-semi-space-size=8",
    "--initial-old-space-size=64",
    "--heap-growing-percent=20",
    "--max-old-space-size-percentage=75",
    "src/main.ts",
  ]);
  assert.deepEqual(image.cmd, ["--config", "/etc/cr-status-exporter/config.yaml"]);
  for (const label of ["title", "description", "licenses", "source", "version", "revision", "created"]) {
    assert.ok(image.labels[`org.opencontainers.image.${label}`], `OCI label ${label}`);
  }
  const ignore = read(".dockerignore").split("\n");
  for (const path of ["!package.json", "!package-lock.json", "!src"]) assert.ok(ignore.includes(path), path);
});

test("deploy/image/Containerfile (what build.sh builds) has the Dockerfile's configuration", () => {
  const dockerfile = imageCommand(read("deploy/Dockerfile"));
  const containerfile = imageCommand(read("deploy/image/Containerfile"));
  for (const key of ["workdir", "entrypoint", "cmd", "user", "expose"] as const) {
    assert.deepEqual(containerfile[key], dockerfile[key], key);
  }
  assert.equal(containerfile.env.NODE_ENV, dockerfile.env.NODE_ENV);
  // What src/main.ts would otherwise set by starting again.
  assert.equal(dockerfile.env.MALLOC_ARENA_MAX, "2");
  assert.equal(containerfile.env.MALLOC_ARENA_MAX, "2");
  // The base.* labels name the Dockerfile's base image; build.sh's image is
  // FROM scratch and has none (its Debian packages are named in a label of its own).
  const base = /^org\.opencontainers\.image\.base\./;
  for (const [key, value] of Object.entries(dockerfile.labels))
    if (!base.test(key)) assert.equal(containerfile.labels[key], value, key);
  assert.deepEqual(
    Object.keys(containerfile.labels).filter((key) => base.test(key)),
    [],
  );
  const from = read("deploy/Dockerfile").match(/^FROM (\S+):(\S+)@(sha256:\w+)\s*$/m);
  assert.ok(from, "the Dockerfile's final stage names its base by tag and digest");
  assert.equal(
    dockerfile.labels["org.opencontainers.image.base.name"],
    `docker.io/library/${from[1]}:${from[2]}`,
  );
  assert.equal(dockerfile.labels["org.opencontainers.image.base.digest"], from[3]);
  // Only COPY builds the layers: building needs no container runtime.
  assert.doesNotMatch(read("deploy/image/Containerfile"), /^RUN /m);
});

test("the image tag, the chart's appVersion and package.json agree", () => {
  const pkg = JSON.parse(read("package.json")) as { version: string };
  const chart = yaml<{ appVersion: string }>("deploy/helm/cr-status-exporter/Chart.yaml");
  assert.equal(chart.appVersion, pkg.version);
  for (const path of [
    "deploy/kustomize/base/deployment.yaml",
    "deploy/kustomize/sidecar/sidecar-patch.yaml",
  ]) {
    assert.match(
      read(path),
      new RegExp(`image: ghcr\\.io/cr-status-exporter/cr-status-exporter:${pkg.version}\\n`),
    );
  }
});
