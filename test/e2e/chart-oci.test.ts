// The chart as users get it: `helm package`, `helm push` to a real OCI
// registry (Debian's docker-registry, the CNCF distribution registry, on
// loopback), then `helm show chart` and `helm template` from the oci:// reference
// render exactly what the chart directory renders. helm's own configuration,
// cache and registry credentials stay in a temporary directory.
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { parse } from "yaml";
import { repositoryRoot } from "../../scripts/deploy-sync.ts";
import { type Registry, startRegistry } from "../deploy/registry.ts";
import { helmTemplate, minimalValues } from "../deploy/render.ts";
import { resolveDeployTools } from "../deploy/tools.ts";

const tools = resolveDeployTools();
const chartDir = join(repositoryRoot, "deploy", "helm", "cr-status-exporter");
const chart = parse(readFileSync(join(chartDir, "Chart.yaml"), "utf8")) as {
  name: string;
  version: string;
  appVersion: string;
};
const scratch = mkdtempSync(join(tmpdir(), "cr-chart-oci-"));
const helmEnv = {
  ...process.env,
  HELM_CACHE_HOME: join(scratch, "cache"),
  HELM_CONFIG_HOME: join(scratch, "config"),
  HELM_DATA_HOME: join(scratch, "data"),
};
let registry: Registry | undefined;
let reference = "";
let packaged = "";

function helm(args: string[]): string {
  return execFileSync(tools.helm, args, {
    encoding: "utf8",
    env: helmEnv,
    stdio: ["ignore", "pipe", "pipe"],
  });
}

before(async () => {
  registry = await startRegistry();
  reference = `oci://${registry.host}/charts/${chart.name}`;
  helm(["package", chartDir, "--destination", scratch]);
  packaged = join(scratch, `${chart.name}-${chart.version}.tgz`);
  helm(["push", packaged, `oci://${registry.host}/charts`, "--plain-http"]);
});

after(async () => {
  await registry?.stop();
  rmSync(scratch, { recursive: true, force: true });
});

test("helm package makes one archive holding the chart, its schema and README", () => {
  assert.deepEqual(
    readdirSync(scratch).filter((f) => f.endsWith(".tgz")),
    [`${chart.name}-${chart.version}.tgz`],
  );
  const files = execFileSync("tar", ["-tzf", packaged], { encoding: "utf8" }).split("\n");
  for (const file of [
    "Chart.yaml",
    "values.yaml",
    "values.schema.json",
    "README.md",
    "templates/deployment.yaml",
  ])
    assert.ok(files.includes(`${chart.name}/${file}`), `${file} is in the archive`);
});

test("helm push to an OCI registry stores a Helm chart artifact under the chart's version", async () => {
  assert.ok(registry);
  // The registry holds an OCI manifest of the Helm artifact types, tagged with the version.
  const manifest = (await (
    await fetch(`http://${registry.host}/v2/charts/${chart.name}/manifests/${chart.version}`, {
      headers: { accept: "application/vnd.oci.image.manifest.v1+json" },
    })
  ).json()) as { config: { mediaType: string }; layers: { mediaType: string; size: number }[] };
  assert.equal(manifest.config.mediaType, "application/vnd.cncf.helm.config.v1+json");
  assert.deepEqual(
    manifest.layers.map((l) => l.mediaType),
    ["application/vnd.cncf.helm.chart.content.v1.tar+gzip"],
  );
  assert.equal(manifest.layers[0]?.size, readFileSync(packaged).length, "the layer is the packaged archive");
  const tags = (await (await fetch(`http://${registry.host}/v2/charts/${chart.name}/tags/list`)).json()) as {
    tags: string[];
  };
  assert.deepEqual(tags.tags, [chart.version]);
});

test("installed from the registry: helm show chart and helm template from oci:// equal the chart directory's", () => {
  const shown = parse(
    helm(["show", "chart", reference, "--version", chart.version, "--plain-http"]),
  ) as typeof chart;
  assert.equal(shown.name, chart.name);
  assert.equal(shown.version, chart.version);
  assert.equal(shown.appVersion, chart.appVersion);
  const values = { valuesFiles: [join(chartDir, minimalValues)] };
  const fromRegistry = helmTemplate(tools, reference, {
    ...values,
    flags: ["--version", chart.version, "--plain-http"],
    env: helmEnv,
  });
  const fromDirectory = helmTemplate(tools, chartDir, values);
  assert.ok(fromRegistry.length > 5, `objects rendered from ${reference}: ${fromRegistry.length}`);
  assert.deepEqual(fromRegistry, fromDirectory);
});
