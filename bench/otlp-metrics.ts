// What one OTLP metrics export costs (docs/otlp-metrics.md): N widgets (the
// fleet's shape, bench/lib/fleet.ts) fed through the same ingest a watch
// event takes, with the default family set, then exports to a loopback
// OTLP/HTTP receiver in a child process (so its parsing is not counted here),
// for http/protobuf and http/json, with and without gzip. Per export: points,
// points per second, requests, bytes serialized and sent, CPU ms of this
// process (gzip's worker threads included), wall ms, the longest event-loop
// stall (monitorEventLoopDelay, 1 ms resolution) and the longest single
// serialization. The figures go into bench/README.md by hand.
//   node bench/otlp-metrics.ts [--sizes 10000,50000] [--exports 3] [--max-points 2000]
import { type ChildProcess, spawn } from "node:child_process";
import { monitorEventLoopDelay } from "node:perf_hooks";
import { parseArgs } from "node:util";
import { resourceFromAttributes } from "@opentelemetry/resources";
import { silentLogger } from "../src/log.ts";
import { OtlpMetricsExporter } from "../src/otlp-metrics/exporter.ts";
import type { OtlpMetricsSettings } from "../src/otlp-metrics/settings.ts";
import { offlineCollector } from "../test/support/collector.ts";
import { widgetBody, widgetStatus } from "./lib/fleet.ts";

const { values: flags } = parseArgs({
  options: {
    sizes: { type: "string", default: "10000,50000" },
    exports: { type: "string", default: "3" },
    "max-points": { type: "string", default: "2000" },
  },
});
const sizes = flags.sizes.split(",").map(Number);
const exportsPerCase = Number(flags.exports);
const maxPoints = Number(flags["max-points"]);

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

async function measure(objects: number, url: string): Promise<Row[]> {
  const c = fleet(objects);
  const rows: Row[] = [];
  for (const protocol of ["http/protobuf", "http/json"] as const) {
    for (const compression of ["none", "gzip"] as const) {
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
        maxPoints,
      });
      const runs: Row[] = [];
      for (let n = 0; n <= exportsPerCase; n++) {
        const loop = monitorEventLoopDelay({ resolution: 1 });
        loop.enable();
        const cpu = process.cpuUsage();
        const report = await exporter.exportNow();
        const used = process.cpuUsage(cpu);
        loop.disable();
        if (report.result !== "success") throw new Error(`export failed: ${report.error}`);
        // The first export warms the code up: not counted.
        if (n === 0) continue;
        runs.push({
          objects,
          protocol,
          compression,
          points: report.points,
          requests: report.requests,
          rawBytes: report.rawBytes,
          bytes: report.bytes,
          wallMs: report.durationMs,
          cpuMs: (used.user + used.system) / 1000,
          stallMs: loop.max / 1e6,
          serializeMs: report.maxSerializeMs,
        });
      }
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
      rows.push(row);
      console.error(`# ${objects} objects ${protocol} ${compression}: ${JSON.stringify(row)}`);
    }
  }
  return rows;
}

const receiver = await startReceiver();
try {
  const rows: Row[] = [];
  for (const size of sizes) rows.push(...(await measure(size, receiver.url)));
  const mb = (b: number) => (b / 1048576).toFixed(1);
  console.log(
    "| objects | protocol | gzip | points | requests | points/s | MiB serialized | MiB sent | CPU ms | wall ms | max stall ms | max serialize ms |",
  );
  console.log("| ---: | --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |");
  for (const r of rows) {
    console.log(
      `| ${r.objects.toLocaleString("en")} | ${r.protocol} | ${r.compression === "gzip" ? "yes" : "no"} | ${r.points.toLocaleString("en")} | ${r.requests} | ${Math.round(r.points / (r.wallMs / 1000)).toLocaleString("en")} | ${mb(r.rawBytes)} | ${mb(r.bytes)} | ${Math.round(r.cpuMs)} | ${Math.round(r.wallMs)} | ${r.stallMs.toFixed(1)} | ${r.serializeMs.toFixed(1)} |`,
    );
  }
} finally {
  receiver.child.kill();
}
