// The OCI image built by the project's own script (deploy/image/build.sh:
// buildah, a base from Debian packages, Node from the npm registry), run for
// real with podman: its default entrypoint and command serve /metrics for the
// custom resources of the test control plane, as uid 1000 on a read-only root
// filesystem, and exit 0 on SIGTERM. The build is cached by content hash, so
// a warm run costs the container start-ups only.
import assert from "node:assert/strict";
import { execFileSync, spawnSync } from "node:child_process";
import {
  chmodSync,
  copyFileSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { stringify } from "yaml";
import { repositoryRoot } from "../../scripts/deploy-sync.ts";
import { condition, createCr, installCrd, patchStatus, refFor, useControlPlane } from "../cluster/index.ts";
import { imageCommand, startExporterProcess } from "../deploy/exporter-process.ts";
import { find, helmTemplate } from "../deploy/render.ts";
import { resolveDeployTools } from "../deploy/tools.ts";
import { type BuiltImage, blobPath, buildImage, imagePaths, podman, podmanRun } from "../image/index.ts";
import { eventually, series } from "../support/exporter.ts";
import { parseExposition } from "../support/exposition-check.ts";

const testbed = useControlPlane();
let built: BuiltImage;
let scratch = "";

before(async () => {
  const started = performance.now();
  built = buildImage();
  const layers = built.summary.layers
    .map(
      (l) =>
        `${(l.compressedBytes / 1e6).toFixed(1)} MB ${l.createdBy.replace(/^.*COPY \S+ in /, "COPY → ")}`,
    )
    .join("; ");
  console.error(
    `# image ${built.image} (${((performance.now() - started) / 1000).toFixed(1)}s): ` +
      `${(built.summary.compressedBytes / 1e6).toFixed(1)} MB compressed, ${built.summary.layers.length} layers: ${layers}`,
  );
  scratch = mkdtempSync(join(tmpdir(), "cr-image-"));
});

after(() => {
  if (scratch) rmSync(scratch, { recursive: true, force: true });
});

test("the image's configuration is the Dockerfile's", () => {
  const dockerfile = imageCommand(readFileSync(join(repositoryRoot, "deploy", "Dockerfile"), "utf8"));
  const config = built.summary.config;
  assert.deepEqual(config.Entrypoint, dockerfile.entrypoint);
  assert.deepEqual(config.Cmd, dockerfile.cmd);
  assert.equal(config.User, dockerfile.user);
  assert.equal(config.WorkingDir, dockerfile.workdir);
  assert.deepEqual(
    Object.keys(config.ExposedPorts),
    dockerfile.expose.map((p) => `${p}/tcp`),
  );
  assert.ok(config.Env.includes(`NODE_ENV=${dockerfile.env.NODE_ENV}`));
  const pkg = JSON.parse(readFileSync(join(repositoryRoot, "package.json"), "utf8")) as { version: string };
  assert.equal(config.Labels["org.opencontainers.image.version"], pkg.version);
  // The Dockerfile's base.* labels name its base image; this image starts from scratch.
  for (const key of Object.keys(dockerfile.labels))
    if (!key.startsWith("org.opencontainers.image.base.")) assert.ok(config.Labels[key], `label ${key}`);
});

test("the image holds Node, the production dependencies and src/: no npm, yarn, corepack or dev tools", () => {
  const paths = imagePaths(built);
  for (const present of [
    "usr/local/bin/node",
    "app/src/main.ts",
    "app/package.json",
    "app/node_modules/@kubernetes/client-node/package.json",
    "etc/passwd",
  ]) {
    assert.ok(paths.has(present), `${present} is in the image`);
  }
  const forbidden = [...paths].filter(
    (p) =>
      /(^|\/)(npm|npx|yarn|yarnpkg|corepack)$/.test(p) ||
      /^app\/node_modules\/(typescript|@biomejs|fast-check|node|@types\/koa)(\/|$)/.test(p) ||
      /\.map$/.test(p),
  );
  assert.deepEqual(forbidden, []);
  assert.ok(paths.size > 1000, `expected the dependency tree, got ${paths.size} paths`);
});

test("the entrypoint serves /metrics for the testbed's custom resources (podman run, read-only, uid 1000)", async (t) => {
  const plane = testbed.plane;
  const rest = plane.admin.rest;
  await installCrd(rest, "widgets");
  const ns = await plane.createNamespace("img");
  const ref = refFor("widgets", ns, "w1");
  await createCr(rest, ref, "w1", { size: 1 });
  await patchStatus(rest, ref, {
    observedGeneration: 1,
    conditions: [condition("Ready", "False", "ImagePullBackOff", "cannot pull", 1)],
  });
  // The image's own CMD reads /etc/cr-status-exporter/config.yaml; KUBECONFIG points at the testbed.
  const configDir = join(scratch, "config");
  mkdirSync(configDir, { recursive: true });
  writeFileSync(
    join(configDir, "config.yaml"),
    stringify({ listen: "127.0.0.1:0", resources: [{ group: "example.com", resource: "widgets" }] }),
  );
  // The container runs as uid 1000: give it a readable copy of the (0600) kubeconfig.
  const kubeconfig = join(scratch, "kubeconfig");
  copyFileSync(plane.kubeconfigPath, kubeconfig);
  chmodSync(kubeconfig, 0o644);
  const name = `cr-image-test-${process.pid}`;
  const exporter = await startExporterProcess(
    [
      "podman",
      ...podmanRun,
      "--name",
      name,
      "--network",
      "host",
      "--read-only",
      "--env",
      "KUBECONFIG=/var/run/testbed/kubeconfig",
      "--volume",
      `${kubeconfig}:/var/run/testbed/kubeconfig:ro`,
      "--volume",
      `${plane.caFile}:${plane.caFile}:ro`,
      "--volume",
      `${configDir}:/etc/cr-status-exporter:ro`,
      built.image,
    ],
    { cwd: scratch, env: process.env, startTimeoutMs: 60_000 },
  );
  t.after(async () => {
    await exporter.stop().catch(() => undefined);
    try {
      podman(["rm", "--force", "--ignore", name]);
    } catch {
      // already gone
    }
  });
  const metrics = await eventually(
    "the container to export the widget",
    async () => {
      const response = await fetch(`${exporter.base}/metrics`);
      const parsed = parseExposition(await response.text());
      const key = series("cr_condition", {
        group: "example.com",
        kind: "Widget",
        namespace: ns,
        name: "w1",
        type: "Ready",
        status: "False",
      });
      return parsed.samples.get(key) === 1 ? parsed : undefined;
    },
    30_000,
  );
  assert.ok(metrics.samples.size > 10);
  assert.equal((await fetch(`${exporter.base}/readyz`)).status, 200);
  // The container's process (seen from the host) runs as uid 1000, the image's USER, not as root.
  const pid = podman(["inspect", "--format", "{{.State.Pid}}", name]).trim();
  const status = readFileSync(`/proc/${pid}/status`, "utf8");
  assert.match(status, /^Uid:\s+1000\s+1000\s+1000\s+1000$/m);
  assert.match(
    readFileSync(`/proc/${pid}/cmdline`, "utf8"),
    /^node\0--liftoff-only\0--max-semi-space-size=8\0--initial-old-space-size=64\0--heap-growing-percent=20\0--max-old-space-size-percentage=75\0src\/main\.ts\0/,
  );
  assert.equal(await exporter.stop(), 0, `exit code on SIGTERM; log:\n${exporter.lines.join("\n")}`);
});

test("V8's heap follows the container's memory limit (the entrypoint's Node flags, under podman --memory)", () => {
  const flags = built.summary.config.Entrypoint.filter((arg) => arg.startsWith("--"));
  assert.ok(flags.length > 0, "the entrypoint passes Node flags");
  const heapMiB = (memory: string): number =>
    Number(
      podman([
        ...podmanRun,
        "--memory",
        memory,
        "--entrypoint",
        JSON.stringify(["node", ...flags, "-p", "v8.getHeapStatistics().heap_size_limit / 2 ** 20"]),
        built.image,
      ]).trim(),
    );
  const small = heapMiB("400m");
  const large = heapMiB("1g");
  // Old space is 75 % of the limit; the young generation adds a few MiB on top.
  assert.ok(small >= 300 && small < 330, `heap limit under 400 MiB: ${small} MiB`);
  assert.ok(large >= 768 && large < 830, `heap limit under 1 GiB: ${large} MiB`);
});

/** The ELF machine of a file's first bytes: 0x3e is x86-64, 0xb7 AArch64. */
function elfMachine(header: Buffer): number {
  assert.equal(header.subarray(0, 4).toString("latin1"), "\x7fELF", "an ELF file");
  return header.readUInt16LE(18);
}

/** The first 64 bytes of `path` in a layer blob (tar.gz of the OCI layout). */
function fileHeader(blob: string, path: string): Buffer {
  const wanted = [path, `./${path}`, `/${path}`].find((p) =>
    execFileSync("tar", ["-tzf", blob], { encoding: "utf8", maxBuffer: 256 * 1024 * 1024 })
      .split("\n")
      .includes(p),
  );
  assert.ok(wanted, `${path} in ${blob}`);
  return execFileSync("tar", ["-xzOf", blob, wanted], { maxBuffer: 256 * 1024 * 1024 }).subarray(0, 64);
}

test("the OCI index holds linux/amd64 and linux/arm64/v8, each with its own Node and glibc, annotated as the labels say", () => {
  const { summary } = built;
  assert.equal(summary.indexMediaType, "application/vnd.oci.image.index.v1+json");
  assert.deepEqual(
    summary.platforms.map((p) => p.platform),
    [
      { architecture: "amd64", os: "linux" },
      { architecture: "arm64", os: "linux", variant: "v8" },
    ],
  );
  const machines: Record<string, { elf: number; loader: string }> = {
    amd64: { elf: 0x3e, loader: "lib64/ld-linux-x86-64.so.2" },
    arm64: { elf: 0xb7, loader: "lib/ld-linux-aarch64.so.1" },
  };
  const labels = summary.config.Labels;
  const annotated = Object.fromEntries(
    Object.entries(labels).filter(([key]) => key.startsWith("org.opencontainers.image.")),
  );
  assert.deepEqual(summary.indexAnnotations, annotated, "the index carries the image's OCI labels");
  assert.equal(
    annotated["org.opencontainers.image.version"],
    JSON.parse(readFileSync(join(repositoryRoot, "package.json"), "utf8")).version,
  );
  for (const image of summary.platforms) {
    const arch = image.platform.architecture;
    assert.equal(image.architecture, arch, `${arch}: the configuration says the index's architecture`);
    assert.deepEqual(image.annotations, annotated, `${arch}: manifest annotations`);
    // FROM scratch: no base image to name (buildah's empty base.name is dropped).
    assert.ok(!Object.keys(image.annotations).some((k) => k.startsWith("org.opencontainers.image.base.")));
    // Every layer the manifest names is in the layout, with its size.
    for (const layer of image.layers)
      assert.equal(
        statSync(blobPath(built, layer.digest)).size,
        layer.compressedBytes,
        `${arch}: ${layer.digest}`,
      );
    const [base, node] = image.layers.map((l) => blobPath(built, l.digest));
    assert.ok(base && node, `${arch}: base and node layers`);
    assert.equal(
      elfMachine(fileHeader(node, "usr/local/bin/node")),
      machines[arch]?.elf,
      `${arch}: node binary`,
    );
    assert.ok(
      imagePaths(built, image.layers.slice(0, 1)).has(machines[arch]?.loader ?? ""),
      `${arch}: glibc's loader`,
    );
  }
  const amd64 = summary.platforms[0];
  const arm64 = summary.platforms[1];
  assert.ok(amd64 && arm64);
  // The dependencies and src/ are architecture-free: the same layers in both.
  assert.deepEqual(
    amd64.layers.slice(2).map((l) => l.digest),
    arm64.layers.slice(2).map((l) => l.digest),
  );
  assert.notEqual(amd64.layers[0]?.digest, arm64.layers[0]?.digest);
});

/** The chart's check-config init container (cluster mode), rendered by the real helm with `values`. */
function renderedCheckConfig(values: Record<string, unknown>): { container: PodContainer; config: string } {
  const tools = resolveDeployTools();
  const chart = join(repositoryRoot, "deploy", "helm", "cr-status-exporter");
  const objects = helmTemplate(tools, chart, { values });
  const pod = (
    find(objects, "Deployment").spec as { template: { spec: { initContainers?: PodContainer[] } } }
  ).template.spec;
  const container = pod.initContainers?.find((c) => c.name === "check-config");
  assert.ok(container, "the Deployment has the check-config init container");
  const configMap = find(objects, "ConfigMap") as unknown as { data: Record<string, string> };
  return { container, config: configMap.data["config.yaml"] ?? "" };
}

interface PodContainer {
  name: string;
  args: string[];
  env: { name: string }[];
}

test("the chart's check-config init container, run from the image as the pod would: 0 for a good configuration, 2 naming a bad field", () => {
  const run = (values: Record<string, unknown>): { status: number; output: string } => {
    const { container, config } = renderedCheckConfig(values);
    assert.deepEqual(container.args.slice(0, 2), ["--check-config", "/etc/cr-status-exporter/config.yaml"]);
    const dir = mkdtempSync(join(scratch, "check-config-"));
    writeFileSync(join(dir, "config.yaml"), config);
    chmodSync(dir, 0o755);
    // The exporter logs to stderr: both streams are read.
    const result = spawnSync(
      "podman",
      [
        ...podmanRun,
        "--read-only",
        "--env",
        "POD_NAMESPACE=monitoring",
        "--volume",
        `${dir}:/etc/cr-status-exporter:ro`,
        built.image,
        ...container.args,
      ],
      { encoding: "utf8", timeout: 120_000 },
    );
    return { status: result.status ?? -1, output: `${result.stdout}${result.stderr}` };
  };
  const good = run({});
  assert.equal(good.status, 0, good.output);
  assert.match(good.output, /configuration is valid/);
  // What the chart's JSON Schema lets through but the exporter refuses: a family that does not exist.
  const bad = run({
    config: {
      metrics: { allow: ["cr_no_such_family"] },
      resources: [{ group: "example.com", resource: "widgets" }],
    },
  });
  assert.equal(bad.status, 2, bad.output);
  const problems = (JSON.parse(bad.output.trim().split("\n").at(-1) ?? "{}") as { problems?: string[] })
    .problems;
  assert.match(problems?.[0] ?? "", /metrics\.allow\[0\]: "cr_no_such_family" matches no metric family/);
});
