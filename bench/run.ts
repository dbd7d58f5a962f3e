// The benchmark: kube-state-metrics and our exporter (limited to the same
// information, and with its default families) against one test control plane
// and one fleet of widgets, one program after the other at every size; our
// idle memory with a sidecar config; micro-benchmarks of our hot paths.
// Writes <out>/<date>-<sizes>.json (raw), latest.json (summary + targets +
// raw), latest.md and chart.svg, prints the report, and for full runs into
// bench/results rewrites the targets section of bench/README.md.
//
//   npm run bench                        sizes 10k,50k; 300 s of churn per program
//   npm run bench -- --quick             1k objects, short phases (what CI runs), into results/quick
//   npm run bench -- --sizes 1000,10000 --churn-seconds 60
//
// Flags: --sizes N,N  --churn-seconds S  --latency-seconds S  --scrapes N (plain, and as many gzip)
//        --only ksm,equal,default  --no-idle  --idle-settle-seconds S  --no-micro  --out DIR
//        --cpu-prof DIR (profile our exporter)
//        --node-flag FLAG (repeatable: a runtime flag for our exporter, e.g. --heap-growing-percent=10;
//        one given here replaces the exporter's own value of that flag, src/runtime-settings.ts)
//        --render-only (rewrite the reports from the newest full-run JSON file in --out)
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { cpus, release } from "node:os";
import { dirname, join, resolve } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { type ControlPlane, installCrd } from "../test/cluster/index.ts";
import { startDelayControl } from "./lib/delay-control.ts";
import { createNamespaces, type Fleet, growFleet, startBenchPlane } from "./lib/fleet.ts";
import { type MemoryBreakdown, readMemory, reportFlags } from "./lib/heap-report.ts";
import { measureIdle } from "./lib/idle.ts";
import { churn, measureEventLatency, Patcher, waitForSync } from "./lib/measure.ts";
import { benchEvents, benchWrite } from "./lib/micro.ts";
import { ConfigRejectedError, type Subject, sampleProc, startKsm, startOurs } from "./lib/proc.ts";
import { chart, markdown } from "./lib/report.ts";
import {
  type Outcome,
  type RunResult,
  type SizeResult,
  type SubjectResult,
  upgradeRun,
} from "./lib/results.ts";
import { measureScrapes } from "./lib/scrape-stats.ts";
import { sizingBlock, spliceSizing } from "./lib/sizing-table.ts";
import { oursSidecarConfig, type SubjectId, type SubjectSpec, subjectIds, subjects } from "./lib/subjects.ts";
import { summarize } from "./lib/summary.ts";
import { judge, spliceReadme, targetsMarkdown } from "./lib/targets.ts";

const here = dirname(fileURLToPath(import.meta.url));
const repo = join(here, "..");

const defaultOut = join(here, "results");

const { values: flags } = parseArgs({
  options: {
    quick: { type: "boolean", default: false },
    sizes: { type: "string" },
    "churn-seconds": { type: "string" },
    "latency-seconds": { type: "string" },
    // 100 of each: the p99 is then the 99th of 100 sorted samples, not simply the slowest one.
    scrapes: { type: "string", default: "100" },
    only: { type: "string" },
    "no-idle": { type: "boolean", default: false },
    "idle-settle-seconds": { type: "string", default: "5" },
    "no-micro": { type: "boolean", default: false },
    out: { type: "string" },
    "cpu-prof": { type: "string" },
    "node-flag": { type: "string", multiple: true, default: [] },
    "render-only": { type: "boolean", default: false },
  },
});

const quick = flags.quick === true;
const sizes = (flags.sizes ?? (quick ? "1000" : "10000,50000")).split(",").map(Number);
if (sizes.some((n) => !Number.isInteger(n) || n < 20))
  throw new Error(`--sizes: "${flags.sizes}" is not a list of sizes ≥ 20`);
const latencySeconds = Number(flags["latency-seconds"] ?? (quick ? 5 : 20));
const churnSeconds = Number(flags["churn-seconds"] ?? (quick ? 15 : 300));
const scrapes = Number(flags.scrapes);
if (!Number.isInteger(scrapes) || scrapes < 1)
  throw new Error(`--scrapes: "${flags.scrapes}" is not a count ≥ 1`);
const idleSettleSeconds = Number(flags["idle-settle-seconds"]);
const chosen = flags.only ? flags.only.split(",") : subjectIds;
for (const id of chosen)
  if (!subjectIds.includes(id as SubjectId))
    throw new Error(`--only: "${id}" is not one of ${subjectIds.join(", ")}`);
