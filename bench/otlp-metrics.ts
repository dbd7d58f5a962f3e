// What one OTLP metrics export costs (docs/otlp-metrics.md): N widgets (the
// fleet's shape, bench/lib/fleet.ts) fed through the same ingest a watch
// event takes, with the default family set, then exports to a loopback
// OTLP/HTTP receiver in a child process (so its parsing is not counted here),
// for http/protobuf and http/json, with and without gzip. Per export: points,
// points per second, requests, bytes serialized and sent, CPU ms of this
// process (gzip's worker threads included), wall ms, the longest event-loop
// stall (monitorEventLoopDelay, 1 ms resolution) and the longest synchronous
// stretch of encoding. For reference, the same store's /metrics scrape
// (writeExposition written to a loopback socket as the server writes it,
// plain and gzip) measured the same way in the same run: the export's CPU
// target is the scrape's. The cases run in rounds (each case once per round),
// and each figure is the median over the rounds. The load average is recorded before and after
// each size (the figures mean little on a busy machine). The table goes to
// stdout (for bench/README.md), the numbers to --out (default
// bench/results/otlp-metrics/latest.json; test/unit/doc-figures.test.ts
// compares the docs with it). It runs with the exporter's runtime flags and
// allocator setting (src/runtime-settings.ts), restarting itself to take them:
// its heap is then configured as the exporter's, whose collections are part
// of what an export costs.
//   node bench/otlp-metrics.ts [--sizes 10000,50000] [--exports 3]
//     [--protocols http/protobuf,http/json] [--out FILE]
import { type ChildProcess, spawn } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import { type ClientRequest, request, type ServerResponse } from "node:http";
import { loadavg } from "node:os";
import { dirname } from "node:path";
import { monitorEventLoopDelay } from "node:perf_hooks";
import { parseArgs } from "node:util";
import { resourceFromAttributes } from "@opentelemetry/resources";
import { silentLogger } from "../src/log.ts";
import { defaultChunkBytes } from "../src/metrics/chunks.ts";
import { writeExposition } from "../src/metrics/writer.ts";
import { OtlpMetricsExporter } from "../src/otlp-metrics/exporter.ts";
import type { OtlpMetricsSettings } from "../src/otlp-metrics/settings.ts";
import { execWithRuntimeSettings } from "../src/runtime-settings.ts";
import { gzipOptions } from "../src/server/http.ts";
import { sendGzip, sendPlain } from "../src/server/send-exposition.ts";
import { offlineCollector } from "../test/support/collector.ts";
import { widgetBody, widgetStatus } from "./lib/fleet.ts";

execWithRuntimeSettings();

const { values: flags } = parseArgs({
  options: {
    sizes: { type: "string", default: "10000,50000" },
    exports: { type: "string", default: "3" },
    protocols: { type: "string", default: "http/protobuf,http/json" },
    out: { type: "string", default: "bench/results/otlp-metrics/latest.json" },
  },
});
const protocols = flags.protocols.split(",") as ("http/protobuf" | "http/json")[];
const sizes = flags.sizes.split(",").map(Number);
const exportsPerCase = Number(flags.exports);

/** A receiver that reads each request whole and answers 200, in its own process. */
async function startReceiver(): Promise<{ url: string; child: ChildProcess }> {
  const code = `
    const http = require("node:http");
    const server = http.createServer((req, res) => { req.on("data", () => {}); req.on("end", () => res.end()); });
    server.listen(0, "127.0.0.1", () => process.stdout.write(String(server.address().port) + "\\n"));
  `;
  const child = spawn(process.execPath, ["-e", code], { stdio: ["ignore", "pipe", "inherit"] });
  const port = await new Promise<string>((resolve) =>
    child.stdout?.once("data", (d: Buffer) => resolve(d.toString().trim())),
  );
  return { url: `http://127.0.0.1:${port}/v1/metrics`, child };
}

function fleet(objects: number) {
  const c = offlineCollector({ phases: ["Pending", "Provisioning", "Running", "Failed"] });
  const at = Date.parse("2026-01-01T00:30:00Z");
  for (let i = 0; i < objects; i++) {
    const namespace = `bench${String(i % 50).padStart(2, "0")}`;
    const name = `widget-${i}`;
    const body = widgetBody(namespace, name, i);
    const object = {
      ...body,
      metadata: {
        ...body.metadata,
        namespace,
        uid: `00000000-0000-4000-8000-${String(i).padStart(12, "0")}`,
        resourceVersion: String(i + 1),
        generation: 1,
        creationTimestamp: "2026-01-01T00:00:00Z",
      },
      status: widgetStatus(i, 1, 0, at),
    };
    c.collector.ingest("ADDED", JSON.parse(JSON.stringify(object)));
  }
  return c;
}

