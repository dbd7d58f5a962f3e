// Locates the Prometheus binaries: 2.x from the Debian `prometheus` package,
// 3.x built from the Go module proxy by build-prometheus3.sh (what
// kube-prometheus-stack ships). Tests that need them fail with a message
// instead of skipping: CI installs the package and builds 3.x (.ci/run), so a
// missing binary is a broken setup, not an optional check.
import { execFileSync, spawnSync } from "node:child_process";
import { accessSync, constants } from "node:fs";
import { delimiter, dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

/** "2": Debian's 2.x; "3": Prometheus 3 from the Go module proxy. */
export type PrometheusMajor = "2" | "3";

let prometheus3: string | undefined;

/** The directory of Prometheus 3's prometheus and promtool: $PROMETHEUS3_DIR, else built (once, then cached). */
export function prometheus3Dir(): string {
  if (prometheus3) return prometheus3;
  const explicit = process.env.PROMETHEUS3_DIR;
  if (explicit) {
    prometheus3 = explicit;
    return explicit;
  }
  const script = join(dirname(fileURLToPath(import.meta.url)), "build-prometheus3.sh");
  const output = execFileSync("bash", [script], { stdio: ["ignore", "pipe", "inherit"], encoding: "utf8" });
  const dir = output.trim().split("\n").at(-1);
  if (!dir) throw new Error("build-prometheus3.sh printed no directory");
  prometheus3 = dir;
  return dir;
}

function findOnPath(binary: string, envOverride: string): string {
  const override = process.env[envOverride];
  const candidates = override
    ? [override]
    : (process.env.PATH ?? "").split(delimiter).map((d) => join(d, binary));
  for (const candidate of candidates) {
    try {
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {
      // not here; try the next directory
    }
  }
  throw new Error(
    `${binary} not found (${override ? `${envOverride}=${override} is not executable` : "not on PATH"}). ` +
      "Install the Debian package: apt-get install -y prometheus (.ci/run does this), or set " +
      `${envOverride} to the binary.`,
  );
}

export function promtoolPath(major: PrometheusMajor = "2"): string {
  return major === "3" ? join(prometheus3Dir(), "promtool") : findOnPath("promtool", "PROMTOOL");
}

export function prometheusPath(major: PrometheusMajor = "2"): string {
  return major === "3" ? join(prometheus3Dir(), "prometheus") : findOnPath("prometheus", "PROMETHEUS");
}

export interface ToolResult {
  readonly status: number | null;
  readonly output: string;
}

/** Runs promtool; output is stdout and stderr together, for assertion messages. */
export function runPromtool(args: readonly string[], cwd?: string, major: PrometheusMajor = "2"): ToolResult {
  const result = spawnSync(promtoolPath(major), args, { cwd, encoding: "utf8", timeout: 120_000 });
  if (result.error) throw result.error;
  return { status: result.status, output: `${result.stdout}${result.stderr}` };
}
