// kustomize, helm and the prometheus-operator CRDs for the deploy tests, from
// build-tools.sh (built once from the Go module proxy into a cache outside the
// repository; a no-op afterwards).
import { execFileSync } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { parse } from "yaml";
import type { CrdManifest } from "../cluster/fixtures.ts";

const here = dirname(fileURLToPath(import.meta.url));

export interface DeployTools {
  kustomize: string;
  helm: string;
  /** The prometheus-operator module directory in the Go module cache. */
  prometheusOperator: string;
}

let cached: DeployTools | undefined;

/** Reads the `key=value` lines a build script prints; the getter throws naming a missing key. */
export function keyValueLines(output: string, script: string): (key: string) => string {
  const found = new Map(
    output
      .trim()
      .split("\n")
      .map((line) => line.split("=", 2) as [string, string]),
  );
  return (key) => {
    const value = found.get(key);
    if (!value) throw new Error(`${script} printed no ${key}= line:\n${output}`);
    return value;
  };
}

export function resolveDeployTools(): DeployTools {
  if (cached) return cached;
  const output = execFileSync("bash", [join(here, "build-tools.sh")], {
    stdio: ["ignore", "pipe", "inherit"],
    encoding: "utf8",
  });
  const get = keyValueLines(output, "build-tools.sh");
  cached = { kustomize: get("kustomize"), helm: get("helm"), prometheusOperator: get("prometheus-operator") };
  return cached;
}

/** The CRDs the rendered manifests use: ServiceMonitor and PrometheusRule. */
export function prometheusOperatorCrds(tools: DeployTools): CrdManifest[] {
  const directory = join(tools.prometheusOperator, "example", "prometheus-operator-crd");
  const wanted = ["monitoring.coreos.com_servicemonitors.yaml", "monitoring.coreos.com_prometheusrules.yaml"];
  const present = readdirSync(directory);
  return wanted.map((file) => {
    if (!present.includes(file)) throw new Error(`${directory} has no ${file}`);
    return parse(readFileSync(join(directory, file), "utf8")) as CrdManifest;
  });
}
