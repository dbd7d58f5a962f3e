// What the API proxy adds to an operator's own requests (docs/status-writes.md):
// the exporter run as users run it with apiProxy (`node src/main.ts`: a
// supervisor, the proxy process and the exporter process) over N widgets on a
// real apiserver, and one widget read (GET) and written (merge PATCH of
// /status, what the proxy counts) by an operator-like client, alternately
// straight to the apiserver and through the proxy, on kept-alive connections.
// Percentiles of each path and their difference, twice: idle, and while
// /metrics is scraped back to back and 100 parallel /api/v1/summary requests
// are answered in a loop (the exporter's heaviest inputs; the proxy shares no
// event loop with them, only the machine's cores).
//   node bench/proxy-latency.ts [--objects 10000] [--requests 1000]
import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import https from "node:https";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { parse } from "yaml";
import { installCrd } from "../test/cluster/index.ts";
import { freePort } from "../test/cluster/ports.ts";
import { createNamespaces, type Fleet, growFleet, startBenchPlane, widgetPath } from "./lib/fleet.ts";

const { values: flags } = parseArgs({
  options: {
    objects: { type: "string", default: "10000" },
    requests: { type: "string", default: "1000" },
  },
});
const objects = Number(flags.objects);
const requests = Number(flags.requests);
const phases = ["Pending", "Provisioning", "Running"];
const main = join(import.meta.dirname, "..", "src", "main.ts");

interface Endpoint {
  name: string;
  url: string;
  ca: string;
  token: string;
  agent: https.Agent;
}

/** One request on the endpoint's kept-alive connection; milliseconds from sending to the last byte. */
function timed(e: Endpoint, method: string, path: string, body?: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const started = performance.now();
    const req = https.request(new URL(path, e.url), {
      method,
      agent: e.agent,
      ca: e.ca,
      headers: {
        Authorization: `Bearer ${e.token}`,
        Accept: "application/json",
        ...(body && { "Content-Type": "application/merge-patch+json" }),
      },
    });
    req.once("response", (res) => {
      res.resume();
      res.once("end", () =>
        (res.statusCode ?? 0) < 300
          ? resolve(performance.now() - started)
          : reject(new Error(`${e.name} ${method} ${path}: ${res.statusCode}`)),
      );
    });
    req.once("error", reject);
    req.end(body);
  });
}

const percentile = (sorted: number[], p: number): number =>
  sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? Number.NaN;

interface PathStats {
  p50: number;
  p99: number;
  max: number;
}

function stats(ms: number[]): PathStats {
  const sorted = [...ms].sort((a, b) => a - b);
  return { p50: percentile(sorted, 50), p99: percentile(sorted, 99), max: sorted.at(-1) ?? Number.NaN };
}

/** `requests` rounds of GET then PATCH on each endpoint, the endpoints' order alternating per round. */
async function measure(endpoints: [Endpoint, Endpoint], path: string): Promise<Record<string, PathStats>> {
  const samples: Record<string, number[]> = Object.fromEntries(endpoints.map((e) => [e.name, []]));
  for (let i = 0; i < requests; i++) {
    const order = i % 2 === 0 ? endpoints : [endpoints[1], endpoints[0]];
    for (const e of order) {
      samples[e.name]?.push(await timed(e, "GET", path));
      const status = JSON.stringify({ status: { observedGeneration: 1, phase: phases[i % phases.length] } });
      samples[e.name]?.push(await timed(e, "PATCH", `${path}/status`, status));
    }
  }
  return Object.fromEntries(Object.entries(samples).map(([name, ms]) => [name, stats(ms)]));
}

/** Scrapes /metrics back to back and answers 100 parallel summaries in a loop, until stopped. */
function load(metricsUrl: string): { stop(): Promise<{ scrapes: number; summaries: number }> } {
  let running = true;
  let scrapes = 0;
  let summaries = 0;
  const scraping = (async () => {
    while (running) {
      await (await fetch(`${metricsUrl}/metrics`)).arrayBuffer();
      scrapes++;
    }
  })();
  const summarizing = (async () => {
    while (running) {
      await Promise.all(
        Array.from({ length: 100 }, async () => (await fetch(`${metricsUrl}/api/v1/summary`)).arrayBuffer()),
      );
      summaries += 100;
    }
  })();
  return {
    async stop() {
      running = false;
      await Promise.all([scraping, summarizing]);
      return { scrapes, summaries };
    },
  };
}

async function waitUntil(what: string, check: () => Promise<boolean>, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check().catch(() => false))) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