const runSubjects = subjects.filter((s) => chosen.includes(s.id));
const nodeFlags = flags["node-flag"] ?? [];
for (const flag of nodeFlags)
  if (!flag.startsWith("--"))
    throw new Error(`--node-flag: "${flag}" is not a runtime flag (--name[=value])`);
const rates = [100, 500];
// Quick runs stay out of the committed results (results/quick is ignored by git).
const outDir = resolve(flags.out ?? (quick ? join(defaultOut, "quick") : defaultOut));
const readmePath = join(here, "README.md");
const sizingPath = join(here, "..", "docs", "sizing.md");

const log = (line: string): void => {
  process.stderr.write(`[bench ${new Date().toISOString().slice(11, 19)}] ${line}\n`);
};

function resolveKsm(): string {
  if (process.env.KSM_BINARY) return process.env.KSM_BINARY;
  const output = execFileSync("bash", [join(here, "ksm", "build-ksm.sh")], {
    stdio: ["ignore", "pipe", "inherit"],
    encoding: "utf8",
  });
  const binary = output.trim().split("\n").at(-1);
  if (!binary) throw new Error("build-ksm.sh printed no binary path");
  return binary;
}

function ksmVersion(): string {
  const mod = readFileSync(join(here, "ksm", "gobuild", "go.mod"), "utf8");
  return /k8s\.io\/kube-state-metrics\/v2 (v\S+)/.exec(mod)?.[1] ?? "unknown";
}

/** Starts one subject; a rejected config of a subject that allows it becomes a skip. */
async function startSubject(
  spec: SubjectSpec,
  plane: ControlPlane,
  ksmBinary: string | undefined,
  dir: string,
): Promise<Subject | { skipped: string }> {
  if (spec.program === "ksm") return startKsm(ksmBinary as string, plane.kubeconfigPath, dir, spec.config);
  const profDir = flags["cpu-prof"];
  mkdirSync(reportDir(dir), { recursive: true });
  try {
    return await startOurs(spec.id, repo, plane.kubeconfigPath, dir, spec.config, [
      ...reportFlags(reportDir(dir)),
      ...(profDir ? ["--cpu-prof", `--cpu-prof-dir=${resolve(profDir)}`] : []),
      ...nodeFlags,
    ]);
  } catch (error) {
    if (!(error instanceof ConfigRejectedError) || !spec.skipWhenRejected) throw error;
    const said = error.message.replace(/\s+/g, " ").trim();
    return { skipped: `${spec.skipWhenRejected}: the exporter rejected its config (exit 2): ${said}` };
  }
}

/** Where our exporter writes its diagnostic reports (memory by heap space). */
const reportDir = (subjectDir: string): string => join(subjectDir, "reports");

async function measureSubject(
  plane: ControlPlane,
  fleet: Fleet,
  spec: SubjectSpec,
  ksmBinary: string | undefined,
  workDir: string,
  state: { flip: number; generation: number },
  patcher: Patcher,
): Promise<Outcome<SubjectResult>> {
  const objects = fleet.objects.length;
  const who = `${spec.label} @ ${objects}`;
  const dir = join(workDir, `${spec.id}-${objects}`);
  const started = await startSubject(spec, plane, ksmBinary, dir);
  if ("skipped" in started) {
    log(`${who}: SKIPPED: ${started.skipped}`);
    return started;
  }
  const subject = started;
  try {
    log(`${who}: waiting for all objects in /metrics`);
    const sync = await waitForSync(subject, objects, Math.max(120_000, objects * 20));
    await sleep(1000); // let the initial burst's garbage be collected before sampling
    const afterSync = sampleProc(subject.pid);
    const memory = (): Promise<MemoryBreakdown | undefined> =>
      spec.program === "ours" ? readMemory(subject.pid, reportDir(dir)) : Promise.resolve(undefined);
    const memoryAfterSync = await memory();
    log(
      `${who}: synced in ${sync.seconds.toFixed(2)} s, RSS ${(afterSync.rssBytes / 1048576).toFixed(0)} MiB; ${scrapes} plain + ${scrapes} gzip scrapes`,
    );
    // Ours reads its event-loop delay: an idle process beside it tells the machine's share.
    const control = spec.program === "ours" ? await startDelayControl() : undefined;
    const scrape = await measureScrapes(subject, objects, scrapes, control).finally(() => control?.stop());
    const afterScrapes = sampleProc(subject.pid);
    const latency = [];
    for (const rate of rates) {
      log(`${who}: event→metric latency at ${rate} patches/s for ${latencySeconds} s`);
      latency.push(await measureEventLatency(subject, patcher, fleet, rate, latencySeconds, state));
    }
    const afterLatency = sampleProc(subject.pid);
    const rest = Math.max(0, churnSeconds - rates.length * latencySeconds);
    log(`${who}: churn at 100 patches/s for ${rest} s more (${churnSeconds} s in all)`);
    const churned = await churn(patcher, fleet, 100, rest, state);
    await sleep(1000);
    const end = sampleProc(subject.pid);
    const memoryAfterChurn = await memory();
    return {
      syncSeconds: sync.seconds,
      syncPolls: sync.polls,
      rssAfterSyncBytes: afterSync.rssBytes,
      cpuAfterSyncSeconds: afterSync.cpuSeconds,
      scrape,
      latency,
      churn: {
        seconds: churnSeconds,
        rate: 100,
        patches: churned.patches + latency.reduce((n, l) => n + l.patches, 0),
      },
      rssAfterChurnBytes: end.rssBytes,
      cpuTotalSeconds: end.cpuSeconds,
      cpuAfterScrapesSeconds: afterScrapes.cpuSeconds,
      cpuAfterLatencySeconds: afterLatency.cpuSeconds,
      ...(memoryAfterSync && memoryAfterChurn ? { memoryAfterSync, memoryAfterChurn } : {}),
    };
  } finally {
    await subject.stop();
  }
}