interface Row {
  objects: number;
  protocol: string;
  compression: string;
  points: number;
  requests: number;
  rawBytes: number;
  bytes: number;
  wallMs: number;
  cpuMs: number;
  stallMs: number;
  serializeMs: number;
}

const median = (xs: number[]): number => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] as number;

/** One measured case: the medians of its runs after a warm-up one, the worst stall and slice. */
function summary(objects: number, protocol: string, compression: string, runs: Row[]): Row {
  const pick = (k: keyof Row) => median(runs.map((r) => r[k] as number));
  const row: Row = {
    objects,
    protocol,
    compression,
    points: pick("points"),
    requests: pick("requests"),
    rawBytes: pick("rawBytes"),
    bytes: pick("bytes"),
    wallMs: pick("wallMs"),
    cpuMs: pick("cpuMs"),
    // The worst of the runs, not the median.
    stallMs: Math.max(...runs.map((r) => r.stallMs)),
    serializeMs: Math.max(...runs.map((r) => r.serializeMs)),
  };
  console.error(`# ${objects} objects ${protocol} ${compression}: ${JSON.stringify(row)}`);
  return row;
}

type Once = () => Promise<Omit<Row, "cpuMs" | "stallMs">>;

/** One run of `once`, with its CPU time and longest stall. */
async function timedOnce(once: Once): Promise<Row> {
  const loop = monitorEventLoopDelay({ resolution: 1 });
  loop.enable();
  const cpu = process.cpuUsage();
  const row = await once();
  const used = process.cpuUsage(cpu);
  loop.disable();
  return { ...row, cpuMs: (used.user + used.system) / 1000, stallMs: loop.max / 1e6 };
}

/**
 * Runs every case a warm-up time and then `exportsPerCase` times, one round
 * of all cases after another, so that the machine's drift and the heap's
 * state (garbage the previous case left) fall on every case alike: run one
 * case after the other, the scrape went first on a fresh heap.
 */
async function interleaved(cases: { label: [string, string]; once: Once }[]): Promise<Row[][]> {
  const runs: Row[][] = cases.map(() => []);
  for (let n = 0; n <= exportsPerCase; n++) {
    for (const [i, c] of cases.entries()) {
      const row = await timedOnce(c.once);
      // The first round warms the code up: not counted.
      if (n > 0) runs[i]?.push(row);
    }
  }
  return runs;
}

/** A counting writable over one POST to the receiver, for the scrape writer to write to as it writes a response. */
function scrapeTarget(url: string): { req: ClientRequest; bytes: () => number; done: Promise<void> } {
  const req = request(url, { method: "POST", headers: { "content-type": "text/plain" } });
  let bytes = 0;
  const write = req.write.bind(req) as (chunk: unknown, ...rest: unknown[]) => boolean;
  req.write = ((chunk: string | Buffer, ...rest: unknown[]) => {
    bytes += typeof chunk === "string" ? chunk.length : chunk.length;
    return write(chunk, ...rest);
  }) as typeof req.write;
  const done = new Promise<void>((resolve, reject) => {
    req.on("response", (res) => {
      res.resume();
      res.on("end", resolve);
    });
    req.on("error", reject);
  });
  return { req, bytes: () => bytes, done };
}

/** The same store's /metrics, written to a loopback socket the way the server writes a scrape. */
function scrapeCase(
  objects: number,
  c: ReturnType<typeof fleet>,
  url: string,
  compression: "none" | "gzip",
): Once {
  return async () => {
    const started = performance.now();
    const target = scrapeTarget(url);
    const chunks = writeExposition({
      sources: c.collector.sources,
      registry: c.metrics.registry,
      prefix: "cr_",
      openMetrics: false,
    });
    const res = target.req as unknown as ServerResponse;
    let raw = 0;
    async function* counted(): AsyncGenerator<string> {
      for await (const chunk of chunks) {
        raw += chunk.length;
        yield chunk;
      }
    }
    await (compression === "gzip"
      ? sendGzip(res, counted(), { ...gzipOptions, chunkBytes: defaultChunkBytes })
      : sendPlain(res, counted()));
    await target.done;
    return {
      objects,
      protocol: "/metrics scrape",
      compression,
      points: 0,
      requests: 1,
      rawBytes: raw,
      bytes: target.bytes(),
      wallMs: performance.now() - started,
      serializeMs: 0,
    };
  };
}