function row(name: string, s: PathStats): string {
  return `| ${name.padEnd(28)} | ${s.p50.toFixed(2).padStart(6)} | ${s.p99.toFixed(2).padStart(6)} | ${s.max.toFixed(1).padStart(6)} |`;
}

function report(phase: string, result: Record<string, PathStats>): void {
  const direct = result.direct as PathStats;
  const proxied = result.proxy as PathStats;
  console.log(
    `\n${phase} (load average ${loadavg()
      .map((l) => l.toFixed(2))
      .join(" ")})`,
  );
  console.log("| path (GET + PATCH /status)   | p50 ms | p99 ms | max ms |");
  console.log("| ---------------------------- | -----: | -----: | -----: |");
  console.log(row("straight to the apiserver", direct));
  console.log(row("through the proxy", proxied));
  console.log(
    `added by the proxy: p50 ${(proxied.p50 - direct.p50).toFixed(2)} ms, p99 ${(proxied.p99 - direct.p99).toFixed(2)} ms`,
  );
}

async function run(): Promise<void> {
  const plane = await startBenchPlane();
  const dir = mkdtempSync(join(tmpdir(), "cr-proxy-latency-"));
  let supervisor: ChildProcess | undefined;
  try {
    await installCrd(plane.admin.rest, "widgets");
    const fleet: Fleet = { namespaces: await createNamespaces(plane), objects: [], createSeconds: {} };
    await growFleet(plane.admin.rest, fleet, objects, (line) => process.stderr.write(`\r${line}`));
    process.stderr.write("\n");
    const [namespace, name] = fleet.objects[0] as [string, string];
    const user = plane.mintUser();
    for (const ns of fleet.namespaces)
      await plane.grant(user, ns, [
        { apiGroups: ["example.com"], resources: ["widgets"], verbs: ["get", "list", "watch"] },
        { apiGroups: ["example.com"], resources: ["widgets/status"], verbs: ["get", "update", "patch"] },
      ]);
    writeFileSync(join(dir, "token"), `${user.token}\n`);
    const [proxyPort, metricsPort] = [await freePort(), await freePort()];
    const config = join(dir, "config.yaml");
    writeFileSync(
      config,
      [
        `listen: 127.0.0.1:${metricsPort}`,
        "resources:",
        "  - group: example.com",
        "    resource: widgets",
        "apiProxy:",
        `  listen: 127.0.0.1:${proxyPort}`,
        `  kubeconfigPath: ${join(dir, "kubeconfig")}`,
        `  tokenFile: ${join(dir, "token")}`,
        "",
      ].join("\n"),
    );
    supervisor = spawn(
      process.execPath,
      [main, "--kubeconfig", plane.kubeconfigPath, "--config", config, "--log-level", "warn"],
      {
        stdio: ["ignore", "ignore", "inherit"],
      },
    );
    const metricsUrl = `http://127.0.0.1:${metricsPort}`;
    await waitUntil(
      "the exporter synced and the proxy up",
      async () => (await fetch(`${metricsUrl}/readyz`)).ok,
      600_000,
    );
    const kubeconfig = parse(readFileSync(join(dir, "kubeconfig"), "utf8")) as {
      clusters: { cluster: { server: string; "certificate-authority-data": string } }[];
    };
    const proxyCluster = kubeconfig.clusters[0]?.cluster;
    if (!proxyCluster) throw new Error("the proxy wrote no kubeconfig cluster");
    const keepAlive = () => new https.Agent({ keepAlive: true, maxSockets: 1 });
    const endpoints: [Endpoint, Endpoint] = [
      { name: "direct", url: plane.server, ca: plane.caPem, token: user.token, agent: keepAlive() },
      {
        name: "proxy",
        url: proxyCluster.server,
        ca: Buffer.from(proxyCluster["certificate-authority-data"], "base64").toString("utf8"),
        token: user.token,
        agent: keepAlive(),
      },
    ];
    const path = widgetPath(namespace, name);
    console.log(`# ${objects} widgets, ${requests} rounds of GET + PATCH per path and phase`);
    await measure(endpoints, path); // warm-up: connections, caches, the JIT
    report("idle", await measure(endpoints, path));
    const background = load(metricsUrl);
    const loaded = await measure(endpoints, path);
    const done = await background.stop();
    report(`while ${done.scrapes} scrapes and ${done.summaries} summaries were answered`, loaded);
  } finally {
    supervisor?.kill("SIGTERM");
    await plane.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

await run();
