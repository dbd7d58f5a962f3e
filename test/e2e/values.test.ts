// Configured numeric fields (`values`) on a real kube-apiserver: a widget's
// status.replicas, its heartbeat timestamp and its spec.size exported as
// cr_value{field}, following each status write; a field that turns
// unreadable loses its series instead of reading 0; a value that is there
// but not of its type is counted and logged once; a kind without values
// exports none. With valueCandidates: export and no values, the schema's
// integer and date-time status fields are the values (and no longer
// proposed); the same schema without it exports none.
import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import {
  type CrdManifest,
  changeSpec,
  createCr,
  installCrd,
  loadFixtureCrd,
  patchStatus,
  refFor,
  registerKind,
  useControlPlane,
} from "../cluster/index.ts";
import { type ExporterHandle, eventually, runExporter } from "../support/exporter.ts";
import { parseExposition } from "../support/exposition-check.ts";

const testbed = useControlPlane();
let exporter: ExporterHandle;
let ns = "";

/** The widget CRD under another name: the same value candidates (status.lastHeartbeatTime, status.replicas). */
function doodadsCrd(): CrdManifest {
  const text = JSON.stringify(loadFixtureCrd("widgets"));
  return JSON.parse(
    text.replaceAll("widgets", "doodads").replaceAll("Widget", "Doodad").replaceAll("widget", "doodad"),
  ) as CrdManifest;
}

before(async () => {
  const plane = await testbed.ready();
  await installCrd(plane.admin.rest, "widgets");
  await installCrd(plane.admin.rest, "gadgets");
  const doodads = await installCrd(plane.admin.rest, doodadsCrd());
  registerKind(doodads);
  ns = await plane.createNamespace("values");
  exporter = await runExporter(plane.kubeconfigPath, {
    resources: [
      {
        group: "example.com",
        resource: "widgets",
        values: [
          { path: "status.replicas" },
          { path: "status.lastHeartbeatTime", name: "heartbeatAt", type: "timestamp" },
          { path: "spec.size" },
          // A string enum read as a number: unreadable whenever a phase is written.
          { path: "status.phase", name: "phaseAsNumber", type: "number" },
        ],
      },
      { group: "example.com", resource: "gadgets" },
    ],
  });
  await createCr(plane.admin.rest, refFor("widgets", ns, "w1"), "w1", { size: 2 });
  await createCr(plane.admin.rest, refFor("gadgets", undefined, `${ns}-g1`), `${ns}-g1`, { size: 2 });
});

after(async () => {
  await exporter?.stop();
});

const series = (field: string) =>
  `cr_value{group="example.com",kind="Widget",namespace="${ns}",name="w1",field="${field}"}`;

/** The samples of `handle`'s /metrics whose key starts with `prefix`. */
async function samples(prefix: string, handle = exporter): Promise<Map<string, number>> {
  const text = await (await fetch(`${handle.exporter.url}/metrics`)).text();
  const out = new Map<string, number>();
  for (const [key, value] of parseExposition(text).samples) if (key.startsWith(prefix)) out.set(key, value);
  return out;
}

const values = (handle = exporter) => samples("cr_value{", handle);

test("replicas, a heartbeat timestamp and spec.size follow the object; a kind without values has none", async () => {
  const rest = testbed.plane.admin.rest;
  const w1 = refFor("widgets", ns, "w1");
  await patchStatus(rest, w1, { replicas: 3, lastHeartbeatTime: "2026-06-01T12:00:00Z" });
  const first = await eventually("the widget's values", async () => {
    const v = await values();
    return v.get(series("replicas")) === 3 ? v : undefined;
  });
  assert.equal(first.get(series("heartbeatAt")), Date.parse("2026-06-01T12:00:00Z") / 1000);
  assert.equal(first.get(series("size")), 2);
  assert.ok(
    [...first.keys()].every((k) => k.includes('kind="Widget"')),
    "gadgets configure no values: no cr_value",
  );

  await patchStatus(rest, w1, { replicas: 5 });
  await changeSpec(rest, w1, { size: 7 });
  await eventually("the new values", async () => {
    const v = await values();
    return v.get(series("replicas")) === 5 && v.get(series("size")) === 7 ? true : undefined;
  });
});

test("a value that is gone has no series, never a wrong 0", async () => {
  const rest = testbed.plane.admin.rest;
  await patchStatus(rest, refFor("widgets", ns, "w1"), { replicas: null });
  const after = await eventually("replicas gone", async () => {
    const v = await values();
    return v.has(series("replicas")) ? undefined : v;
  });
  assert.equal(after.get(series("size")), 7, "the other values stay");
});

