// CEL expressions on a real kube-apiserver, with the exporter as users run it
// (`node src/main.ts --config FILE`, reloading the file): a widget whose
// readiness is an expression over two status fields (phase, replicas) and its
// spec changes cr_status as they change, whatever its Ready condition says;
// a computed value follows writes; failed evaluations are Unknown or no
// series, counted by field and reason; a bad expression on reload is refused
// naming its key, and the last good configuration keeps running; `explain`
// shows each expression's results on the live objects.
import assert from "node:assert/strict";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { condition, createCr, installCrd, patchStatus, refFor, useControlPlane } from "../cluster/index.ts";
import { type ExporterProcess, startExporterProcess } from "../deploy/exporter-process.ts";
import { runCli } from "../support/cli.ts";
import { eventually, series } from "../support/exporter.ts";
import { parseExposition } from "../support/exposition-check.ts";

const main = join(import.meta.dirname, "..", "..", "src", "main.ts");
const testbed = useControlPlane();
let dir = "";
let configPath = "";
let ns = "";
let exporter: ExporterProcess | undefined;

const readiness = `object.status.phase == "Failed" ? "Failed"
        : object.status.replicas >= object.spec.size ? "Current" : "InProgress"`;

function config(readinessCel: string): string {
  return [
    "resources:",
    "  - group: example.com",
    "    resource: widgets",
    "    readiness:",
    "      cel: >-",
    `        ${readinessCel}`,
    "    values:",
    "      - cel: object.spec.size - object.status.replicas",
    "        name: missingReplicas",
    "      - cel: timestamp(object.status.lastHeartbeatTime)",
    "        name: heartbeatAt",
    "",
  ].join("\n");
}

function startExporter(): Promise<ExporterProcess> {
  return startExporterProcess(
    [
      "node",
      main,
      "--kubeconfig",
      testbed.plane.kubeconfigPath,
      "--config",
      configPath,
      "--listen",
      "127.0.0.1:0",
    ],
    { cwd: dir, env: process.env },
  );
}

before(async () => {
  const plane = await testbed.ready();
  await installCrd(plane.admin.rest, "widgets");
  ns = await plane.createNamespace("cel");
  dir = mkdtempSync(join(tmpdir(), "cr-cel-"));
  configPath = join(dir, "config.yaml");
  writeFileSync(configPath, config(readiness));
  await createCr(plane.admin.rest, refFor("widgets", ns, "w1"), "w1", { size: 2 });
  exporter = await startExporter();
});

