// Hostile callers against the exporter process with its audit receiver, on a
// real apiserver whose audit webhook follows the documented policy
// (docs/status-writes.md). A user with no permissions sends 200 forbidden
// status PATCHes to made-up namespaces and made-up resources: the status-write
// series must stay bounded (they are folded into "other" and counted as
// such). Then four 31 MB batches are posted at once: they are read as they
// arrive, one event at a time, and the exporter's peak and final RSS are
// reported and bounded (the in-flight allowance itself, with its 429, is in
// test/unit/statuswrites/audit-limits.test.ts).
import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { Agent } from "node:https";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { setTimeout as sleep } from "node:timers/promises";
import { stringify } from "yaml";
import { createCr, crPath, installCrd, refFor, useControlPlane } from "../cluster/index.ts";
import { freePort } from "../cluster/ports.ts";
import { type ExporterProcess, startExporterProcess } from "../deploy/exporter-process.ts";
import { makeTestCertificates } from "../helpers/tls-certs.ts";
import { bigAuditBatch, postAuditBatch } from "../support/audit-batch.ts";
import { auditWebhookFiles } from "../support/audit-webhook.ts";
import { eventually } from "../support/exporter.ts";
import { parseExposition } from "../support/exposition-check.ts";

const repo = join(import.meta.dirname, "..", "..");
const dir = mkdtempSync(join(tmpdir(), "cr-hostile-"));
const certs = makeTestCertificates();
const auditToken = randomBytes(24).toString("hex");
const auditPort = await freePort();
const auditUrl = `https://127.0.0.1:${auditPort}/audit`;

for (const [name, content] of [
  ["tls.crt", certs.serverCertPem],
  ["tls.key", certs.serverKeyPem],
  ["token", auditToken],
] as const) {
  writeFileSync(join(dir, name), content, { mode: 0o600 });
}

const testbed = useControlPlane({
  apiserverArgs: auditWebhookFiles(dir, { url: auditUrl, caPem: certs.caPem, token: auditToken }),
});
let exporter: ExporterProcess | undefined;
let ns = "";

before(async () => {
  const plane = await testbed.ready();
  await installCrd(plane.admin.rest, "widgets");
  ns = await plane.createNamespace("hostile");
  await createCr(plane.admin.rest, refFor("widgets", ns, "w1"), "w1");
  const config = join(dir, "config.yaml");
  writeFileSync(
    config,
    stringify({
      resources: [{ group: "example.com", resource: "widgets" }],
      auditReceiver: {
        listen: `127.0.0.1:${auditPort}`,
        certFile: join(dir, "tls.crt"),
        keyFile: join(dir, "tls.key"),
        bearerTokenFile: join(dir, "token"),
      },
    }),
  );
  exporter = await startExporterProcess(
    [
      "node",
      join(repo, "src", "main.ts"),
      "--kubeconfig",
      plane.kubeconfigPath,
      "--config",
      config,
      "--listen",
      "127.0.0.1:0",
    ],
    { cwd: repo, env: process.env, startTimeoutMs: 60_000 },
  );
});

