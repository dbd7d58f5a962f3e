// What the API proxy adds to an operator's own requests, and how long the
// exporter's /healthz waits, under the exporter's heaviest inputs
// (docs/status-writes.md, #30's targets). The exporter runs as users run it
// with apiProxy and its audit receiver (`node src/main.ts`: a supervisor, the
// proxy process and the exporter process) over N widgets on a real apiserver.
// An operator-like client reads (GET) and writes (merge PATCH of /status, what
// the proxy counts) one widget, alternately straight to the apiserver and
// through the proxy, on kept-alive connections, while /healthz is probed every
// 10 ms. Three phases:
//   idle;
//   scrapes and summaries: /metrics scraped back to back and 100 parallel
//     /api/v1/summary in a loop;
//   audit batches: four batches of --batch-mb MB posted at once in a loop
//     (429 retried after Retry-After, as the apiserver's webhook does);
//   loaded: both at once (what the targets judge);
//   killed: the exporter process SIGKILLed every --kill-every-s seconds (the
//     supervisor restarts it; the proxy process keeps forwarding).
// Percentiles of each path, what the proxy adds (p50/p99 over direct), and
// /healthz's; targets: ≤ 2 ms p99 added idle, ≤ 10 ms under load, /healthz p99
// ≤ 100 ms under load. Writes bench/results/proxy-latency/<date>-<N>.json and
// latest.json.
// --pin: as in a pod whose sidecar has a CPU of its own, the proxy process and
// this process (the operator-like client) on CPU 0, everything else (etcd,
// kube-apiserver, the supervisor and the exporter it restarts) on CPU 1; on a
// 2-core machine the unpinned run measures mostly the scheduler.
//   node bench/proxy-latency.ts [--objects 10000] [--requests 1000] [--batch-mb 31] [--kill-every-s 5 (0: no killed phase)] [--pin] [--out DIR]
import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import https from "node:https";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { parse } from "yaml";
import { roleVariable } from "../src/supervisor/roles.ts";
import { installCrd } from "../test/cluster/index.ts";
import { freePort } from "../test/cluster/ports.ts";
import { makeTestCertificates } from "../test/helpers/tls-certs.ts";
import { type AuditTarget, loop as countedLoop, type LoadName, startLoad } from "./lib/exporter-load.ts";
import { createNamespaces, type Fleet, growFleet, startBenchPlane, widgetPath } from "./lib/fleet.ts";

const { values: flags } = parseArgs({
  options: {
    objects: { type: "string", default: "10000" },
    requests: { type: "string", default: "1000" },
    "batch-mb": { type: "string", default: "31" },
    "kill-every-s": { type: "string", default: "5" },
    pin: { type: "boolean", default: false },
    out: { type: "string", default: join(import.meta.dirname, "results", "proxy-latency") },
  },
});
const objects = Number(flags.objects);
const requests = Number(flags.requests);
const batchBytes = Number(flags["batch-mb"]) * 1024 * 1024;
const killEveryMs = Number(flags["kill-every-s"]) * 1000;
const targets = { addedP99IdleMs: 2, addedP99LoadedMs: 10, healthzP99LoadedMs: 100 };
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
/** Per path: GET and PATCH together, and each alone (`<path> GET`, `<path> PATCH`). */
async function measure(endpoints: [Endpoint, Endpoint], path: string): Promise<Record<string, PathStats>> {
  const samples: Record<string, number[]> = {};
  const add = (name: string, ms: number): void => {
    samples[name] ??= [];
    samples[name].push(ms);
  };
  for (let i = 0; i < requests; i++) {
    const order = i % 2 === 0 ? endpoints : [endpoints[1], endpoints[0]];
    for (const e of order) {
      const get = await timed(e, "GET", path);
      const status = JSON.stringify({ status: { observedGeneration: 1, phase: phases[i % phases.length] } });
      const patch = await timed(e, "PATCH", `${path}/status`, status);
      add(e.name, get);
      add(e.name, patch);
      add(`${e.name} GET`, get);
      add(`${e.name} PATCH`, patch);
    }
  }
  return Object.fromEntries(Object.entries(samples).map(([name, ms]) => [name, stats(ms)]));
}

