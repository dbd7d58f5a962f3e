// Sharding, measured: at each size, our exporter unsharded, then the same
// fleet split over `--shards` processes running side by side (`sharding:
// {shard, totalShards}`, the default family set). Per process: RSS 1 s after
// its sync and the scrape p50, plain and gzip, each shard scraped on its own
// while the others idle. Judged per shard: scrape p50 and RSS above the idle
// process (the sidecar config on an empty namespace), as ratios to the
// unsharded process; limits in `limits` below. Writes
// results/shards/<date>-<sizes>-gate-<on|off>.json and latest-gate-<on|off>.md, and the table between the
// shards markers of bench/README.md.
//
// --gate on starts the apiserver with ShardedListAndWatch, so each shard
// receives only its objects (the default, off, makes every shard receive
// every object and keep its own). Per process also the CPU seconds and the
// bytes read (/proc/<pid>/io rchar: the apiserver's answers, mostly) until
// its sync.
//
//   node bench/shards.ts                          # 10k and 50k, 3 shards, 20 + 20 scrapes each
//   node bench/shards.ts --sizes 1000 --scrapes 5 # a quick look
//   node bench/shards.ts --render results/shards/<run>.json  # rewrite latest.md and the README table from a run
//
// --tracing plain|joins turns tracing on in every process (spans to a
// loopback OTLP sink in this process), the shards with
// tracing.joinAcrossShards off (plain) or on (joins: every shard also reads
// and parses the other shards' objects into its directory of join targets).
// Such runs have their own report and README table
// (shards-gate-off-tracing-<mode>) and leave results/latest.json alone.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { createServer } from "node:http";
import { cpus, loadavg } from "node:os";
import { dirname, join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { parse, stringify } from "yaml";
import { shardOfUid } from "../src/core/shard.ts";
import { type ControlPlane, installCrd } from "../test/cluster/index.ts";
import { createNamespaces, type Fleet, growFleet, startBenchPlane } from "./lib/fleet.ts";
import { measureIdle } from "./lib/idle.ts";
import { waitForSync } from "./lib/measure.ts";
import { bytesRead, type Subject, sampleProc, startOurs } from "./lib/proc.ts";
import { measureScrapes } from "./lib/scrape-stats.ts";
import { oursDefaultConfig, oursSidecarConfig } from "./lib/subjects.ts";
import { table } from "./lib/targets.ts";

const here = dirname(fileURLToPath(import.meta.url));
const repo = join(here, "..");
const { values: flags } = parseArgs({
  options: {
    sizes: { type: "string", default: "10000,50000" },
    shards: { type: "string", default: "3" },
    scrapes: { type: "string", default: "20" },
    out: { type: "string", default: join(here, "results", "shards") },
    render: { type: "string" },
    gate: { type: "string", default: "off" },
    tracing: { type: "string" },
  },
});
if (flags.gate !== "on" && flags.gate !== "off") throw new Error("--gate: expected on or off");
const gateOn = flags.gate === "on";
if (flags.tracing !== undefined && flags.tracing !== "plain" && flags.tracing !== "joins")
  throw new Error("--tracing: expected plain or joins");
const tracingMode = flags.tracing as "plain" | "joins" | undefined;
/** The loopback OTLP/HTTP sink the processes export spans to (--tracing), once started. */
let sinkEndpoint: string | undefined;
const sizes = flags.sizes.split(",").map(Number);
const shardCount = Number(flags.shards);
const scrapes = Number(flags.scrapes);
for (const [name, values] of [
  ["--sizes", sizes],
  ["--shards", [shardCount]],
  ["--scrapes", [scrapes]],
] as const) {
  if (values.some((n) => !Number.isInteger(n) || n < 1))
    throw new Error(`${name}: expected whole numbers ≥ 1`);
}
/**
 * Each shard's value / the unsharded process's. Gate off, every shard still
 * receives every object (and reads a few KiB more of its own), so CPU and
 * bytes to sync are shown but not judged.
 */
const limits = gateOn
  ? { scrapeP50: 0.4, rssAboveIdle: 0.4, cpuSync: 0.4, bytesRead: 0.36 }
  : { scrapeP50: 0.4, rssAboveIdle: 0.45 };
const MiB = 1024 * 1024;

const log = (line: string): void => {
  process.stderr.write(`[shards ${new Date().toISOString().slice(11, 19)}] ${line}\n`);
};

interface ProcessResult {
  objects: number;
  syncSeconds: number;
  /** CPU seconds (user + system) and bytes read (rchar) from start to sync (absent in older runs). */
  cpuSyncSeconds?: number;
  bytesRead?: number;
  rssBytes: number;
  scrapeP50Ms: number;
  gzipP50Ms: number;
  bytes: number;
  series: number;
}

interface RunResult {
  startedAt: string;
  /** Whether the apiserver had ShardedListAndWatch on (absent in runs from before it was measured). */
  gate?: "on" | "off";
  /** Tracing in every process, the shards with joinAcrossShards off (plain) or on (joins); absent: off. */
  tracing?: "plain" | "joins";
  shards: number;
  scrapes: number;
  limits: { scrapeP50: number; rssAboveIdle: number; cpuSync?: number; bytesRead?: number };
  idleRssBytes: number;
  /** What the idle process had spent and read when ready: subtracted before the CPU and bytes ratios. */
  idleCpuSeconds?: number;
  idleBytesRead?: number;
  sizes: SizeResult[];
}

interface SizeResult {
  objects: number;
  loadAverage: { before: number[]; after: number[] };
  unsharded: ProcessResult;
  shards: ProcessResult[];
}

/** The default subject's config, with tracing when --tracing asks for it (joinAcrossShards: for shards). */
function baseConfig(sharded: boolean): Record<string, unknown> {
  const config = parse(oursDefaultConfig()) as Record<string, unknown>;
  if (!tracingMode) return config;
  if (!sinkEndpoint) throw new Error("the OTLP sink is not started");
  return {
    ...config,
    tracing: {
      endpoint: sinkEndpoint,
      clusterName: "bench",
      ...(sharded && tracingMode === "joins" && { joinAcrossShards: true }),
    },
  };
}

/** The unsharded subject's config with this process's shard. */
function shardedConfig(shard: number): string {
  return stringify({ ...baseConfig(true), sharding: { shard, totalShards: shardCount } });
}

/** Accepts OTLP/HTTP exports and drops them; returns its base URL. */
async function startSink(): Promise<{ url: string; close(): void }> {
  const server = createServer((request, response) => {
    request.resume();
    request.on("end", () => {
      response.writeHead(200, { "content-type": "application/x-protobuf" });
      response.end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  if (address === null || typeof address === "string") throw new Error("sink: no port");
  return { url: `http://127.0.0.1:${address.port}`, close: () => server.close() };
}

/** The uids of every widget, counted per shard with the exporter's own function. */
async function objectsPerShard(plane: ControlPlane): Promise<number[]> {
  const counts = Array.from({ length: shardCount }, () => 0);
  let continueToken: string | undefined;
  do {
    const page = await plane.admin.rest.get<{
      items: { metadata: { uid: string } }[];
      metadata: { continue?: string };
    }>("/apis/example.com/v1/widgets", { query: { limit: 5000, continue: continueToken } });
    for (const item of page.items) {
      const shard = shardOfUid(item.metadata.uid, shardCount);
      counts[shard] = (counts[shard] ?? 0) + 1;
    }
    continueToken = page.metadata.continue || undefined;
  } while (continueToken);
  return counts;
}

async function measure(
  subject: Subject,
  objects: number,
  synced: () => Promise<number>,
): Promise<ProcessResult> {
  const syncSeconds = await synced();
  const scrape = await measureScrapes(subject, objects, scrapes);
  return {
    objects,
    syncSeconds,
    cpuSyncSeconds: 0,
    bytesRead: 0,
    rssBytes: 0,
    scrapeP50Ms: scrape.p50Ms,
    gzipP50Ms: scrape.gzipP50Ms,
    bytes: scrape.bytes,
    series: scrape.series,
  };
}

async function measureSize(plane: ControlPlane, objects: number, dir: string): Promise<SizeResult> {
  const before = loadavg();
  const perShard = await objectsPerShard(plane);
  log(`${objects}: objects per shard ${perShard.join(" + ")}; unsharded first`);
  const whole = await startOurs(
    "default",
    repo,
    plane.kubeconfigPath,
    join(dir, `unsharded-${objects}`),
    stringify(baseConfig(false)),
  );
  let unsharded: ProcessResult;
  try {
    const sync = await waitForSync(whole, objects, Math.max(120_000, objects * 20));
    const atSync = { cpuSyncSeconds: sampleProc(whole.pid).cpuSeconds, bytesRead: bytesRead(whole.pid) };
    await sleep(1000); // the initial burst's garbage collected before sampling
    const rssBytes = sampleProc(whole.pid).rssBytes;
    unsharded = { ...(await measure(whole, objects, async () => sync.seconds)), rssBytes, ...atSync };
  } finally {
    await whole.stop();
  }
  log(
    `${objects}: unsharded RSS ${(unsharded.rssBytes / MiB).toFixed(0)} MiB, scrape p50 ${unsharded.scrapeP50Ms.toFixed(0)} ms; ${shardCount} shards side by side`,
  );
  const shards = await Promise.all(
    perShard.map((_, i) =>
      startOurs("default", repo, plane.kubeconfigPath, join(dir, `shard${i}-${objects}`), shardedConfig(i)),
    ),
  );
  try {
    const atSync: { cpuSyncSeconds: number; bytesRead: number }[] = [];
    const syncs = await Promise.all(
      shards.map(async (s, i) => {
        const sync = await waitForSync(s, perShard[i] ?? 0, Math.max(120_000, objects * 20));
        atSync[i] = { cpuSyncSeconds: sampleProc(s.pid).cpuSeconds, bytesRead: bytesRead(s.pid) };
        return sync;
      }),
    );
    await sleep(1000);
    const rss = shards.map((s) => sampleProc(s.pid).rssBytes);
    const results: ProcessResult[] = [];
    // One shard at a time: the others idle, as the unsharded process was scraped alone.
    for (const [i, shard] of shards.entries()) {
      const result = await measure(shard, perShard[i] ?? 0, async () => syncs[i]?.seconds ?? 0);
      results.push({
        ...result,
        rssBytes: rss[i] ?? 0,
        ...(atSync[i] ?? { cpuSyncSeconds: 0, bytesRead: 0 }),
      });
    }
    return { objects, loadAverage: { before, after: loadavg() }, unsharded, shards: results };
  } finally {
    await Promise.all(shards.map((s) => s.stop()));
  }
}

const fixed = (n: number, digits = 2): string => n.toFixed(digits);

/** A shard's value over the unsharded one's, both less what the idle process had at ready (its start). */
const aboveIdle = (shard: number, whole: number, idle = 0): number => (shard - idle) / (whole - idle);

/** The worst shard's ratios per size, as bench/results/latest.json's summary keeps them. */
function shardRatios(run: RunResult): Record<string, Record<string, number>> {
  const worst = (values: number[]) => Number(Math.max(...values).toFixed(4));
  return Object.fromEntries(
    run.sizes.map((size) => {
      const u = size.unsharded;
      const above = (p: ProcessResult) => p.rssBytes - run.idleRssBytes;
      const ratios: Record<string, number> = {
        rss_above_idle_ratio_max: worst(size.shards.map((s) => above(s) / above(u))),
      };
      if (run.gate === "on") {
        ratios.cpu_sync_ratio_max = worst(
          size.shards.map((s) => aboveIdle(s.cpuSyncSeconds ?? 0, u.cpuSyncSeconds ?? 0, run.idleCpuSeconds)),
        );
        ratios.bytes_ratio_max = worst(
          size.shards.map((s) => aboveIdle(s.bytesRead ?? 0, u.bytesRead ?? 0, run.idleBytesRead)),
        );
      }
      return [String(size.objects), ratios];
    }),
  );
}

/** Puts `run`'s ratios into the summary of bench/results/latest.json (`shards.<objects>.gate_on|gate_off`). */
function recordInLatest(run: RunResult): string | undefined {
  const latestPath = join(here, "results", "latest.json");
  if (!existsSync(latestPath) || run.tracing !== undefined) return undefined;
  const latest = JSON.parse(readFileSync(latestPath, "utf8")) as { summary: { shards?: ShardsSummary } };
  const shards: ShardsSummary = latest.summary.shards ?? {};
  for (const [objects, ratios] of Object.entries(shardRatios(run)))
    shards[objects] = { ...shards[objects], [`gate_${run.gate ?? "off"}`]: ratios };
  latest.summary.shards = shards;
  writeFileSync(latestPath, `${JSON.stringify(latest, null, 2)}\n`);
  return latestPath;
}

type ShardsSummary = Record<string, Record<string, Record<string, number>>>;

function report(run: RunResult): string {
  const intro =
    `Run of ${run.startedAt} on ${cpus().length} × ${cpus()[0]?.model ?? "?"}; idle RSS ${fixed(run.idleRssBytes / MiB, 1)} MiB ` +
    `(sidecar config, empty namespace). Default family set; ${run.shards} shards as \`sharding: {shard, totalShards}\`, ` +
    `running side by side; the apiserver's ShardedListAndWatch ${run.gate ?? "off"} ` +
    `(${run.gate === "on" ? "each shard receives only its objects" : "every shard receives every object"}); ` +
    (run.tracing === undefined
      ? ""
      : `tracing on in every process (spans to a loopback sink), the shards with tracing.joinAcrossShards ${run.tracing === "joins" ? "on (each reads and parses every object, the others' into its directory of join targets)" : "off"}; `) +
    `each scraped alone (${run.scrapes} plain + ${run.scrapes} gzip). ` +
    (run.tracing !== undefined
      ? "Ratios to the unsharded process shown, not judged"
      : `Limits per shard: scrape p50 ≤ ${run.limits.scrapeP50}×, RSS above idle ≤ ${run.limits.rssAboveIdle}×` +
        (run.limits.cpuSync !== undefined && run.limits.bytesRead !== undefined
          ? `, CPU to sync ≤ ${run.limits.cpuSync}× and bytes read to sync ≤ ${run.limits.bytesRead}× the unsharded process's`
          : " the unsharded process's (CPU and bytes read to sync shown, not judged)")) +
    `, CPU and bytes less the idle process's at ready ` +
    `(${fixed(run.idleCpuSeconds ?? 0, 1)} s, ${fixed((run.idleBytesRead ?? 0) / MiB, 1)} MiB: starting).`;
  const rows: string[][] = [];
  for (const size of run.sizes) {
    const u = size.unsharded;
    const above = (p: ProcessResult) => p.rssBytes - run.idleRssBytes;
    const load = `${size.loadAverage.before.map((l) => fixed(l)).join(" ")} / ${size.loadAverage.after.map((l) => fixed(l)).join(" ")}`;
    // Runs with tracing compare joinAcrossShards off and on: their ratios are shown, not judged.
    const mark = (value: number, limit: number | undefined) =>
      `${fixed(value)}×${limit === undefined || value <= limit || run.tracing !== undefined ? "" : " **over**"}`;
    const row = (label: string, p: ProcessResult, ratios: boolean) =>
      rows.push([
        size.objects.toLocaleString("en-US"),
        label,
        p.objects.toLocaleString("en-US"),
        `${fixed(p.syncSeconds, 1)} s`,
        `${fixed(p.rssBytes / MiB, 0)} MiB`,
        `${fixed(above(p) / MiB, 0)} MiB`,
        ratios ? mark(above(p) / above(u), run.limits.rssAboveIdle) : "—",
        `${fixed(p.scrapeP50Ms, 0)} / ${fixed(p.gzipP50Ms, 0)} ms`,
        ratios ? mark(p.scrapeP50Ms / u.scrapeP50Ms, run.limits.scrapeP50) : "—",
        `${fixed(p.cpuSyncSeconds ?? 0, 1)} s`,
        ratios && p.cpuSyncSeconds && u.cpuSyncSeconds
          ? mark(aboveIdle(p.cpuSyncSeconds, u.cpuSyncSeconds, run.idleCpuSeconds), run.limits.cpuSync)
          : "—",
        `${fixed((p.bytesRead ?? 0) / MiB, 0)} MiB`,
        ratios && p.bytesRead && u.bytesRead
          ? mark(aboveIdle(p.bytesRead, u.bytesRead, run.idleBytesRead), run.limits.bytesRead)
          : "—",
        ratios ? "" : load,
      ]);
    row("unsharded", u, false);
    for (const [i, s] of size.shards.entries()) row(`shard ${i} of ${run.shards}`, s, true);
  }
  const header = [
    "objects",
    "process",
    "objects held",
    "sync",
    "RSS",
    "RSS above idle",
    "ratio",
    "scrape p50 plain / gzip",
    "ratio (plain)",
    "CPU to sync",
    "ratio",
    "bytes read to sync",
    "ratio",
    "load average before / after",
  ];
  return `${intro}\n\n${table(header, rows)}`;
}

/** The gate, and the tracing mode when there is one: what names a run's report, file and README table. */
const variant = (run: RunResult): string =>
  `${run.gate ?? "off"}${run.tracing === undefined ? "" : `-tracing-${run.tracing}`}`;

// One report per gate: the two runs are measured apart and both stand.
const begin = (gate: string) =>
  `<!-- shards-gate-${gate}:begin (generated by bench/shards.ts; do not edit) -->`;
const end = (gate: string) => `<!-- shards-gate-${gate}:end -->`;

async function main(): Promise<void> {
  const startedAt = new Date().toISOString();
  log(
    `sizes ${sizes.join(",")}, ${shardCount} shards, ${scrapes} + ${scrapes} scrapes; load average ${loadavg()
      .map((l) => fixed(l))
      .join(" ")}`,
  );
  const plane = await startBenchPlane(gateOn ? ["ShardedListAndWatch=true"] : []);
  const sink = tracingMode ? await startSink() : undefined;
  sinkEndpoint = sink?.url;
  const result: RunResult = {
    startedAt,
    gate: gateOn ? "on" : "off",
    ...(tracingMode && { tracing: tracingMode }),
    shards: shardCount,
    scrapes,
    limits,
    idleRssBytes: 0,
    sizes: [],
  };
  try {
    await installCrd(plane.admin.rest, "widgets");
    const dir = join(plane.directory, "bench-shards");
    const idleNamespace = await plane.createNamespace("bench-idle");
    const idle = await measureIdle(
      await startOurs(
        "idle",
        repo,
        plane.kubeconfigPath,
        join(dir, "idle"),
        oursSidecarConfig(idleNamespace),
      ),
      5,
    );
    result.idleRssBytes = idle.rssSettledBytes;
    result.idleCpuSeconds = idle.cpuAtReadySeconds;
    result.idleBytesRead = idle.bytesReadAtReady;
    log(`idle RSS ${fixed(idle.rssSettledBytes / MiB, 1)} MiB`);
    const fleet: Fleet = { namespaces: await createNamespaces(plane), objects: [], createSeconds: {} };
    for (const size of [...sizes].sort((a, b) => a - b)) {
      await growFleet(plane.admin.rest, fleet, size, log);
      result.sizes.push(await measureSize(plane, size, dir));
    }
  } finally {
    await plane.stop();
    sink?.close();
  }
  mkdirSync(flags.out, { recursive: true });
  const stamp = startedAt.slice(0, 16).replace(/:/g, "");
  const file = join(flags.out, `${stamp}-${sizes.join("_")}-gate-${variant(result)}.json`);
  writeFileSync(file, `${JSON.stringify(result, null, 2)}\n`);
  log(`wrote ${file}`);
  publish(result);
}

/** Writes the report of `run` to latest.md (next to the raw runs) and between the shards markers of bench/README.md. */
function publish(run: RunResult): void {
  const text = report(run);
  const gate = variant(run);
  mkdirSync(flags.out, { recursive: true });
  const latestMd = join(flags.out, `latest-gate-${gate}.md`);
  writeFileSync(
    latestMd,
    `# Sharding, ShardedListAndWatch ${run.gate ?? "off"}${run.tracing === undefined ? "" : `, tracing ${run.tracing}`}\n\n${text}`,
  );
  const readmePath = join(here, "README.md");
  const readme = readFileSync(readmePath, "utf8");
  const from = readme.indexOf(begin(gate));
  const to = readme.indexOf(end(gate));
  if (from >= 0 && to > from) {
    writeFileSync(
      readmePath,
      `${readme.slice(0, from + begin(gate).length)}\n\n${text}\n${readme.slice(to)}`,
    );
  }
  const latestJson = recordInLatest(run);
  process.stdout.write(text);
  log(
    `wrote ${latestMd}${from >= 0 ? `, the table in ${readmePath}` : ""}${latestJson ? ` and the ratios in ${latestJson}` : ""}`,
  );
}

(flags.render
  ? Promise.resolve(publish(JSON.parse(readFileSync(flags.render, "utf8")) as RunResult))
  : main()
).then(
  () => process.exit(0),
  (error: unknown) => {
    process.stderr.write(
      `shards: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
    );
    process.exit(1);
  },
);
