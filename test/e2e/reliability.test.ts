// The exporter process against a real apiserver through a TCP relay that
// fails the path on demand (test/support/tcp-relay.ts), with the default
// watch settings, so the bound measured is the shipped one: the apiserver
// speaks HTTP/2, whose PINGs find a dead connection (15 s quiet + 10 s for
// the answer + 5 s grace: 30 s, src/kube/list-watch.ts and h2-watch.ts):
//
//   freeze     the open connections go silent, new ones work (a dead load-
//              balancer entry): the watch is replaced within the bound and a
//              change made meanwhile shows up, with no help from outside.
//   blackhole  every connection silent, new ones too: the stall is detected
//              within the bound plus polling (35 s): /readyz, the data
//              timestamp and the synced gauge say so, and it recovers once
//              the path is back.
//   drop       every connection reset: recovered soon after.
//   kill -9    the apiserver killed and restarted five times under churn: the
//              exporter's objects equal the API's within 5 s of it being ready.
//
// Figures are printed as `# …` lines.
import assert from "node:assert/strict";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { stringify } from "yaml";
import {
  changeSpec,
  createCr,
  crPath,
  deleteCr,
  installCrd,
  kubeconfigYaml,
  patchStatus,
  type RestClient,
  refFor,
  useControlPlane,
} from "../cluster/index.ts";
import { type ExporterProcess, startExporterProcess } from "../deploy/exporter-process.ts";
import { eventually } from "../support/exporter.ts";
import { parseExposition } from "../support/exposition-check.ts";
import { startTcpRelay, type TcpRelay } from "../support/tcp-relay.ts";

const repo = join(import.meta.dirname, "..", "..");
const dir = mkdtempSync(join(tmpdir(), "cr-reliability-"));
const testbed = useControlPlane();
/** The shipped silence bound over HTTP/2 (15 s quiet + 10 s for a PING's answer + 5 s grace), and what polling may add to it. */
const boundMs = 30_000;
const slackMs = 5_000;
const phases = ["Pending", "Provisioning", "Running", "Failed"] as const;
const resource = 'group="example.com",version="v1",kind="Widget"';

let relay: TcpRelay;
let exporter: ExporterProcess | undefined;
let ns = "";

before(async () => {
  const plane = await testbed.ready();
  await installCrd(plane.admin.rest, "widgets");
  ns = await plane.createNamespace("reliability");
  for (let i = 0; i < 10; i++) await createCr(plane.admin.rest, refFor("widgets", ns, `w${i}`), `w${i}`);
  const api = new URL(plane.server);
  relay = await startTcpRelay(
    undefined,
    { host: api.hostname, port: Number(api.port) },
    { lifetimeMs: 30 * 60_000 },
  );
  // The apiserver's certificate names 127.0.0.1, so the relay's address verifies as well.
  const kubeconfig = join(dir, "kubeconfig.yaml");
  writeFileSync(
    kubeconfig,
    kubeconfigYaml(`https://127.0.0.1:${relay.port}`, plane.caFile, "admin", plane.admin.token),
    { mode: 0o600 },
  );
  const config = join(dir, "config.yaml");
  writeFileSync(config, stringify({ resources: [{ group: "example.com", resource: "widgets" }] }));
  exporter = await startExporterProcess(
    [
      "node",
      join(repo, "src", "main.ts"),
      "--kubeconfig",
      kubeconfig,
      "--config",
      config,
      "--listen",
      "127.0.0.1:0",
    ],
    { cwd: repo, env: process.env, startTimeoutMs: 60_000 },
  );
  await eventually("the exporter is ready", async () => (await readyz()).status === 200, 60_000);
});

after(async () => {
  try {
    await exporter?.stop();
    await relay?.close();
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

function running(): ExporterProcess {
  if (!exporter) throw new Error("the exporter is not running");
  return exporter;
}

async function samples(): Promise<Map<string, number>> {
  return parseExposition(await (await fetch(`${running().base}/metrics`)).text()).samples;
}

async function readyz(): Promise<{ status: number; text: string }> {
  const response = await fetch(`${running().base}/readyz`);
  return { status: response.status, text: await response.text() };
}

/** Name → "generation/phase" of the widgets of `ns`, as the exporter shows them. */
function exportedState(s: Map<string, number>): Record<string, string> {
  const generations = new Map<string, number>();
  const phaseOf = new Map<string, string>();
  for (const [key, value] of s) {
    if (!key.includes(`namespace="${ns}"`)) continue;
    const name = /name="([^"]*)"/.exec(key)?.[1] ?? "";
    if (key.startsWith("cr_metadata_generation{")) generations.set(name, value);
    if (key.startsWith("cr_phase{")) phaseOf.set(name, /phase="([^"]*)"/.exec(key)?.[1] ?? "");
  }
  return Object.fromEntries(
    [...generations].sort().map(([name, generation]) => [name, `${generation}/${phaseOf.get(name) ?? ""}`]),
  );
}

