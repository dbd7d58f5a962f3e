// Locates the Prometheus binaries of the Debian `prometheus` package. Tests
// that need them fail with this message instead of skipping: CI installs the
// package (.ci/run), so a missing binary is a broken setup, not an optional check.
import { spawnSync } from "node:child_process";
import { accessSync, constants } from "node:fs";
import { delimiter, join } from "node:path";

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

export function promtoolPath(): string {
  return findOnPath("promtool", "PROMTOOL");
}

export function prometheusPath(): string {
  return findOnPath("prometheus", "PROMETHEUS");
}

export interface ToolResult {
  readonly status: number | null;
  readonly output: string;
}

/** Runs promtool; output is stdout and stderr together, for assertion messages. */
export function runPromtool(args: readonly string[], cwd?: string): ToolResult {
  const result = spawnSync(promtoolPath(), args, { cwd, encoding: "utf8", timeout: 120_000 });
  if (result.error) throw result.error;
  return { status: result.status, output: `${result.stdout}${result.stderr}` };
}