/** Our exporter as a sidecar (one empty namespace, no CRD discovery, no tracing): memory before any object. */
async function measureIdleSubject(plane: ControlPlane, workDir: string): Promise<RunResult["idle"]> {
  const namespace = await plane.createNamespace("bench-idle");
  const config = oursSidecarConfig(namespace);
  log(`idle: our exporter with a sidecar config on the empty namespace ${namespace}`);
  const subject = await startOurs("idle", repo, plane.kubeconfigPath, join(workDir, "idle"), config);
  const idle = await measureIdle(subject, idleSettleSeconds);
  log(
    `idle: RSS ${(idle.rssAtReadyBytes / 1048576).toFixed(1)} MiB at /readyz 200, ${(idle.rssSettledBytes / 1048576).toFixed(1)} MiB after ${idleSettleSeconds} s`,
  );
  return { ...idle, config };
}

async function objectBytes(plane: ControlPlane): Promise<{ bytes: number; sample: unknown[] }> {
  // A cluster-wide page: objects from every namespace, as a watch delivers them.
  const list = await plane.admin.rest.get<{ items: unknown[] }>("/apis/example.com/v1/widgets", {
    query: { limit: 2000 },
  });
  const bytes =
    list.items.reduce<number>((n, item) => n + JSON.stringify(item).length, 0) / list.items.length;
  return { bytes, sample: list.items };
}

function fullRuns(): RunResult[] {
  return readdirSync(outDir)
    .filter((f) => /^\d{4}-.*\.json$/.test(f) && !f.includes("-quick"))
    .sort()
    .map((f) => upgradeRun(JSON.parse(readFileSync(join(outDir, f), "utf8"))));
}

/**
 * latest.md, latest.json (summary, judged targets, raw run) and chart.svg in
 * the output directory; the README's targets section when that directory is
 * bench/results. Returns the report, which is also printed.
 */
function writeReports(run: RunResult, chartRuns: RunResult[]): string {
  // The sharded runs' ratios come from bench/shards.ts, which records them here; kept across this run.
  const previous = existsSync(join(outDir, "latest.json"))
    ? (JSON.parse(readFileSync(join(outDir, "latest.json"), "utf8")) as { summary?: { shards?: unknown } })
    : undefined;
  const summary = {
    ...summarize(run),
    ...(previous?.summary?.shards ? { shards: previous.summary.shards } : {}),
  };
  const rows = judge(summary);
  const report = markdown(run);
  writeFileSync(join(outDir, "latest.md"), report);
  writeFileSync(join(outDir, "latest.json"), `${JSON.stringify({ summary, targets: rows, run }, null, 2)}\n`);
  writeFileSync(join(outDir, "chart.svg"), chart(chartRuns));
  if (outDir === defaultOut) {
    const sizesRun = run.sizes.map((s) => s.objects.toLocaleString("en-US")).join(", ");
    const body = [
      `From \`results/latest.json\`: the run of ${run.startedAt} (${sizesRun} objects, ${run.machine.cpus} × ${run.machine.cpuModel}).`,
      "",
      targetsMarkdown(rows),
    ].join("\n");
    writeFileSync(readmePath, spliceReadme(readFileSync(readmePath, "utf8"), body));
    writeFileSync(sizingPath, spliceSizing(readFileSync(sizingPath, "utf8"), sizingBlock(run)));
  }
  process.stdout.write(report);
  log(
    `wrote ${["latest.md", "latest.json", "chart.svg"].map((f) => join(outDir, f)).join(", ")}${outDir === defaultOut ? ` and the targets in ${readmePath} and ${sizingPath}` : ""}`,
  );
  return report;
}

