// The benchmark: our exporter and kube-state-metrics against one test control
// plane and one fleet of widgets, one program after the other at every size,
// plus micro-benchmarks of our hot paths. Writes bench/results/<date>-<sizes>.json,
// bench/results/latest.md and bench/results/chart.svg, and prints the table.
//
//   npm run bench                        sizes 1k,10k,50k; 300 s of churn per program
//   npm run bench -- --quick             1k objects, short phases (what CI runs)
//   npm run bench -- --sizes 1000,10000 --churn-seconds 60
//
// Flags: --sizes N,N  --churn-seconds S  --latency-seconds S  --scrapes N
//        --only ours|ksm  --no-micro  --out DIR  --cpu-prof DIR (profile our exporter)
//        --render-only (rewrite latest.md and chart.svg from the JSON files in --out)
import { execFileSync } from "node:child_process";
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { cpus, release } from "node:os";
import { dirname, join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { ControlPlane, installCrd } from "../test/cluster/index.ts";
import { createNamespaces, type Fleet, growFleet } from "./lib/fleet.ts";
import { churn, measureEventLatency, measureScrapes, Patcher, waitForSync } from "./lib/measure.ts";
import { benchEvents, benchWrite } from "./lib/micro.ts";
import { type Subject, sampleProc, startKsm, startOurs } from "./lib/proc.ts";
import { chart, markdown, type RunResult, type SizeResult, type SubjectResult } from "./lib/report.ts";

const here = dirname(fileURLToPath(import.meta.url));
const repo = join(here, "..");

const { values: flags } = parseArgs({
  options: {
    quick: { type: "boolean", default: false },
    sizes: { type: "string" },
    "churn-seconds": { type: "string" },
    "latency-seconds": { type: "string" },
    scrapes: { type: "string", default: "30" },
    only: { type: "string" },
    "no-micro": { type: "boolean", default: false },
    out: { type: "string", default: join(here, "results") },
    "cpu-prof": { type: "string" },
    "render-only": { type: "boolean", default: false },
  },
});

const quick = flags.quick === true;
const sizes = (flags.sizes ?? (quick ? "1000" : "1000,10000,50000")).split(",").map(Number);
if (sizes.some((n) => !Number.isInteger(n) || n < 20))
  throw new Error(`--sizes: "${flags.sizes}" is not a list of sizes ≥ 20`);
const latencySeconds = Number(flags["latency-seconds"] ?? (quick ? 5 : 20));
const churnSeconds = Number(flags["churn-seconds"] ?? (quick ? 15 : 300));
const scrapes = Number(flags.scrapes);
const subjects = flags.only ? [flags.only] : ["ksm", "ours"];
for (const s of subjects)
  if (s !== "ours" && s !== "ksm") throw new Error(`--only: "${s}" is not ours or ksm`);
const rates = [100, 500];
const outDir = flags.out as string;

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

async function measureSubject(
  plane: ControlPlane,
  fleet: Fleet,
  name: "ours" | "ksm",
  ksmBinary: string | undefined,
  workDir: string,
  state: { flip: number; generation: number },
  patcher: Patcher,
): Promise<SubjectResult> {
  const objects = fleet.objects.length;
  const dir = join(workDir, `${name}-${objects}`);
  const profDir = flags["cpu-prof"];
  const subject: Subject =
    name === "ours"
      ? await startOurs(
          repo,
          plane.kubeconfigPath,
          dir,
          profDir ? ["--cpu-prof", `--cpu-prof-dir=${profDir}`] : [],
        )
      : await startKsm(ksmBinary as string, plane.kubeconfigPath, dir);
  try {
    log(`${name} @ ${objects}: waiting for all objects in /metrics`);
    const sync = await waitForSync(subject, objects, Math.max(120_000, objects * 20));
    await sleep(1000); // let the initial burst's garbage be collected before sampling
    const afterSync = sampleProc(subject.pid);
    log(
      `${name} @ ${objects}: synced in ${sync.seconds.toFixed(2)} s, RSS ${(afterSync.rssBytes / 1048576).toFixed(0)} MiB; ${scrapes} scrapes`,
    );
    const scrape = await measureScrapes(subject, objects, scrapes);
    const latency = [];
    for (const rate of rates) {
      log(`${name} @ ${objects}: event→metric latency at ${rate} patches/s for ${latencySeconds} s`);
      latency.push(await measureEventLatency(subject, patcher, fleet, rate, latencySeconds, state));
    }
    const rest = Math.max(0, churnSeconds - rates.length * latencySeconds);
    log(`${name} @ ${objects}: churn at 100 patches/s for ${rest} s more (${churnSeconds} s in all)`);
    const churned = await churn(patcher, fleet, 100, rest, state);
    await sleep(1000);
    const end = sampleProc(subject.pid);
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
    };
  } finally {
    await subject.stop();
  }
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
    .filter((f) => f.endsWith(".json") && !f.includes("-quick"))
    .sort()
    .map((f) => JSON.parse(readFileSync(join(outDir, f), "utf8")) as RunResult);
}