after(async () => {
  try {
    await exporter?.stop();
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

function running(): ExporterProcess {
  if (!exporter) throw new Error("the exporter is not running");
  return exporter;
}

async function metrics(): Promise<{ text: string; samples: Map<string, number> }> {
  const text = await (await fetch(`${running().base}/metrics`)).text();
  return { text, samples: parseExposition(text).samples };
}

/** Series (name and labels, without the value) of the status-write families, the fold counter apart. */
function statusWriteSeries(text: string): string[] {
  return text
    .split("\n")
    .filter((l) => l.startsWith("cr_status_update_") && !l.startsWith("cr_status_update_labels_folded_total"))
    .map((l) => l.slice(0, l.lastIndexOf(" ")));
}

function folded(samples: Map<string, number>, label: string, cause: string): number {
  return (
    samples.get(`cr_status_update_labels_folded_total{source="audit",label="${label}",cause="${cause}"}`) ?? 0
  );
}

const mergePatch = { contentType: "application/merge-patch+json" };

test("200 forbidden status PATCHes to made-up namespaces and resources add a bounded number of series", async () => {
  const plane = testbed.plane;
  // A real write first: the audit path works, and its labels are kept.
  const real = await plane.admin.rest.raw(
    "PATCH",
    crPath(refFor("widgets", ns, "w1"), "status"),
    { status: { phase: "Running" } },
    mergePatch,
  );
  assert.equal(real.status, 200);
  const realSeries = `cr_status_update_requests_total{group="example.com",kind="Widget",namespace="${ns}",verb="patch",code="200",source="audit"}`;
  await eventually(
    "the real write is counted from the audit webhook",
    async () => (await metrics()).samples.get(realSeries) === 1,
    60_000,
  );
  const before = await metrics();
  const seriesBefore = statusWriteSeries(before.text);

  const attacker = plane.mintUser();
  const codes = new Map<number, number>();
  for (let i = 0; i < 200; i++) {
    // Half to the real kind in made-up namespaces, half to made-up resources of the audited group.
    const resource = i < 100 ? "widgets" : `madeup${i}s`;
    const response = await attacker.rest.raw(
      "PATCH",
      `/apis/example.com/v1/namespaces/made-up-${i}/${resource}/w/status`,
      { status: { phase: "Owned" } },
      mergePatch,
    );
    codes.set(response.status, (codes.get(response.status) ?? 0) + 1);
  }
  assert.deepEqual([...codes], [[403, 200]], "every PATCH is forbidden");

  const after = await eventually(
    "all 200 forbidden writes counted",
    async () => {
      const m = await metrics();
      return folded(m.samples, "namespace", "unconfirmed") === 200 ? m : undefined;
    },
    90_000,
  );
  const seriesAfter = statusWriteSeries(after.text);
  const added = seriesAfter.filter((series) => !seriesBefore.includes(series));
  console.error(
    `# status-write series: ${seriesBefore.length} before, ${seriesAfter.length} after 200 forbidden writes (${added.length} new lines); ` +
      `folded unconfirmed: namespace ${folded(after.samples, "namespace", "unconfirmed")}, group ${folded(after.samples, "group", "unconfirmed")}, kind ${folded(after.samples, "kind", "unconfirmed")}`,
  );
  console.error(`# new lines:\n${added.filter((l) => !l.includes("_bucket")).join("\n")}`);
  assert.equal(folded(after.samples, "group", "unconfirmed"), 100, "the made-up resources");
  assert.doesNotMatch(after.text, /made-up|madeup/, "no made-up name is a label value");
  // requests and failures: (Widget, other ns) and (other, other, other); by user: the attacker twice;
  // duration: two histograms of 15 lines.
  assert.ok(added.length <= 2 + 2 + 2 + 2 * 15, `${added.length} new series`);
  assert.equal(
    after.samples.get(
      `cr_status_update_failures_total{group="example.com",kind="Widget",namespace="other",reason="Forbidden",source="audit"}`,
    ),
    100,
  );
  assert.equal(
    after.samples.get(
      `cr_status_update_failures_total{group="other",kind="other",namespace="other",reason="Forbidden",source="audit"}`,
    ),
    100,
  );
  assert.equal(after.samples.get(realSeries), 1, "the real write keeps its labels");
});

/** An EventList of about `bytes` bytes: status writes by one user, each padded with an annotation. */
// Keep-alive, as the apiserver's Go client: a refused body is then drained by
// the receiver and the answer read cleanly (a client that asks for
// `Connection: close` has its connection closed once answered).
const agent = new Agent({ keepAlive: true, ca: certs.caPem });
after(() => agent.destroy());

const post = (body: Buffer) => postAuditBatch(auditUrl, auditToken, agent, body);

/** VmRSS and VmHWM (the peak) of a process, in MiB. */
function memory(pid: number): { rssMiB: number; peakMiB: number } {
  const status = readFileSync(`/proc/${pid}/status`, "utf8");
  const kib = (field: string) =>
    Number(new RegExp(`^${field}:\\s+(\\d+) kB`, "m").exec(status)?.[1] ?? Number.NaN);
  return { rssMiB: Math.round(kib("VmRSS") / 1024), peakMiB: Math.round(kib("VmHWM") / 1024) };
}

test("four concurrent 31 MB batches are read as they arrive: all accepted, RSS bounded", async () => {
  const pid = running().child.pid as number;
  console.error();
  const { body: batch, events } = bigAuditBatch(31 * 1024 * 1024, ns);
  const before = memory(pid);
  const statuses: number[][] = [[], [], [], []];
  const started = performance.now();
  await Promise.all(
    statuses.map(async (seen) => {
      // As the apiserver's webhook does: retry a 429 after Retry-After.
      for (;;) {
        const { status, retryAfter } = await post(batch);
        seen.push(status);
        if (status !== 429) return;
        assert.equal(retryAfter, "1");
        await sleep(1000);
      }
    }),
  );
  const tookMs = Math.round(performance.now() - started);
  const peak = memory(pid);
  assert.deepEqual(
    statuses.map((s) => s.at(-1)),
    [200, 200, 200, 200],
    "every batch is accepted in the end",
  );
  const refusedFirst = statuses.filter((s) => s[0] === 429).length;
  // Settle: the exporter keeps serving while its heap shrinks back.
  await sleep(15_000);
  const runtime = (await metrics()).samples;
  const heapMiB = Math.round((runtime.get("nodejs_heap_size_used_bytes") ?? Number.NaN) / 1048576);
  const externalMiB = Math.round((runtime.get("nodejs_external_memory_bytes") ?? Number.NaN) / 1048576);
  const afterwards = memory(pid);
  console.error(
    `# 4 × ${(batch.length / 1024 / 1024).toFixed(1)} MB batches (~${events} events each): ${refusedFirst} answered 429 first, all 200 after ${tookMs} ms; ` +
      `RSS before ${before.rssMiB} MiB, peak ${peak.peakMiB} MiB, 15 s after ${afterwards.rssMiB} MiB ` +
      `(V8 heap used ${heapMiB} MiB, external ${externalMiB} MiB); statuses ${JSON.stringify(statuses)}`,
  );
  // Read whole (64 MiB of bodies in flight), the same four took peak RSS from 185 to 490-550 MiB here.
  assert.ok(peak.peakMiB - before.rssMiB < 150, `peak RSS grew ${peak.peakMiB - before.rssMiB} MiB`);
  assert.ok((await fetch(`${running().base}/healthz`)).ok);
});