/** One export of the store over OTLP with `protocol` and `compression`. */
function exportCase(
  objects: number,
  c: ReturnType<typeof fleet>,
  url: string,
  protocol: "http/protobuf" | "http/json",
  compression: "none" | "gzip",
): Once {
  const settings: OtlpMetricsSettings = {
    target: { url, protocol, source: "bench" },
    headers: {},
    compression,
    timeoutMs: 30_000,
    intervalMs: 60_000,
    exportTimeoutMs: 120_000,
    temporality: "cumulative",
  };
  const exporter = new OtlpMetricsExporter({
    settings,
    sources: () => c.collector.sources,
    registry: c.metrics.registry,
    resource: resourceFromAttributes({ "service.name": "cr-status-exporter" }),
    version: "bench",
    logger: silentLogger,
    startMs: Date.now(),
  });
  return async () => {
    const report = await exporter.exportNow();
    if (report.result !== "success") throw new Error(`export failed: ${report.error}`);
    return {
      objects,
      protocol,
      compression,
      points: report.points,
      requests: report.requests,
      rawBytes: report.rawBytes,
      bytes: report.bytes,
      wallMs: report.durationMs,
      serializeMs: report.maxSerializeMs,
    };
  };
}

async function measure(objects: number, url: string): Promise<Row[]> {
  const c = fleet(objects);
  const compressions = ["none", "gzip"] as const;
  const cases = [
    ...compressions.map((z) => ({
      label: ["/metrics scrape", z] as [string, string],
      once: scrapeCase(objects, c, url, z),
    })),
    ...protocols.flatMap((protocol) =>
      compressions.map((z) => ({
        label: [protocol, z] as [string, string],
        once: exportCase(objects, c, url, protocol, z),
      })),
    ),
  ];
  const runs = await interleaved(cases);
  return cases.map((k, i) => summary(objects, k.label[0], k.label[1], runs[i] ?? []));
}

interface SizeRun {
  objects: number;
  /** 1-minute load averages before and after. */
  loadBefore: number;
  loadAfter: number;
  rows: Row[];
}

const receiver = await startReceiver();
try {
  const runs: SizeRun[] = [];
  for (const size of sizes) {
    const loadBefore = loadavg()[0] as number;
    const rows = await measure(size, receiver.url);
    runs.push({ objects: size, loadBefore, loadAfter: loadavg()[0] as number, rows });
  }
  const mb = (b: number) => (b / 1048576).toFixed(1);
  for (const run of runs)
    console.log(
      `${run.objects} objects: load average ${run.loadBefore.toFixed(1)} → ${run.loadAfter.toFixed(1)}`,
    );
  console.log(
    "| objects | protocol | gzip | points | requests | points/s | MiB serialized | MiB sent | CPU ms | wall ms | max stall ms | max serialize ms |",
  );
  console.log("| ---: | --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |");
  for (const r of runs.flatMap((run) => run.rows)) {
    const perSecond = r.points > 0 ? Math.round(r.points / (r.wallMs / 1000)).toLocaleString("en") : "";
    const points = r.points > 0 ? r.points.toLocaleString("en") : "";
    const slice = r.points > 0 ? r.serializeMs.toFixed(1) : "";
    console.log(
      `| ${r.objects.toLocaleString("en")} | ${r.protocol} | ${r.compression === "gzip" ? "yes" : "no"} | ${points} | ${r.requests} | ${perSecond} | ${mb(r.rawBytes)} | ${mb(r.bytes)} | ${Math.round(r.cpuMs)} | ${Math.round(r.wallMs)} | ${r.stallMs.toFixed(1)} | ${slice} |`,
    );
  }
  mkdirSync(dirname(flags.out), { recursive: true });
  writeFileSync(
    flags.out,
    `${JSON.stringify({ date: new Date().toISOString(), nodeFlags: process.execArgv, runs }, null, 2)}\n`,
  );
} finally {
  receiver.child.kill();
}