function renderOnly(): void {
  const runs = fullRuns();
  const newest = runs.at(-1);
  if (!newest) throw new Error(`no full-run JSON files in ${outDir}`);
  writeFileSync(join(outDir, "latest.md"), markdown(newest));
  writeFileSync(join(outDir, "chart.svg"), chart(runs));
  process.stdout.write(markdown(newest));
}

async function main(): Promise<void> {
  if (flags["render-only"]) return renderOnly();
  const startedAt = new Date().toISOString();
  const ksmBinary = subjects.includes("ksm") ? resolveKsm() : undefined;
  log(
    `sizes ${sizes.join(",")}, latency phases ${latencySeconds} s, churn ${churnSeconds} s, ${scrapes} scrapes; starting the control plane`,
  );
  const plane = await ControlPlane.start({
    apiserverArgs: [
      "--max-requests-inflight=2000",
      "--max-mutating-requests-inflight=1000",
      "--enable-priority-and-fairness=false",
    ],
  });
  const result: RunResult = {
    schema: 1,
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
      rates,
      subjects,
      order: "sequential (ksm, then ours)",
    },
    ksmVersion: ksmVersion(),
    objectBytes: 0,
    sizes: [],
  };
  try {
    await installCrd(plane.admin.rest, "widgets");
    const fleet: Fleet = { namespaces: await createNamespaces(plane), objects: [], createSeconds: {} };
    const state = { flip: 0, generation: 1 };
    const patcher = new Patcher(plane.server, plane.caPem, plane.admin.token);
    const workDir = join(plane.directory, "bench");
    let sample: unknown[] = [];
    for (const size of [...sizes].sort((a, b) => a - b)) {
      await growFleet(plane.admin.rest, fleet, size, log);
      const measured = await objectBytes(plane);
      result.objectBytes = measured.bytes;
      sample = measured.sample;
      const entry: SizeResult = {
        objects: size,
        createSeconds: fleet.createSeconds[size] ?? 0,
        subjects: {},
      };
      for (const name of subjects as ("ours" | "ksm")[]) {
        entry.subjects[name] = await measureSubject(plane, fleet, name, ksmBinary, workDir, state, patcher);
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
    await plane.stop();
  }
  result.finishedAt = new Date().toISOString();
  mkdirSync(outDir, { recursive: true });
  const file = join(
    outDir,
    `${startedAt.slice(0, 16).replace(/:/g, "")}-${sizes.join("_")}${quick ? "-quick" : ""}.json`,
  );
  writeFileSync(file, `${JSON.stringify(result, null, 2)}\n`);
  const table = markdown(result);
  writeFileSync(join(outDir, "latest.md"), table);
  const runs = fullRuns();
  // The chart shows the newest measurement of every size across the committed full runs.
  writeFileSync(join(outDir, "chart.svg"), chart(runs.length > 0 ? runs : [result]));
  process.stdout.write(table);
  log(`wrote ${file}, ${join(outDir, "latest.md")} and ${join(outDir, "chart.svg")}`);
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
