// What one list/watch costs, on the exporter's side and on the apiserver's:
// the exporter watches widgets (and gizmos) in N namespaces, one list/watch
// each, against a fresh test control plane with no objects. Reports the time
// until /readyz is 200 and the resident memory of both processes, so that the
// configuration limits (src/config/watch-limits.ts) rest on figures.
//
//   node bench/watch-cost.ts [counts=1,250,500,1000]
//
// Writes bench/results/watch-cost/latest.json and prints a Markdown table.
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { stringify } from "yaml";
import { ControlPlane, installCrd } from "../test/cluster/index.ts";
import { sampleProc, startOurs } from "./lib/proc.ts";

const repo = join(import.meta.dirname, "..");
const counts = (process.argv[2] ?? "1,250,500,1000").split(",").map(Number);
const perEntry = 500;

/** The kube-apiserver started for `plane`: its command line names the plane's directory. */
function apiserverPid(plane: ControlPlane): number {
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const cmdline = readFileSync(`/proc/${entry}/cmdline`, "utf8");
      if (cmdline.includes("kube-apiserver") && cmdline.includes(plane.directory)) return Number(entry);
    } catch {
      // the process ended meanwhile
    }
  }
  throw new Error("kube-apiserver process not found");
}

function config(watches: number): string {
  const resources: Record<string, unknown>[] = [];
  if (watches === 1) resources.push({ group: "example.com", resource: "widgets" });
  for (let start = 0, i = 0; watches > 1 && start < watches; start += perEntry, i++) {
    const count = Math.min(perEntry, watches - start);
    resources.push({
      group: "example.com",
      resource: i % 2 === 0 ? "widgets" : "gizmos",
      namespaces: Array.from({ length: count }, (_, k) => `watch-cost-${start + k}`),
    });
  }
  return stringify({ resources });
}

async function ready(url: string, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let last = "";
  while (Date.now() < deadline) {
    try {
      const response = await fetch(`${url}/readyz`);
      last = await response.text();
      if (response.status === 200) return;
    } catch (error) {
      last = String(error);
    }
    await sleep(100);
  }
  throw new Error(`not ready after ${timeoutMs} ms: ${last.slice(0, 300)}`);
}

const mib = (bytes: number): number => Math.round((bytes / 1024 / 1024) * 10) / 10;

interface Row {
  watches: number;
  readyMs: number;
  exporterRssMiB: number;
  apiserverRssDeltaMiB: number;
}

const plane = await ControlPlane.start();
const dir = mkdtempSync(join(tmpdir(), "cr-watch-cost-"));
const rows: Row[] = [];
try {
  await installCrd(plane.admin.rest, "widgets");
  await installCrd(plane.admin.rest, "gizmos");
  const apiserver = apiserverPid(plane);
  for (const watches of counts) {
    const before = sampleProc(apiserver).rssBytes;
    const started = performance.now();
    const ours = await startOurs(
      "idle",
      repo,
      plane.kubeconfigPath,
      join(dir, String(watches)),
      config(watches),
    );
    try {
      const url = ours.metricsUrl.replace(/\/metrics$/, "");
      await ready(url, 120_000);
      const readyMs = Math.round(performance.now() - started);
      await sleep(5_000); // let the connections settle and a GC run
      rows.push({
        watches,
        readyMs,
        exporterRssMiB: mib(sampleProc(ours.pid).rssBytes),
        apiserverRssDeltaMiB: mib(sampleProc(apiserver).rssBytes - before),
      });
      console.error(`# ${JSON.stringify(rows.at(-1))}`);
    } finally {
      await ours.stop();
    }
    await sleep(3_000); // the apiserver ends the watches of the stopped exporter
  }
} finally {
  await plane.stop();
  rmSync(dir, { recursive: true, force: true });
}

const base = rows.find((r) => r.watches === 1);
const lines = [
  "| list/watches | ready after | exporter RSS | per extra watch | apiserver RSS growth |",
  "| -----------: | ----------: | -----------: | --------------: | -------------------: |",
  ...rows.map((r) => {
    const perWatch =
      base && r.watches > 1
        ? `${Math.round(((r.exporterRssMiB - base.exporterRssMiB) * 1024) / (r.watches - 1))} KiB`
        : "—";
    return `| ${r.watches} | ${(r.readyMs / 1000).toFixed(1)} s | ${r.exporterRssMiB} MiB | ${perWatch} | ${r.apiserverRssDeltaMiB} MiB |`;
  }),
];
console.log(lines.join("\n"));
const out = join(repo, "bench", "results", "watch-cost");
mkdirSync(out, { recursive: true });
writeFileSync(
  join(out, "latest.json"),
  `${JSON.stringify({ date: new Date().toISOString(), node: process.version, rows }, null, 2)}\n`,
);