function renderOnly(): void {
  const runs = fullRuns();
  const newest = runs.at(-1);
  if (!newest) throw new Error(`no full-run JSON files in ${outDir}`);
  writeReports(newest, runs);
}

async function main(): Promise<void> {
  if (flags["render-only"]) return renderOnly();
  const startedAt = new Date().toISOString();
  const ksmBinary = runSubjects.some((s) => s.program === "ksm") ? resolveKsm() : undefined;
  log(
    `sizes ${sizes.join(",")}, subjects ${runSubjects.map((s) => s.id).join(",")}, latency phases ${latencySeconds} s, churn ${churnSeconds} s, ${scrapes} plain + ${scrapes} gzip scrapes; starting the control plane`,
  );
  const plane = await startBenchPlane();
  const result: RunResult = {
    schema: 2,
    startedAt,
    finishedAt: "",
    machine: {
      cpus: cpus().length,
      cpuModel: cpus()[0]?.model ?? "unknown",
      node: process.version,
      kernel: release(),
    },
    options: {
      sizes,
      latencySeconds,
      churnSeconds,
      scrapes,
      gzipScrapes: scrapes,
      rates,
      idleSettleSeconds: flags["no-idle"] ? null : idleSettleSeconds,
      order: `sequential (${runSubjects.map((s) => s.id).join(", ")})`,
      ...(nodeFlags.length > 0 ? { nodeFlags } : {}),
    },
    ksmVersion: ksmVersion(),
    objectBytes: 0,
    subjects: runSubjects.map((s) => ({ ...s })),
    sizes: [],
  };
  const patcher = new Patcher(plane.server, plane.caPem, plane.admin.token);
  try {
    await installCrd(plane.admin.rest, "widgets");
    const workDir = join(plane.directory, "bench");
    if (!flags["no-idle"]) result.idle = await measureIdleSubject(plane, workDir);
    const fleet: Fleet = { namespaces: await createNamespaces(plane), objects: [], createSeconds: {} };
    const state = { flip: 0, generation: 1 };
    // A config one size rejected is rejected at every size: skip it without starting it again.
    const rejected = new Map<SubjectId, Outcome<SubjectResult>>();
    let sample: unknown[] = [];
    for (const size of [...sizes].sort((a, b) => a - b)) {
      await growFleet(plane.admin.rest, fleet, size, log);
      const listed = await objectBytes(plane);
      result.objectBytes = listed.bytes;
      sample = listed.sample;
      const entry: SizeResult = {
        objects: size,
        createSeconds: fleet.createSeconds[size] ?? 0,
        subjects: {},
      };
      for (const spec of runSubjects) {
        const outcome =
          rejected.get(spec.id) ??
          (await measureSubject(plane, fleet, spec, ksmBinary, workDir, state, patcher));
        if ("skipped" in outcome) rejected.set(spec.id, outcome);
        entry.subjects[spec.id] = outcome;
      }
      result.sizes.push(entry);
    }
    if (!flags["no-micro"]) {
      log("micro-benchmarks: watch-event processing");
      const events = benchEvents(sample, quick ? 5_000 : 20_000);
      log("micro-benchmarks: exposition writing");
      const write = await benchWrite(sample[0], quick ? [100_000] : [100_000, 500_000, 1_000_000]);
      result.micro = { events, write };
    }
  } finally {
    patcher.close();
    await plane.stop();
  }
  result.finishedAt = new Date().toISOString();
  mkdirSync(outDir, { recursive: true });
  const file = join(
    outDir,
    `${startedAt.slice(0, 16).replace(/:/g, "")}-${sizes.join("_")}${quick ? "-quick" : ""}.json`,
  );
  writeFileSync(file, `${JSON.stringify(result, null, 2)}\n`);
  log(`wrote ${file}`);
  // The chart shows the newest measurement of every size across the full runs in the output directory.
  const runs = fullRuns();
  writeReports(result, runs.length > 0 ? runs : [result]);
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    process.stderr.write(
      `bench: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
    );
    process.exit(1);
  },
);
