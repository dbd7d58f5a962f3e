// Idle memory on its own, without the whole benchmark: the resident set of the
// exporter (`node src/main.ts`) watching one empty namespace with the sidecar
// configuration and tracing off, which every sidecar pays. The same
// measurement as the benchmark's idle subject (lib/idle.ts), repeated `--runs`
// times on one test control plane; prints each run and the median.
//
//   node bench/idle-rss.ts                      # this checkout, 3 runs
//   node bench/idle-rss.ts --repo DIR           # another checkout (its own src/main.ts)
//   node bench/idle-rss.ts --node-arg=--max-semi-space-size=1
import { join, resolve } from "node:path";
import { parseArgs } from "node:util";
import { ControlPlane, installCrd } from "../test/cluster/index.ts";
import { measureIdle } from "./lib/idle.ts";
import { startOurs } from "./lib/proc.ts";
import { oursSidecarConfig } from "./lib/subjects.ts";

const { values } = parseArgs({
  options: {
    repo: { type: "string", default: resolve(import.meta.dirname, "..") },
    runs: { type: "string", default: "3" },
    "settle-seconds": { type: "string", default: "5" },
    "node-arg": { type: "string", multiple: true, default: [] },
  },
});
const MiB = 1024 * 1024;
const plane = await ControlPlane.start();
try {
  await installCrd(plane.admin.rest, "widgets");
  const namespace = await plane.createNamespace("idle");
  const settledMiB: number[] = [];
  for (let run = 0; run < Number(values.runs); run++) {
    const dir = join(plane.directory, `idle-${run}`);
    const config = oursSidecarConfig(namespace);
    const subject = await startOurs(
      "idle",
      values.repo,
      plane.kubeconfigPath,
      dir,
      config,
      values["node-arg"],
    );
    const idle = await measureIdle(subject, Number(values["settle-seconds"]));
    settledMiB.push(idle.rssSettledBytes / MiB);
    process.stdout.write(
      `run ${run + 1}: ${(idle.rssAtReadyBytes / MiB).toFixed(1)} MiB at /readyz 200, ` +
        `${(idle.rssSettledBytes / MiB).toFixed(1)} MiB after ${idle.settleSeconds} s\n`,
    );
  }
  const sorted = [...settledMiB].sort((a, b) => a - b);
  const median = sorted[Math.floor(sorted.length / 2)] ?? Number.NaN;
  process.stdout.write(`idle RSS (MiB, settled): median ${median.toFixed(1)}\n`);
} finally {
  await plane.stop();
}