/** Something running beside the measured requests until stopped; what it did, counted. */
interface Background {
  stop(): Promise<Record<string, number>>;
}

/** Runs `step` in a loop until stopped, counting the steps that completed. */
function loop(name: string, step: () => Promise<unknown>): Background {
  let running = true;
  const done = countedLoop(() => running, step);
  return {
    async stop() {
      running = false;
      return { [name]: await done };
    },
  };
}

/** The supervisor's child running `role`, read from its environment. */
function childPid(supervisorPid: number, role: string): number | undefined {
  const children = readFileSync(`/proc/${supervisorPid}/task/${supervisorPid}/children`, "utf8")
    .trim()
    .split(/\s+/)
    .filter(Boolean)
    .map(Number);
  return children.find((pid) => {
    try {
      return readFileSync(`/proc/${pid}/environ`, "latin1").split("\0").includes(`${roleVariable}=${role}`);
    } catch {
      return false;
    }
  });
}

/** Every thread of each process in `pids` allowed onto `cpu` only. */
function pinTo(cpu: number, pids: readonly number[]): void {
  for (const pid of pids)
    execFileSync("taskset", ["--all-tasks", "--pid", "--cpu-list", String(cpu), String(pid)]);
}

/** See --pin in the header; the exporter's restarts inherit the supervisor's CPU. */
function pinProcesses(plane: { pids: number[] }, supervisorPid: number): void {
  const proxyPid = childPid(supervisorPid, "api-proxy");
  const exporterPid = childPid(supervisorPid, "exporter");
  if (proxyPid === undefined || exporterPid === undefined)
    throw new Error("--pin: the proxy or exporter process not found");
  pinTo(1, [...plane.pids, supervisorPid, exporterPid]);
  pinTo(0, [process.pid, proxyPid]);
  console.log(
    `# pinned: client ${process.pid} and proxy ${proxyPid} on CPU 0; etcd, kube-apiserver, supervisor, exporter on CPU 1`,
  );
}

/** The exporter process SIGKILLed every `everyMs` (whenever the supervisor has one running). */
function exporterKills(supervisorPid: number, everyMs: number): Background {
  return loop("exporter_kills", async () => {
    await new Promise((resolve) => setTimeout(resolve, everyMs));
    const pid = childPid(supervisorPid, "exporter");
    if (pid !== undefined) process.kill(pid, "SIGKILL");
  });
}

