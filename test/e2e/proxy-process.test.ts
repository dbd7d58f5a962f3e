// The API proxy in its own process, as users run it (`node src/main.ts` with
// apiProxy set: a supervisor, the proxy process and the exporter process) on a
// real apiserver, with the test operator (controller-runtime, client-go)
// holding a leader-election Lease through the proxy with short durations
// (4 s lease, 3 s renew deadline, 0.5 s retry). While the exporter process is
// stopped (SIGSTOP: as stalled as a process can be) and then SIGKILLed and
// restarted by the supervisor, the operator keeps reconciling and renewing
// its Lease, and the counts the restarted exporter reports include the writes
// made while it was down. The proxy process SIGKILLed is back within about a
// second and the operator keeps its Lease. SIGTERM stops all three (exit 0).
// Without apiProxy the exporter stays one process.
import assert from "node:assert/strict";
import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { getPriority, tmpdir } from "node:os";
import { join } from "node:path";
import { after, afterEach, before, test } from "node:test";
import { parse } from "yaml";
import {
  changeSpec,
  createCr,
  installCrd,
  refFor,
  type TestUser,
  useControlPlane,
} from "../cluster/index.ts";
import { freePort } from "../cluster/ports.ts";
import { HttpJsonClient } from "../helpers/http-json.ts";
import { resolveWidgetOperator, startWidgetOperator, type WidgetOperator } from "../operator/index.ts";
import { eventually, series } from "../support/exporter.ts";
import { parseExposition } from "../support/exposition-check.ts";

const main = join(import.meta.dirname, "..", "..", "src", "main.ts");
const roleVariable = "CR_STATUS_EXPORTER_PROCESS";
const leaseName = "widget-operator";
const testbed = useControlPlane();

let dir = "";
let ns = "";
let operatorUser: TestUser | undefined;
let supervisor: ChildProcess | undefined;
let operator: WidgetOperator | undefined;
let metricsUrl = "";
let proxyUrl = "";
let proxyCaPem = "";
/** A process this file stopped (SIGSTOP), resumed in after() if a test failed first. */
let stoppedPid: number | undefined;
const lines: string[] = [];

before(async () => {
  resolveWidgetOperator(); // built (once) before anything starts
  const plane = await testbed.ready();
  await installCrd(plane.admin.rest, "widgets");
  ns = await plane.createNamespace("pp");
  const user = plane.mintUser();
  operatorUser = user;
  await plane.grant(user, ns, [
    { apiGroups: ["example.com"], resources: ["widgets"], verbs: ["get", "list", "watch"] },
    { apiGroups: ["example.com"], resources: ["widgets/status"], verbs: ["get", "update", "patch"] },
    {
      apiGroups: ["coordination.k8s.io"],
      resources: ["leases"],
      verbs: ["get", "list", "watch", "create", "update", "patch", "delete"],
    },
    { apiGroups: ["", "events.k8s.io"], resources: ["events"], verbs: ["create", "patch"] },
  ]);
  dir = mkdtempSync(join(tmpdir(), "cr-proxy-process-"));
  writeFileSync(join(dir, "token"), `${user.token}\n`);
  const [proxyPort, metricsPort] = [await freePort(), await freePort()];
  const config = join(dir, "config.yaml");
  // Fixed ports: a restarted proxy must listen where the operator's kubeconfig points, and the
  // restarted exporter where this test scrapes.
  writeFileSync(
    config,
    [
      `listen: 127.0.0.1:${metricsPort}`,
      "resources:",
      "  - group: example.com",
      "    resource: widgets",
      `    namespaces: [${ns}]`,
      "apiProxy:",
      `  listen: 127.0.0.1:${proxyPort}`,
      `  kubeconfigPath: ${join(dir, "kubeconfig")}`,
      `  tokenFile: ${join(dir, "token")}`,
      "",
    ].join("\n"),
  );
  metricsUrl = `http://127.0.0.1:${metricsPort}`;
  supervisor = spawn(process.execPath, [main, "--kubeconfig", plane.kubeconfigPath, "--config", config], {
    stdio: ["ignore", "ignore", "pipe"],
  });
  let partial = "";
  supervisor.stderr?.setEncoding("utf8");
  supervisor.stderr?.on("data", (chunk: string) => {
    const complete = (partial + chunk).split("\n");
    partial = complete.pop() ?? "";
    lines.push(...complete);
  });
  await eventually("the exporter ready, the proxy answering", async () => (await get("/readyz")).ok, 60_000);
  const kubeconfig = parse(readFileSync(join(dir, "kubeconfig"), "utf8")) as {
    clusters: { cluster: { server: string; "certificate-authority-data": string } }[];
  };
  const cluster = kubeconfig.clusters[0]?.cluster;
  assert.ok(cluster);
  proxyUrl = cluster.server;
  proxyCaPem = Buffer.from(cluster["certificate-authority-data"], "base64").toString("utf8");
  operator = startWidgetOperator({
    kubeconfig: join(dir, "kubeconfig"),
    namespace: ns,
    workDelay: "1s",
    leaderElection: { id: leaseName, leaseDuration: "4s", renewDeadline: "3s", retryPeriod: "500ms" },
  });
  await operator.waitForLine(/^elected leader$/, 60_000);
});

