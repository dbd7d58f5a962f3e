// Renders every deploy mode the way a user would: `kustomize build` of the
// base and the sidecar overlay, `helm template` of the chart with its default
// values and with the files in ci/. The deploy tree is copied to a scratch
// directory and the alert/dashboard copies are written there by the same code
// as `npm run deploy:sync`, from the repository's alerts/ and dashboards/ when
// they exist, else from the placeholder sources in test/fixtures/deploy.
import { execFileSync } from "node:child_process";
import { cpSync, existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { isAbsolute, join } from "node:path";
import { parseAllDocuments, stringify } from "yaml";
import { repositoryRoot, sourcePaths, writeCopies } from "../../scripts/deploy-sync.ts";
import type { DeployTools } from "./tools.ts";

export interface KubeObject {
  apiVersion: string;
  kind: string;
  metadata: {
    name: string;
    namespace?: string;
    labels?: Record<string, string>;
    annotations?: Record<string, string>;
  };
  [key: string]: unknown;
}

export const fixtureSources = join(repositoryRoot, "test", "fixtures", "deploy", "monitoring-sources");

/** The repository's generated alerts and dashboards when present, else the test placeholders. */
export function monitoringSources(): string {
  const real = [sourcePaths.prometheusRule, sourcePaths.ruleTemplate, sourcePaths.dashboards].every((p) =>
    existsSync(join(repositoryRoot, p)),
  );
  return real ? repositoryRoot : fixtureSources;
}

export interface RenderedModes {
  directory: string;
  sources: string;
  kustomizeBase: KubeObject[];
  kustomizeSidecar: KubeObject[];
  /** The base with the sharding component: a StatefulSet of three shards. */
  kustomizeSharded: KubeObject[];
  /** The default values with ci/values-minimal.yaml: the chart requires config.resources. */
  helmMinimal: KubeObject[];
  helmAll: KubeObject[];
  helmSidecar: KubeObject[];
  helmSharded: KubeObject[];
  /** The chart directory inside `directory` (with the monitoring copies written). */
  chart: string;
  cleanup(): void;
}

export function parseObjects(text: string): KubeObject[] {
  return parseAllDocuments(text)
    .map((document) => {
      if (document.errors.length > 0)
        throw new Error(`invalid YAML rendered: ${document.errors[0]?.message}`);
      return document.toJS() as KubeObject | null;
    })
    .filter((object): object is KubeObject => object !== null);
}

export const helmNamespace = "monitoring";
export const helmSidecarNamespace = "example-operator-system";
/** The Kubernetes version the chart is rendered for (sidecar mode needs >= 1.29). */
export const kubeVersion = "1.36.3";

/** The least a release needs (config.resources), relative to the chart. */
export const minimalValues = "ci/values-minimal.yaml";

export interface HelmRender {
  /**
   * Values files, relative to the chart (ci/…) or absolute; by default
   * ci/values-minimal.yaml, since the chart refuses a release without
   * config.resources.
   */
  valuesFiles?: string[];
  /** Values given inline (written to a scratch file, applied after valuesFiles). */
  values?: Record<string, unknown>;
  set?: string[];
  namespace?: string;
  release?: string;
  /** Extra helm flags, e.g. ["--show-only", "templates/prometheusrule.yaml"]. */
  flags?: string[];
  /** helm's environment (e.g. HELM_CACHE_HOME for a chart pulled from a registry); the test's by default. */
  env?: NodeJS.ProcessEnv;
}

/** `helm template` of the chart under `chart`; throws with helm's stderr when it refuses. */
export function helmTemplate(tools: DeployTools, chart: string, render: HelmRender = {}): KubeObject[] {
  const scratch = mkdtempSync(join(tmpdir(), "cr-helm-values-"));
  try {
    const inline = render.values ? join(scratch, "values.yaml") : undefined;
    if (inline) writeFileSync(inline, stringify(render.values));
    const files = [
      ...(render.valuesFiles ?? [minimalValues]).map((f) => (isAbsolute(f) ? f : join(chart, f))),
      ...(inline ? [inline] : []),
    ];
    const args = [
      "template",
      render.release ?? "cr-status-exporter",
      chart,
      "--namespace",
      render.namespace ?? helmNamespace,
      "--kube-version",
      kubeVersion,
      ...files.flatMap((f) => ["--values", f]),
      ...(render.set ?? []).flatMap((s) => ["--set", s]),
      ...(render.flags ?? []),
    ];
    return parseObjects(
      execFileSync(tools.helm, args, {
        encoding: "utf8",
        stdio: ["ignore", "pipe", "pipe"],
        ...(render.env && { env: render.env }),
      }),
    );
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}

export function renderAll(tools: DeployTools): RenderedModes {
  const directory = mkdtempSync(join(tmpdir(), "cr-deploy-"));
  cpSync(join(repositoryRoot, "deploy"), join(directory, "deploy"), { recursive: true });
  const sources = monitoringSources();
  writeCopies(sources, directory);
  const run = (command: string, args: string[]): KubeObject[] =>
    parseObjects(execFileSync(command, args, { encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] }));
  const chart = join(directory, "deploy", "helm", "cr-status-exporter");
  const helm = (release: string, namespace: string, values: string): KubeObject[] =>
    helmTemplate(tools, chart, { release, namespace, valuesFiles: [`ci/${values}`] });
  return {
    directory,
    sources,
    kustomizeBase: run(tools.kustomize, ["build", join(directory, "deploy", "kustomize", "base")]),
    kustomizeSidecar: run(tools.kustomize, ["build", join(directory, "deploy", "kustomize", "sidecar")]),
    kustomizeSharded: run(tools.kustomize, ["build", join(directory, "deploy", "kustomize", "sharded")]),
    helmMinimal: helm("cr-status-exporter", helmNamespace, "values-minimal.yaml"),
    helmAll: helm("cr-status-exporter", helmNamespace, "values-all.yaml"),
    helmSidecar: helm("cr-status-exporter", helmSidecarNamespace, "values-sidecar.yaml"),
    helmSharded: helm("cr-status-exporter", helmNamespace, "values-sharded.yaml"),
    chart,
    cleanup: () => rmSync(directory, { recursive: true, force: true }),
  };
}

export function find(objects: KubeObject[], kind: string, name?: string): KubeObject {
  const match = objects.find((o) => o.kind === kind && (name === undefined || o.metadata.name === name));
  if (!match) throw new Error(`no ${kind}${name ? ` ${name}` : ""} among the rendered objects`);
  return match;
}

export function describe(objects: KubeObject[]): string[] {
  return objects.map(
    (o) => `${o.kind} ${o.metadata.namespace ? `${o.metadata.namespace}/` : ""}${o.metadata.name}`,
  );
}