/** The same, from the API. */
async function apiState(): Promise<Record<string, string>> {
  const list = await testbed.plane.admin.rest.get<{
    items: { metadata: { name: string; generation: number }; status?: { phase?: string } }[];
  }>(crPath(refFor("widgets", ns)));
  return Object.fromEntries(
    list.items
      .map((o) => [o.metadata.name, `${o.metadata.generation}/${o.status?.phase ?? ""}`] as const)
      .sort(([a], [b]) => (a < b ? -1 : 1)),
  );
}

const phaseSeries = (name: string, phase: string) =>
  `cr_phase{group="example.com",kind="Widget",namespace="${ns}",name="${name}",phase="${phase}"}`;
const watchTimeouts = (s: Map<string, number>) =>
  s.get(`cr_exporter_watch_errors_total{${resource},operation="watch",code="0"}`) ?? 0;

function seconds(ms: number): string {
  return (ms / 1000).toFixed(1);
}

test("a connection that goes silent is replaced within the bound, and a change made meanwhile shows up", async () => {
  await eventually(
    "caught up",
    async () => JSON.stringify(exportedState(await samples())) === JSON.stringify(await apiState()),
    30_000,
  );
  const restartsBefore = watchTimeouts(await samples());
  const started = performance.now();
  relay.freeze(3 * boundMs);
  try {
    await patchStatus(testbed.plane.admin.rest, refFor("widgets", ns, "w1"), { phase: "Failed" });
    await eventually(
      "the change made while the watch's connection was frozen",
      async () => (await samples()).get(phaseSeries("w1", "Failed")) === 1,
      boundMs + slackMs,
    );
    const tookMs = performance.now() - started;
    assert.ok(tookMs <= boundMs, `replaced within ${seconds(boundMs)} s (took ${seconds(tookMs)} s)`);
    const after = await samples();
    console.error(
      `# frozen connection: change visible after ${seconds(tookMs)} s (bound ${seconds(boundMs)} s); ` +
        `watch restarts for silence ${restartsBefore} → ${watchTimeouts(after)}`,
    );
    assert.ok(watchTimeouts(after) > restartsBefore, "the silent watch was cut and reopened");
    assert.ok(
      running().lines.some((l) => l.includes("a PING went unanswered") && l.includes(`:${relay.port}`)),
      "the log says why the connection was dropped, and to which server",
    );
  } finally {
    relay.pass();
  }
});

test("a blackholed path: detected within the bound, /readyz and the gauges say so, recovered once it is back", async () => {
  await eventually("ready before the blackhole", async () => (await readyz()).status === 200, 60_000);
  const started = performance.now();
  relay.blackhole(3 * boundMs);
  let recovered = false;
  try {
    // The test's own client goes straight to the apiserver.
    await patchStatus(testbed.plane.admin.rest, refFor("widgets", ns, "w2"), { phase: "Failed" });
    const seen = await eventually(
      "/readyz, the data timestamp and the synced gauge to report the stall",
      async () => {
        const ready = await readyz();
        if (
          ready.status !== 503 ||
          !/widgets\.example\.com\/v1: not ready: stale: data not confirmed for/.test(ready.text)
        )
          return undefined;
        const s = await samples();
        const dataAge =
          Date.now() / 1000 - (s.get(`cr_exporter_resource_data_timestamp_seconds{${resource}}`) ?? 0);
        const synced = s.get(`cr_exporter_resource_synced{${resource}}`);
        return dataAge > boundMs / 1000 && synced === 0 ? { ready, dataAge } : undefined;
      },
      boundMs + slackMs,
    );
    const detectedMs = performance.now() - started;
    assert.ok(detectedMs <= boundMs + slackMs, `not ready within 35 s (took ${seconds(detectedMs)} s)`);
    console.error(
      `# blackhole: stale after ${seconds(detectedMs)} s (bound ${seconds(boundMs)} s), data age ${seconds(seen.dataAge * 1000)} s; /readyz said:\n# ${seen.ready.text.trim().split("\n").join("\n# ")}`,
    );
    assert.equal(
      (await samples()).get(phaseSeries("w2", "Failed")),
      undefined,
      "nothing got through meanwhile",
    );
    relay.pass();
    const passedAt = performance.now();
    await eventually(
      "the change and readiness after the path is back",
      async () => (await samples()).get(phaseSeries("w2", "Failed")) === 1 && (await readyz()).status === 200,
      boundMs,
    );
    recovered = true;
    console.error(
      `# blackhole: recovered ${seconds(performance.now() - passedAt)} s after the path was back`,
    );
    assert.match((await readyz()).text, /widgets\.example\.com\/v1: synced, data \d+ s old/);
  } finally {
    if (!recovered) relay.pass();
  }
});