afterEach((t) => {
  if ("passed" in t && !t.passed) {
    console.error(`# supervisor, proxy and exporter logs:\n${lines.slice(-60).join("\n")}`);
    console.error(`# operator:\n${operator?.lines.slice(-30).join("\n")}`);
  }
});

after(async () => {
  for (const watcher of [...leaseWatchers]) await watcher.stop();
  if (stoppedPid !== undefined) signal(stoppedPid, "SIGCONT");
  await operator?.stop();
  if (supervisor && supervisor.exitCode === null && supervisor.signalCode === null) {
    const children = childPids();
    supervisor.kill("SIGTERM");
    const killer = setTimeout(() => {
      for (const pid of [...children, supervisor?.pid ?? 0]) signal(pid, "SIGKILL");
    }, 20_000);
    await new Promise((resolve) => supervisor?.once("exit", resolve));
    clearTimeout(killer);
  }
  if (dir) rmSync(dir, { recursive: true, force: true });
});

function signal(pid: number, name: NodeJS.Signals): void {
  try {
    process.kill(pid, name);
  } catch {
    // already gone
  }
}

function get(path: string, timeoutMs = 5_000): Promise<Response> {
  return fetch(`${metricsUrl}${path}`, { signal: AbortSignal.timeout(timeoutMs) });
}

async function scrape(): Promise<Map<string, number>> {
  return parseExposition(await (await get("/metrics")).text()).samples;
}

/** The supervisor's children, as the kernel lists them. */
function childPids(): number[] {
  const pid = supervisor?.pid;
  if (pid === undefined) return [];
  try {
    return readFileSync(`/proc/${pid}/task/${pid}/children`, "utf8")
      .trim()
      .split(/\s+/)
      .filter(Boolean)
      .map(Number);
  } catch {
    return [];
  }
}

/** The pid of the supervisor's child with `role`, read from its environment. */
function childPid(role: "api-proxy" | "exporter"): number | undefined {
  return childPids().find((pid) => {
    try {
      return readFileSync(`/proc/${pid}/environ`, "latin1").split("\0").includes(`${roleVariable}=${role}`);
    } catch {
      return false;
    }
  });
}

interface Lease {
  spec: { holderIdentity?: string; renewTime?: string; leaseTransitions?: number };
}

function readLease(): Promise<Lease> {
  return testbed.plane.admin.rest.get<Lease>(
    `/apis/coordination.k8s.io/v1/namespaces/${ns}/leases/${leaseName}`,
  );
}

/** The Lease watchers running: stopped in after() when a test failed before it stopped its own. */
const leaseWatchers = new Set<{ stop(): Promise<unknown> }>();

/** Reads the Lease every 250 ms until stopped: every renewTime seen, and the holders. */
function watchLease(): { stop(): Promise<{ renewals: string[]; holders: string[]; transitions: number[] }> } {
  const renewals = new Set<string>();
  const holders = new Set<string>();
  const transitions = new Set<number>();
  let running = true;
  const loop = (async () => {
    while (running) {
      try {
        const { spec } = await readLease();
        if (spec.renewTime) renewals.add(spec.renewTime);
        if (spec.holderIdentity) holders.add(spec.holderIdentity);
        transitions.add(spec.leaseTransitions ?? 0);
      } catch {
        // the next read
      }
      await new Promise((r) => setTimeout(r, 250));
    }
  })();
  const watcher = {
    async stop() {
      running = false;
      leaseWatchers.delete(watcher);
      await loop;
      return { renewals: [...renewals], holders: [...holders], transitions: [...transitions] };
    },
  };
  leaseWatchers.add(watcher);
  return watcher;
}

const widgetUpdates = (code: string) =>
  series("cr_status_update_requests_total", {
    group: "example.com",
    kind: "Widget",
    namespace: ns,
    verb: "update",
    code,
    source: "proxy",
  });

/** The operator's successful status updates so far: each "working on" and each "ready" line is one. */
function operatorWrites(): number {
  return (operator?.lines ?? []).filter((l) => /^(working on|ready) /.test(l)).length;
}

const ready = (name: string, generation: number) =>
  new RegExp(`^ready ${ns}/${name} generation ${generation}$`);