/** /healthz probed every 10 ms; the latency of each answer (a failed probe throws). */
function healthzProbe(metricsUrl: string): { stop(): Promise<number[]> } {
  const ms: number[] = [];
  const probe = loop("healthz", async () => {
    const started = performance.now();
    const response = await fetch(`${metricsUrl}/healthz`);
    await response.arrayBuffer();
    if (!response.ok) throw new Error(`/healthz answered ${response.status}`);
    ms.push(performance.now() - started);
    await new Promise((resolve) => setTimeout(resolve, 10));
  });
  return {
    async stop() {
      await probe.stop();
      return ms;
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

/** The machine's CPU time, busy and all, in clock ticks (/proc/stat's first line). */
function cpuTicks(): { busy: number; all: number } {
  const fields = (readFileSync("/proc/stat", "utf8").split("\n")[0] ?? "")
    .trim()
    .split(/\s+/)
    .slice(1)
    .map(Number);
  const all = fields.reduce((a, b) => a + b, 0);
  const idle = (fields[3] ?? 0) + (fields[4] ?? 0);
  return { busy: all - idle, all };
}

/**
 * Waits until the machine is quiet (under 10 % busy over two 2-second windows
 * in a row, at most 3 minutes): right after the fleet is created and listed,
 * the apiserver, etcd and the exporter are still busy, and "idle" would not be.
 * Returns the last window's busy share.
 */
async function quiet(): Promise<number> {
  const deadline = Date.now() + 180_000;
  let calm = 0;
  let share = 1;
  while (calm < 2 && Date.now() < deadline) {
    const before = cpuTicks();
    await new Promise((resolve) => setTimeout(resolve, 2000));
    const after = cpuTicks();
    share = (after.busy - before.busy) / Math.max(1, after.all - before.all);
    calm = share < 0.1 ? calm + 1 : 0;
  }
  return share;
}

function judge(measured: number, limit: number): { measured: number; limit: number; met: boolean } {
  return { measured, limit, met: measured <= limit };
}

function row(name: string, s: PathStats): string {
  return `| ${name.padEnd(28)} | ${s.p50.toFixed(2).padStart(6)} | ${s.p99.toFixed(2).padStart(6)} | ${s.max.toFixed(1).padStart(6)} |`;
}

interface PhaseResult {
  phase: string;
  loadAverage: number[];
  paths: Record<string, PathStats>;
  addedByProxy: { p50: number; p99: number };
  /** Null when /healthz was not judged in the phase (the killed phase: the exporter is down by design). */
  healthz: PathStats | null;
  background: Record<string, number>;
}

function report(result: PhaseResult): void {
  const { direct, proxy } = result.paths as { direct: PathStats; proxy: PathStats };
  const counts = Object.entries(result.background)
    .map(([name, n]) => `${n} ${name}`)
    .join(", ");
  console.log(
    `\n${result.phase}${counts ? ` (${counts})` : ""}, load average ${result.loadAverage.map((l) => l.toFixed(2)).join(" ")}`,
  );
  console.log("| path                         | p50 ms | p99 ms | max ms |");
  console.log("| ---------------------------- | -----: | -----: | -----: |");
  console.log(row("GET + PATCH, direct", direct));
  console.log(row("GET + PATCH, through proxy", proxy));
  for (const method of ["GET", "PATCH"]) {
    const [d, p] = [result.paths[`direct ${method}`], result.paths[`proxy ${method}`]];
    if (d && p) console.log(`${row(`${method}, direct`, d)}\n${row(`${method}, through proxy`, p)}`);
  }
  if (result.healthz) console.log(row("exporter /healthz", result.healthz));
  console.log(
    `added by the proxy: p50 ${result.addedByProxy.p50.toFixed(2)} ms, p99 ${result.addedByProxy.p99.toFixed(2)} ms`,
  );
}

/** The requests measured while `backgrounds` run and /healthz is probed. */
async function phase(
  name: string,
  endpoints: [Endpoint, Endpoint],
  path: string,
  metricsUrl: string,
  backgrounds: Background[],
  judgeHealthz: boolean,
): Promise<PhaseResult> {
  const healthz = judgeHealthz ? healthzProbe(metricsUrl) : undefined;
  const paths = await measure(endpoints, path);
  const counts = Object.assign({}, ...(await Promise.all(backgrounds.map((b) => b.stop()))));
  const healthzMs = await healthz?.stop();
  const { direct, proxy } = paths as { direct: PathStats; proxy: PathStats };
  const result: PhaseResult = {
    phase: name,
    loadAverage: loadavg(),
    paths,
    addedByProxy: { p50: proxy.p50 - direct.p50, p99: proxy.p99 - direct.p99 },
    healthz: healthzMs ? stats(healthzMs) : null,
    background: counts,
  };
  report(result);
  return result;
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
    const certs = makeTestCertificates();
    const auditToken = randomBytes(24).toString("hex");
    writeFileSync(join(dir, "tls.crt"), certs.serverCertPem);
    writeFileSync(join(dir, "tls.key"), certs.serverKeyPem, { mode: 0o600 });
    writeFileSync(join(dir, "audit-token"), auditToken, { mode: 0o600 });
    const [proxyPort, metricsPort, auditPort] = [await freePort(), await freePort(), await freePort()];
    const audit: AuditTarget = {
      url: `https://127.0.0.1:${auditPort}/audit`,
      token: auditToken,
      ca: certs.caPem,
    };
    const config = join(dir, "config.yaml");
    writeFileSync(
      config,
      [
        `listen: 127.0.0.1:${metricsPort}`,
        "resources:",
        "  - group: example.com",
        "    resource: widgets",
        "auditReceiver:",
        `  listen: 127.0.0.1:${auditPort}`,
        `  certFile: ${join(dir, "tls.crt")}`,
        `  keyFile: ${join(dir, "tls.key")}`,
        `  bearerTokenFile: ${join(dir, "audit-token")}`,
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
    const supervisorPid = supervisor.pid as number;
    if (flags.pin) pinProcesses(plane, supervisorPid);
    console.log(
      `# ${objects} widgets, ${requests} rounds of GET + PATCH per path and phase; audit batches of ${flags["batch-mb"]} MB`,
    );
    const load = (loads: LoadName[]): Background =>
      startLoad({ metricsUrl, audit, batchBytes, namespace, loads });
    await measure(endpoints, path); // warm-up: connections, caches, the JIT
    console.log(`# the machine ${(100 * (await quiet())).toFixed(0)} % busy before the idle phase`);
    const results = [
      await phase("idle", endpoints, path, metricsUrl, [], true),
      await phase(
        "scrapes and summaries",
        endpoints,
        path,
        metricsUrl,
        [load(["scrapes-and-summaries"])],
        true,
      ),
      await phase("audit batches", endpoints, path, metricsUrl, [load(["audit-batches"])], true),
      await phase(
        "loaded",
        endpoints,
        path,
        metricsUrl,
        [load(["scrapes-and-summaries", "audit-batches"])],
        true,
      ),
    ];
    // --kill-every-s 0: no killed phase (the exporter then exits whole, e.g. to write a --cpu-prof profile).
    if (killEveryMs > 0)
      results.push(
        await phase(
          "killed",
          endpoints,
          path,
          metricsUrl,
          [exporterKills(supervisorPid, killEveryMs)],
          false,
        ),
      );
    const [idle, , , loaded, killed] = results as [
      PhaseResult,
      PhaseResult,
      PhaseResult,
      PhaseResult,
      PhaseResult?,
    ];
    const verdicts = {
      added_p99_idle_ms: judge(idle.addedByProxy.p99, targets.addedP99IdleMs),
      added_p99_loaded_ms: judge(loaded.addedByProxy.p99, targets.addedP99LoadedMs),
      ...(killed && { added_p99_killed_ms: judge(killed.addedByProxy.p99, targets.addedP99LoadedMs) }),
      healthz_p99_loaded_ms: judge(loaded.healthz?.p99 ?? Number.NaN, targets.healthzP99LoadedMs),
    };
    console.log("\n| target | limit | measured |\n| --- | ---: | ---: |");
    for (const [name, v] of Object.entries(verdicts))
      console.log(`| ${name} | ≤ ${v.limit} | ${v.measured.toFixed(2)} ${v.met ? "met" : "**missed**"} |`);
    const out = flags.out;
    mkdirSync(out, { recursive: true });
    const document = `${JSON.stringify(
      {
        date: new Date().toISOString(),
        node: process.version,
        objects,
        requests,
        batchBytes,
        killEveryMs,
        pinned: flags.pin,
        results,
        verdicts,
      },
      null,
      2,
    )}\n`;
    const stamp = new Date().toISOString().slice(0, 16).replace(":", "");
    writeFileSync(join(out, `${stamp}-${objects}.json`), document);
    writeFileSync(join(out, "latest.json"), document);
  } finally {
    supervisor?.kill("SIGTERM");
    await plane.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

await run();
