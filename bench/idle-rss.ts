// Idle memory: the resident set of the exporter when it watches nothing yet,
// which every sidecar pays. Starts the test control plane with the fixture
// CRD, runs `node src/main.ts` with the shipped sidecar configuration (CRD
// discovery off, one explicit resource in one empty namespace) and tracing
// off, waits for /readyz, and reads /proc/<pid>/statm until it settles.
//
//   node bench/idle-rss.ts                 # this checkout, 3 runs
//   node bench/idle-rss.ts --repo DIR      # another checkout (its own src/main.ts)
//   node bench/idle-rss.ts --runs 5 --node-arg=--max-semi-space-size=1
//   node bench/idle-rss.ts --repo DIR --entry src/main.js   # a build of the sources without types
import { spawn } from "node:child_process";
import { once } from "node:events";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { parseArgs } from "node:util";
import { parse, stringify } from "yaml";
import { expandEnvironment } from "../src/config/load.ts";
import { ControlPlane, installCrd, waitUntil } from "../test/cluster/index.ts";
import { freePort } from "../test/cluster/ports.ts";
import { sampleProc } from "./lib/proc.ts";

const MiB = 1024 * 1024;

export interface IdleRss {
  /** RSS in MiB after /readyz answered 200 and RSS stopped moving, one per run. */
  runsMiB: number[];
  medianMiB: number;
}

/** The sidecar configuration as shipped (deploy/kustomize/sidecar/config.yaml) for `namespace`, tracing off. */
export function sidecarConfig(namespace: string): Record<string, unknown> {
  const shipped = readFileSync(new URL("../deploy/kustomize/sidecar/config.yaml", import.meta.url), "utf8");
  const config = parse(expandEnvironment(shipped, "sidecar config", { POD_NAMESPACE: namespace })) as Record<
    string,
    unknown
  >;
  return { ...config, logLevel: "warn", tracing: { enabled: false } };
}

/** Reads RSS every 250 ms until two readings 1 s apart differ by less than 1 %, or 15 s pass. */
async function settledRss(pid: number): Promise<number> {
  const readings: number[] = [];
  const deadline = Date.now() + 15_000;
  for (;;) {
    readings.push(sampleProc(pid).rssBytes);
    const latest = readings.at(-1) as number;
    const secondAgo = readings.at(-5);
    if (secondAgo !== undefined && Math.abs(latest - secondAgo) < latest * 0.01) return latest;
    if (Date.now() > deadline) return latest;
    await sleep(250);
  }
}

export async function measureIdleRss(
  plane: ControlPlane,
  repo: string,
  runs: number,
  nodeArgs: string[] = [],
  entry = "src/main.ts",
): Promise<IdleRss> {
  const namespace = "idle";
  await plane.admin.rest.create("/api/v1/namespaces", { metadata: { name: namespace } }).catch(() => {});
  const runsMiB: number[] = [];
  for (let run = 0; run < runs; run++) {
    const dir = join(plane.directory, `idle-rss-${run}`);
    mkdirSync(dir, { recursive: true });
    const configPath = join(dir, "sidecar.yaml");
    writeFileSync(configPath, stringify(sidecarConfig(namespace)));
    const listen = `127.0.0.1:${await freePort()}`;
    const args = [...nodeArgs, join(repo, entry), "--kubeconfig", plane.kubeconfigPath];
    const child = spawn(process.execPath, [...args, "--config", configPath, "--listen", listen], {
      cwd: repo,
      stdio: ["ignore", "ignore", "inherit"],
    });
    const exited = once(child, "exit");
    try {
      await waitUntil("the exporter's /readyz to answer 200", 30_000, async () => {
        if (child.exitCode !== null) throw new Error(`the exporter exited with ${child.exitCode}`);
        const response = await fetch(`http://${listen}/readyz`);
        await response.text();
        return response.status === 200;
      });
      runsMiB.push((await settledRss(child.pid as number)) / MiB);
    } finally {
      child.kill("SIGTERM");
      await exited;
    }
  }
  const sorted = [...runsMiB].sort((a, b) => a - b);
  return { runsMiB, medianMiB: sorted[Math.floor(sorted.length / 2)] as number };
}

if (import.meta.main) {
  const { values } = parseArgs({
    options: {
      repo: { type: "string", default: resolve(import.meta.dirname, "..") },
      runs: { type: "string", default: "3" },
      "node-arg": { type: "string", multiple: true, default: [] },
      entry: { type: "string", default: "src/main.ts" },
    },
  });
  const plane = await ControlPlane.start();
  try {
    await installCrd(plane.admin.rest, "widgets");
    const runs = Number(values.runs);
    const result = await measureIdleRss(plane, values.repo, runs, values["node-arg"], values.entry);
    const shown = result.runsMiB.map((m) => m.toFixed(1)).join(", ");
    process.stdout.write(`idle RSS (MiB): median ${result.medianMiB.toFixed(1)} (runs: ${shown})\n`);
    writeFileSync(join(plane.directory, "idle-rss.json"), JSON.stringify(result));
  } finally {
    await plane.stop();
  }
}