test("the exporter stalled, then SIGKILLed: the operator reconciles and renews its Lease throughout; the restarted exporter reports every write", async (t) => {
  const rest = testbed.plane.admin.rest;
  const running = operator;
  assert.ok(running);
  await createCr(rest, refFor("widgets", ns, "w1"), "w1", { size: 1 });
  await running.waitForLine(ready("w1", 1), 60_000);
  const before = await eventually("the first writes counted", async () => {
    const s = await scrape();
    return s.get(widgetUpdates("200")) === operatorWrites() ? s : undefined;
  });
  t.diagnostic(`before the stall: ${before.get(widgetUpdates("200"))} status updates counted`);
  const holder = (await readLease()).spec.holderIdentity;

  const exporterPid = childPid("exporter");
  const proxyPid = childPid("api-proxy");
  assert.ok(exporterPid && proxyPid, `children ${childPids().join(" ")}`);
  // The proxy first when both want the CPU: the exporter runs 10 nicer (docs/status-writes.md).
  assert.deepEqual(
    [getPriority(proxyPid), getPriority(exporterPid)],
    [getPriority(process.pid), getPriority(process.pid) + 10],
  );
  const lease = watchLease();
  process.kill(exporterPid, "SIGSTOP");
  stoppedPid = exporterPid;
  const stalledAt = performance.now();
  await assert.rejects(get("/healthz", 1_000), "the exporter does not answer: stalled");

  // Work for the operator while the exporter is stalled: two new widgets, a new generation of w1.
  await createCr(rest, refFor("widgets", ns, "w2"), "w2", { size: 1 });
  await createCr(rest, refFor("widgets", ns, "w3"), "w3", { size: 1 });
  await changeSpec(rest, refFor("widgets", ns, "w1"), { size: 2 });
  for (const [name, generation] of [
    ["w2", 1],
    ["w3", 1],
    ["w1", 2],
  ] as const)
    await running.waitForLine(ready(name, generation), 60_000);
  // Stalled for at least two lease durations.
  await eventually("8 s of stall", async () => performance.now() - stalledAt >= 8_000, 20_000);
  const stallSeconds = (performance.now() - stalledAt) / 1000;

  process.kill(exporterPid, "SIGKILL");
  stoppedPid = undefined;
  const killedAt = performance.now();
  const restarted = await eventually(
    "a new exporter process",
    async () => {
      const pid = childPid("exporter");
      return pid !== undefined && pid !== exporterPid ? pid : undefined;
    },
    10_000,
  );
  const startedMs = performance.now() - killedAt;
  await eventually("the restarted exporter ready", async () => (await get("/readyz", 2_000)).ok, 60_000);
  const readyMs = performance.now() - killedAt;
  const { renewals, holders, transitions } = await lease.stop();

  t.diagnostic(
    `exporter stalled ${stallSeconds.toFixed(1)} s; the operator renewed its Lease ${renewals.length} times meanwhile (${holders.join(", ")}, transitions ${transitions.join(", ")})`,
  );
  t.diagnostic(
    `exporter SIGKILLed: new process (pid ${restarted}) ${Math.round(startedMs)} ms later, ready after ${Math.round(readyMs)} ms`,
  );
  assert.deepEqual(holders, [holder], "the same leader throughout");
  assert.equal(transitions.length, 1, "no leader change");
  assert.ok(
    renewals.length >= 8,
    `renewed every 0.5 s while the exporter was stalled, got ${renewals.length}`,
  );
  assert.ok(!running.lines.some((l) => /leader election lost/.test(l)), "the operator kept its leadership");
  assert.equal(childPid("api-proxy"), proxyPid, "the proxy process was never touched");

  const after = await scrape();
  assert.equal(
    after.get(widgetUpdates("200")),
    operatorWrites(),
    "every write, those made while stalled and down too",
  );
  assert.equal(
    operatorWrites(),
    (before.get(widgetUpdates("200")) ?? 0) + 6,
    "3 reconciles × 2 writes meanwhile",
  );
  assert.equal(after.get('cr_exporter_process_restarts_total{process="exporter"}'), 1);
  assert.equal(after.get('cr_exporter_process_restarts_total{process="api-proxy"}'), 0);
  assert.equal(after.get("cr_exporter_api_proxy_up"), 1);
  const supervisorLine = lines.find(
    (l) => l.includes('"msg":"exited; restarting"') && l.includes('"process":"exporter"'),
  );
  assert.match(supervisorLine ?? "", /"signal":"SIGKILL"/);
});