test("a value of the wrong type has no series, is counted on every version and logged once, and the rest stays", async () => {
  const rest = testbed.plane.admin.rest;
  const w1 = refFor("widgets", ns, "w1");
  const unreadable = `cr_exporter_values_unreadable_total{group="example.com",version="v1",kind="Widget"}`;
  const counted = async () =>
    parseExposition(await (await fetch(`${exporter.exporter.url}/metrics`)).text()).samples.get(unreadable);
  const before = await counted();
  assert.equal(typeof before, "number", "the counter exists from the start");
  await patchStatus(rest, w1, { phase: "Running", replicas: 4 });
  await eventually(
    "the unreadable phase counted",
    async () => ((await counted()) ?? 0) > (before ?? 0) || undefined,
  );
  await patchStatus(rest, w1, { phase: "Failed", replicas: 6 });
  const v = await eventually("the next version read", async () => {
    const now = await values();
    return now.get(series("replicas")) === 6 ? now : undefined;
  });
  assert.equal(v.has(series("phaseAsNumber")), false, "no series, never a wrong 0");
  assert.equal(await counted(), (before ?? 0) + 2, "one per object version read");
  const warnings = exporter.logs
    .map((line) => JSON.parse(line) as { level: string; value?: string; reason?: string; object?: string })
    .filter((l) => l.level === "warn" && l.value === "phaseAsNumber");
  assert.equal(warnings.length, 1, "logged once per value name");
  assert.equal(warnings[0]?.reason, '"Running" is not a number');
  assert.equal(warnings[0]?.object, `${ns}/w1`);
});

test("valueCandidates: export without values: the schema's integer and date-time status fields follow the status, no longer proposed; the same schema without it has no cr_value", async (t) => {
  const plane = testbed.plane;
  const rest = plane.admin.rest;
  const here = await plane.createNamespace("candidates");
  const candidates = await runExporter(plane.kubeconfigPath, {
    resources: [
      { group: "example.com", resource: "widgets", namespaces: [here], valueCandidates: "export" },
      { group: "example.com", resource: "doodads", namespaces: [here] },
    ],
  });
  t.after(() => candidates.stop());
  const w2 = refFor("widgets", here, "w2");
  const d1 = { group: "example.com", version: "v1", plural: "doodads", namespace: here, name: "d1" };
  await createCr(rest, w2, "w2", { size: 1 });
  await createCr(rest, d1, "d1", { size: 1 });
  const heartbeat = "2026-06-01T12:00:00Z";
  await patchStatus(rest, w2, { replicas: 2, lastHeartbeatTime: heartbeat });
  // The phase says when the doodad's status has been read.
  await patchStatus(rest, d1, { replicas: 2, lastHeartbeatTime: heartbeat, phase: "Running" });
  const at = (kind: string, name: string, field: string) =>
    `cr_value{group="example.com",kind="${kind}",namespace="${here}",name="${name}",field="${field}"}`;
  const doodadRunning = `cr_phase{group="example.com",kind="Doodad",namespace="${here}",name="d1",phase="Running"}`;
  const first = await eventually("the widget's candidates as values, the doodad's status read", async () => {
    const v = await values(candidates);
    const doodadRead = (await samples("cr_phase{", candidates)).get(doodadRunning) === 1;
    return doodadRead && v.get(at("Widget", "w2", "replicas")) === 2 ? v : undefined;
  });
  assert.deepEqual(
    [...first.entries()].sort(),
    [
      [at("Widget", "w2", "lastHeartbeatTime"), Date.parse(heartbeat) / 1000],
      [at("Widget", "w2", "replicas"), 2],
    ],
    "the widget's two candidates, named by their last segment; the doodad (no valueCandidates) has none",
  );
  const proposed = await samples("cr_exporter_value_candidate_info{", candidates);
  assert.deepEqual(
    [...proposed.keys()]
      .map((k) => k.replace(/^.*kind="([^"]+)",path="([^"]+)",type="([^"]+)".*$/, "$1 $2 $3"))
      .sort(),
    ["Doodad status.lastHeartbeatTime timestamp", "Doodad status.replicas number"],
    "exported candidates are no longer proposed; the doodad's still are",
  );

  await patchStatus(rest, w2, { replicas: 5, lastHeartbeatTime: "2026-06-01T12:05:00Z" });
  await eventually("the new status", async () => {
    const v = await values(candidates);
    return v.get(at("Widget", "w2", "replicas")) === 5 &&
      v.get(at("Widget", "w2", "lastHeartbeatTime")) === Date.parse("2026-06-01T12:05:00Z") / 1000
      ? true
      : undefined;
  });
});