test("dropped connections: recovered soon after the resets stop", async () => {
  await eventually("ready before the drop", async () => (await readyz()).status === 200, 60_000);
  const dropMs = 10_000;
  relay.drop(dropMs);
  const started = performance.now();
  await patchStatus(testbed.plane.admin.rest, refFor("widgets", ns, "w3"), { phase: "Failed" });
  await eventually(
    "the change made while connections were reset",
    async () => (await samples()).get(phaseSeries("w3", "Failed")) === 1,
    dropMs + boundMs,
  );
  const tookMs = performance.now() - started;
  console.error(
    `# drop for ${seconds(dropMs)} s: change visible after ${seconds(tookMs)} s; relay resets ${relay.stats.dropped}`,
  );
  assert.ok(tookMs < dropMs + 10_000, `caught up ${seconds(tookMs - dropMs)} s after the drop ended`);
  assert.equal((await readyz()).status, 200);
});

/** Creates, deletes, bumps spec and writes status of widgets c0..c19 until stopped; errors (apiserver away) are skipped. */
function churn(rest: RestClient, offset = 0): { ops(): number; stop(): Promise<number> } {
  let stopped = false;
  let ops = 0;
  const loop = (async () => {
    for (let i = offset; !stopped; i++) {
      const name = `c${i % 20}`;
      const ref = refFor("widgets", ns, name);
      try {
        switch (i % 4) {
          case 0:
            await createCr(rest, ref, name).catch(() => deleteCr(rest, ref));
            break;
          case 1:
            await patchStatus(rest, ref, { phase: phases[i % phases.length] });
            break;
          case 2:
            await changeSpec(rest, ref, { replicas: i });
            break;
          default:
            if (i % 3 === 0) await deleteCr(rest, ref);
            else await patchStatus(rest, ref, { phase: phases[(i + 1) % phases.length] });
        }
        ops++;
      } catch {
        // The apiserver is away, or the object is: churn goes on.
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    }
  })();
  return {
    ops: () => ops,
    async stop() {
      stopped = true;
      await loop;
      return ops;
    },
  };
}

test("kill -9 of the apiserver under churn, five times: the exporter equals the API within 5 s each time", async () => {
  const plane = testbed.plane;
  const catchUps: number[] = [];
  let missed = 0;
  for (let round = 1; round <= 5; round++) {
    const writes = churn(plane.admin.rest);
    let readyAt = 0;
    try {
      await eventually("churn before the kill", async () => writes.ops() >= 20, 30_000);
      // While it is down, a second apiserver on the same etcd changes objects: events the exporter never
      // receives, so it must catch up from its resourceVersion (or relist) once the first is back.
      await plane.restartApiserver(
        async (other) => {
          const meanwhile = churn(other, round * 7);
          await eventually("changes while the apiserver is down", async () => meanwhile.ops() >= 20, 30_000);
          missed += await meanwhile.stop();
        },
        { signal: "SIGKILL" },
      );
      readyAt = performance.now();
    } finally {
      await writes.stop();
    }
    let last: { exported: Record<string, string>; api: Record<string, string> } | undefined;
    await eventually(
      `round ${round}: the exporter's objects equal the API's`,
      async () => {
        last = { exported: exportedState(await samples()), api: await apiState() };
        return JSON.stringify(last.exported) === JSON.stringify(last.api);
      },
      Math.max(0, 5_000 - (performance.now() - readyAt)),
    ).catch((error: unknown) => {
      throw new Error(
        `${String(error)}\nexporter: ${JSON.stringify(last?.exported)}\napi:      ${JSON.stringify(last?.api)}`,
      );
    });
    catchUps.push(performance.now() - readyAt);
  }
  console.error(
    `# kill -9 ×5 under churn (${missed} writes through a second apiserver while the first was down): ` +
      `equal to the API ${catchUps.map((ms) => seconds(ms)).join(", ")} s after the apiserver was ready`,
  );
});