test("the proxy process SIGKILLed is back within about a second; the operator keeps its Lease and the exporter reports the new proxy's counts", async (t) => {
  const running = operator;
  assert.ok(running && operatorUser);
  const proxyPid = childPid("api-proxy");
  assert.ok(proxyPid);
  const holder = (await readLease()).spec.holderIdentity;
  const writesBefore = operatorWrites();
  const client = new HttpJsonClient(proxyUrl, operatorUser.token, proxyCaPem);
  const lease = watchLease();
  const killedAt = performance.now();
  process.kill(proxyPid, "SIGKILL");
  let answeredMs = 0;
  try {
    await eventually(
      "the proxy answering again",
      async () => {
        client.agent.destroy(); // a new connection each time: the old ones died with the process
        const answer = await client.send("GET", "/version");
        answeredMs = performance.now() - killedAt;
        return answer.status === 200;
      },
      10_000,
    );
  } finally {
    client.close();
  }
  t.diagnostic(`proxy SIGKILLed: answering through the new process ${Math.round(answeredMs)} ms later`);
  assert.ok(answeredMs < 2_000, `back within about a second, took ${Math.round(answeredMs)} ms`);
  assert.notEqual(childPid("api-proxy"), proxyPid);

  await changeSpec(testbed.plane.admin.rest, refFor("widgets", ns, "w2"), { size: 2 });
  await running.waitForLine(ready("w2", 2), 60_000);
  await eventually(
    "two lease durations after the kill",
    async () => performance.now() - killedAt >= 8_000,
    20_000,
  );
  const { holders, transitions, renewals } = await lease.stop();
  t.diagnostic(`the operator renewed its Lease ${renewals.length} times in the 8 s after the kill`);
  assert.deepEqual(holders, [holder], "the same leader");
  assert.equal(transitions.length, 1, "no leader change");
  assert.ok(!running.lines.some((l) => /leader election lost/.test(l)));

  const samples = await eventually("the new proxy's counts", async () => {
    const s = await scrape();
    return s.get(widgetUpdates("200")) === operatorWrites() - writesBefore ? s : undefined;
  });
  assert.equal(
    samples.get(widgetUpdates("200")),
    2,
    "w2's two writes: the new proxy counts from zero (a reset)",
  );
  assert.equal(samples.get('cr_exporter_process_restarts_total{process="api-proxy"}'), 1);
  assert.equal(samples.get("cr_exporter_api_proxy_up"), 1);
});

test("SIGTERM stops the proxy and the exporter; the supervisor exits 0 with nothing left running", async () => {
  const running = supervisor;
  assert.ok(running);
  const children = childPids();
  assert.equal(children.length, 2);
  await operator?.stop();
  const exited = new Promise<number | null>((resolve) => running.once("exit", resolve));
  running.kill("SIGTERM");
  assert.equal(await exited, 0);
  for (const pid of children) assert.throws(() => process.kill(pid, 0), /ESRCH/, `pid ${pid} is gone`);
  assert.ok(lines.some((l) => l.includes('"msg":"stopped"') && l.includes('"process":"api-proxy"')));
});

test("without apiProxy the exporter runs as one process, as before", async () => {
  const child = spawn(
    process.execPath,
    [main, "--kubeconfig", testbed.plane.kubeconfigPath, "--listen", "127.0.0.1:0"],
    { stdio: ["ignore", "ignore", "pipe"] },
  );
  try {
    let text = "";
    child.stderr?.setEncoding("utf8");
    child.stderr?.on("data", (chunk: string) => {
      text += chunk;
    });
    await eventually("serving metrics", async () => text.includes('"msg":"serving metrics"'), 30_000);
    const pid = child.pid ?? 0;
    assert.equal(readFileSync(`/proc/${pid}/task/${pid}/children`, "utf8").trim(), "", "no child process");
    assert.doesNotMatch(text, /"component":"supervisor"/);
  } finally {
    child.kill("SIGTERM");
    await new Promise((resolve) => child.once("exit", resolve));
  }
});

/** True once `pid` has exited (gone, or a zombie nobody has reaped yet). */
function exited(pid: number): boolean {
  try {
    return / Z /.test(readFileSync(`/proc/${pid}/stat`, "utf8").replace(/^.*\)/, ""));
  } catch {
    return true;
  }
}

test("the supervisor SIGKILLed: the proxy and the exporter exit too (outside a container nothing else would end them)", async () => {
  const config = join(dir, "orphans.yaml");
  writeFileSync(config, "apiProxy:\n  listen: 127.0.0.1:0\nlisten: 127.0.0.1:0\n");
  const lone = spawn(
    process.execPath,
    [main, "--kubeconfig", testbed.plane.kubeconfigPath, "--config", config],
    {
      stdio: ["ignore", "ignore", "ignore"],
    },
  );
  const pid = lone.pid ?? 0;
  const children = await eventually(
    "both children started",
    async () => {
      const listed = readFileSync(`/proc/${pid}/task/${pid}/children`, "utf8")
        .trim()
        .split(/\s+/)
        .filter(Boolean);
      return listed.length === 2 ? listed.map(Number) : undefined;
    },
    30_000,
  );
  try {
    lone.kill("SIGKILL");
    await eventually("both children exited", async () => children.every(exited), 10_000);
  } finally {
    for (const child of children) signal(child, "SIGKILL");
  }
});