after(async () => {
  await exporter?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

const labels = () => ({ group: "example.com", kind: "Widget", namespace: ns, name: "w1" });
const status = (result: string) => series("cr_status", { ...labels(), result });
const value = (field: string) => series("cr_value", { ...labels(), field });
const celErrors = (field: string, reason: string) =>
  series("cr_exporter_cel_errors_total", {
    group: "example.com",
    version: "v1",
    kind: "Widget",
    field,
    reason,
  });

async function scrape(): Promise<Map<string, number>> {
  return parseExposition(await (await fetch(`${exporter?.base}/metrics`)).text()).samples;
}

/** The one cr_status result of w1 that is 1. */
async function result(): Promise<string | undefined> {
  const samples = await scrape();
  return ["Current", "InProgress", "Failed", "Unknown", "Terminating"].find(
    (r) => samples.get(status(r)) === 1,
  );
}

const becomes = (want: string) =>
  eventually(`cr_status ${want}`, async () => ((await result()) === want ? true : undefined), 20_000);

test("readiness by an expression over status.phase, status.replicas and spec.size follows the writes; the Ready condition does not decide", async () => {
  const rest = testbed.plane.admin.rest;
  const w1 = refFor("widgets", ns, "w1");
  // No status yet: object.status is missing, the evaluation fails, the object is Unknown.
  await becomes("Unknown");
  const first = await scrape();
  assert.ok((first.get(celErrors("readiness.cel", "no_such_key")) ?? 0) >= 1, "the failure is counted");
  assert.equal(first.get(celErrors("readiness.cel", "cost_limit")), 0, "every reason exists from 0");
  const info = [...first.keys()].find(
    (k) => k.startsWith("cr_exporter_resource_info{") && k.includes('kind="Widget"'),
  );
  assert.match(info ?? "", /ready_condition="",readiness_source="cel"/);

  await patchStatus(rest, w1, { phase: "Running", replicas: 1, conditions: [condition("Ready", "True")] });
  await becomes("InProgress");
  await patchStatus(rest, w1, { replicas: 2, conditions: [condition("Ready", "False", "Degraded")] });
  await becomes("Current");
  await patchStatus(rest, w1, { phase: "Failed" });
  await becomes("Failed");
  await patchStatus(rest, w1, { phase: "Running" });
  await becomes("Current");

  // Readiness and both values failed with no_such_key on several versions: one line for the kind and reason.
  const warned = (exporter?.lines ?? []).filter(
    (l) => l.includes("CEL expression failed") && l.includes('"reason":"no_such_key"'),
  );
  assert.equal(warned.length, 1, warned.join("\n"));
  assert.ok(warned[0]?.includes(`"object":"${ns}/w1"`), warned[0]);
});

test("a computed value follows writes; a failed one has no series and is counted", async () => {
  const rest = testbed.plane.admin.rest;
  const w1 = refFor("widgets", ns, "w1");
  await patchStatus(rest, w1, { replicas: 1 });
  const first = await eventually("missingReplicas 1", async () => {
    const s = await scrape();
    return s.get(value("missingReplicas")) === 1 ? s : undefined;
  });
  assert.equal(first.has(value("heartbeatAt")), false, "no heartbeat yet: no series, never a wrong 0");
  assert.ok((first.get(celErrors("heartbeatAt", "no_such_key")) ?? 0) >= 1);

  await patchStatus(rest, w1, { replicas: 0, lastHeartbeatTime: "2026-06-01T12:00:00Z" });
  const second = await eventually("the next values", async () => {
    const s = await scrape();
    return s.get(value("missingReplicas")) === 2 ? s : undefined;
  });
  assert.equal(second.get(value("heartbeatAt")), Date.parse("2026-06-01T12:00:00Z") / 1000);
  await patchStatus(rest, w1, { replicas: 2 });
  await eventually("missingReplicas 0", async () => (await scrape()).get(value("missingReplicas")) === 0);
  await becomes("Current");
});

test("explain shows each expression's results on the live objects", async () => {
  const run = await runCli(["explain", "--kubeconfig", testbed.plane.kubeconfigPath, "--config", configPath]);
  assert.equal(run.code, 0, run.stderr);
  assert.match(run.stdout, /CEL expressions on the sampled objects/);
  assert.match(run.stdout, /widgets\.example\.com readiness\.cel: object\.status\.phase == "Failed"/);
  const json = await runCli([
    "explain",
    "--kubeconfig",
    testbed.plane.kubeconfigPath,
    "--config",
    configPath,
    "-o",
    "json",
  ]);
  const widgets = (
    JSON.parse(json.stdout) as {
      resources: {
        resource: string;
        readinessSource: string;
        cel: {
          field: string;
          evaluated: number;
          failed: number;
          sample: { object: string; result: string }[];
        }[];
      }[];
    }
  ).resources.find((r) => r.resource === "widgets.example.com");
  assert.equal(widgets?.readinessSource, "cel");
  const byField = new Map(widgets?.cel.map((c) => [c.field, c]));
  assert.deepEqual(byField.get("readiness.cel")?.sample, [{ object: `${ns}/w1`, result: "Current" }]);
  assert.deepEqual(byField.get("missingReplicas")?.sample, [{ object: `${ns}/w1`, result: "0" }]);
  assert.equal(byField.get("heartbeatAt")?.failed, 0);
  assert.equal(byField.get("readiness.cel")?.evaluated, 1);
});

test("a bad expression on reload is refused naming its key; the last good configuration keeps running", async () => {
  const rest = testbed.plane.admin.rest;
  const w1 = refFor("widgets", ns, "w1");
  writeFileSync(configPath, config(`objct.status.phase == "Running"`));
  const rejected = await eventually(
    "bad edit rejected",
    async () => {
      const s = await scrape();
      return s.get("cr_exporter_config_reload_success") === 0 ? s : undefined;
    },
    20_000,
  );
  assert.equal(rejected.get('cr_exporter_config_reloads_total{result="failure"}'), 1);
  assert.match(
    exporter?.lines.join("\n") ?? "",
    /resources\[0\]\.readiness\.cel: undeclared reference to 'objct' at 1:1/,
  );
  // The last good expression still judges new writes.
  await patchStatus(rest, w1, { phase: "Failed" });
  await becomes("Failed");

  // A good edit takes effect: the new expression says Current whatever the phase.
  writeFileSync(configPath, config(`object.status.replicas >= 1`));
  await eventually(
    "good edit applied",
    async () => {
      const s = await scrape();
      return s.get("cr_exporter_config_reload_success") === 1 && s.get(status("Current")) === 1;
    },
    30_000,
  );
});
