// Sharding on a real apiserver, with the exporter as processes: the union of
// three shards' per-object series is exactly what one unsharded process
// exports (same lines, no object twice, none missing) after the fleet is
// created, after churn and after a shard restart; aggregate families and
// per-kind histograms sum to the unsharded values; two replicas of one shard
// export identical series; and StatefulSet pods take their shard from their
// name and the StatefulSet's replicas, with only the Role such a pod gets,
// re-sharding without a restart when it scales from 2 to 3 (and back).
import assert from "node:assert/strict";
import { before, test } from "node:test";
import {
  type ControlPlane,
  condition,
  createCr,
  installCrd,
  patchStatus,
  refFor,
  useControlPlane,
} from "../cluster/index.ts";
import { eventually } from "../support/exporter.ts";
import {
  apiWidgets,
  churn,
  createWidgets,
  difference,
  exporters,
  familyLines,
  notOwned,
  objectLines,
  objectOf,
  type RunningExporter,
  relists,
  settledReference,
  startExporter,
  summed,
  unionEquals,
  unionEqualsExcept,
  writeConfig,
} from "../support/shard-fleet.ts";

const testbed = useControlPlane();

before(async () => {
  const rest = (await testbed.ready()).admin.rest;
  await installCrd(rest, "widgets");
  await installCrd(rest, "gadgets");
});

const histograms = [
  "cr_condition_state_duration_seconds",
  "cr_time_to_ready_seconds",
  "cr_reconcile_duration_seconds",
];

/** The aggregate (gadget) and, unless a shard restarted, histogram lines summed over the shards equal the reference's. */
async function sumsEqual(
  reference: RunningExporter,
  shards: RunningExporter[],
  families = ["cr_aggregate", ...histograms],
): Promise<string> {
  let last = "";
  await eventually(
    "aggregate families and per-kind histograms summed over the shards to equal the unsharded values",
    async () => {
      const expected = summed([familyLines(await reference.metrics(), families)]);
      const sums = summed(
        await Promise.all(shards.map(async (s) => familyLines(await s.metrics(), families))),
      );
      const differing = [...new Set([...expected.keys(), ...sums.keys()])].filter(
        (k) => expected.get(k) !== sums.get(k),
      );
      last = differing
        .slice(0, 6)
        .map((k) => `${k}: unsharded ${expected.get(k)}, shards ${sums.get(k)}`)
        .join("\n  ");
      return differing.length === 0 && expected.size > 0;
    },
    60_000,
  ).catch((error: Error) => {
    throw new Error(`${error.message}\n  ${last}`);
  });
  const text = await reference.metrics();
  const count = (name: string) =>
    familyLines(text, [name])
      .filter((l) => l.startsWith(`${name}_count{`) && l.includes('kind="Widget"'))
      .reduce((sum, l) => sum + Number(l.slice(l.lastIndexOf(" ") + 1)), 0);
  return `aggregates: ${familyLines(text, ["cr_aggregate"]).length} lines; Ready state durations observed: ${count("cr_condition_state_duration_seconds")}`;
}

async function createGadgets(plane: ControlPlane, count: number, tag: string): Promise<void> {
  for (let i = 0; i < count; i++) {
    const ref = refFor("gadgets", undefined, `${tag}-g${i}`);
    await createCr(plane.admin.rest, ref, `${tag}-g${i}`, {});
    await patchStatus(plane.admin.rest, ref, {
      conditions: [condition("Ready", i % 4 === 0 ? "False" : "True")],
    });
  }
}

test("three shard processes export exactly what one unsharded process does: after creation, churn and a shard restart", async (t) => {
  const plane = testbed.plane;
  const ns = await plane.createNamespace("sharded");
  let names = Array.from({ length: 60 }, (_, i) => `w${i}`);
  await createWidgets(plane.admin.rest, ns, names);
  await createGadgets(plane, 24, ns);
  const config = writeConfig(plane, "union", {
    resources: [
      { group: "example.com", resource: "widgets", namespaces: [ns] },
      { group: "example.com", resource: "gadgets", mode: "aggregate" },
    ],
  });
  const run = exporters(t);
  const kubeconfig = plane.kubeconfigPath;
  const shardArgs = (i: number) => ["--shard", String(i), "--total-shards", "3"];
  const [reference, ...shards] = await Promise.all([
    run.start("unsharded", kubeconfig, config),
    ...[0, 1, 2].map((i) => run.start(`shard ${i}`, kubeconfig, config, shardArgs(i))),
  ]);
  assert.ok(reference && shards.length === 3);

  // Created: the union is exact, and each object is on the shard its uid hashes to.
  let check = await unionEquals(await settledReference(plane, reference, ns), shards);
  t.diagnostic(`after creation: ${check.message}`);
  const uids = new Map((await apiWidgets(plane, ns)).map((w) => [w.metadata.name, w.metadata.uid]));
  for (const [i, shard] of shards.entries()) {
    const text = await shard.metrics();
    assert.match(text, new RegExp(`^cr_exporter_shards\\{shard="${i}"\\} 3$`, "m"));
    // This apiserver has no ShardedListAndWatch: it ignores the selector, and the shard keeps its own.
    assert.match(text, /^cr_exporter_resource_shard_filter\{[^}]*kind="Widget"[^}]*filter="exporter"\} 1$/m);
    assert.deepEqual(notOwned(text, { shard: i, total: 3 }, uids), [], `shard ${i} holds only its own`);
  }
  assert.match(await reference.metrics(), /^cr_exporter_shards\{shard="0"\} 1$/m);
  t.diagnostic(await sumsEqual(reference, shards));

  // Churn: flips, spec changes, deletions, new objects.
  for (let round = 0; round < 3; round++) names = await churn(plane.admin.rest, ns, names, round);
  check = await unionEquals(await settledReference(plane, reference, ns), shards);
  t.diagnostic(`after churn: ${check.message}`);
  t.diagnostic(await sumsEqual(reference, shards));

  // A shard restarts, and misses churn while it is down: it lists again. Its
  // counters start at 0 (the documented counter reset), so they are compared
  // by series, everything else by value.
  await run.stop(shards[1] as RunningExporter);
  names = await churn(plane.admin.rest, ns, names, 3);
  shards[1] = await run.start("shard 1, restarted", kubeconfig, config, shardArgs(1));
  const settled = await settledReference(plane, reference, ns);
  check = await unionEquals(settled, shards, false);
  const gauges = await unionEqualsExcept(settled, shards, /^cr_[a-z_]+_total\{/);
  await sumsEqual(reference, shards, ["cr_aggregate"]);
  t.diagnostic(`after restarting shard 1: ${check.message}; every gauge equal by value (${gauges} lines)`);
});

/**
 * Families that describe the process itself, not the objects: its runtime,
 * its own scrapes and lists, when its watch last heard from the apiserver (and
 * so how fresh its data is), and
 * watch events per connection (bookmarks come per watch). Alerts read these
 * with min/sum per resource, never as object state.
 */
const processLocal = [
  "process_",
  "nodejs_",
  "cr_exporter_scrape_duration_seconds",
  "cr_exporter_list_duration_seconds",
  "cr_exporter_last_event_timestamp_seconds",
  "cr_exporter_last_sync_timestamp_seconds",
  "cr_exporter_resource_data_timestamp_seconds",
  "cr_exporter_watch_events_total",
];

/**
 * The lines both replicas must export alike: per-object lines in the order
 * written (the store's), then the exporter's own in sorted order (the client
 * library writes label sets in the order they first appeared, and which
 * resource's list finishes first is a race).
 */
function sharedLines(text: string): string[] {
  const lines = text
    .split("\n")
    .filter((l) => l !== "" && !l.startsWith("#") && !processLocal.some((p) => l.startsWith(p)));
  const own = (l: string) => l.startsWith("cr_exporter_");
  return [...lines.filter((l) => !own(l)), ...lines.filter(own).sort()];
}

test("two replicas of one shard export identical series, line by line, after churn", async (t) => {
  const plane = testbed.plane;
  const ns = await plane.createNamespace("replicas");
  let names = Array.from({ length: 40 }, (_, i) => `w${i}`);
  await createWidgets(plane.admin.rest, ns, names);
  const config = writeConfig(plane, "replicas", {
    resources: [{ group: "example.com", resource: "widgets", namespaces: [ns] }],
  });
  const run = exporters(t);
  const args = ["--shard", "0", "--total-shards", "2"];
  const replicas = await Promise.all(
    ["replica a", "replica b"].map((label) => run.start(label, plane.kubeconfigPath, config, args)),
  );
  // Counters count the writes a replica saw: both have listed before the churn starts.
  await Promise.all(replicas.map((r) => r.ready()));
  for (let round = 0; round < 3; round++) names = await churn(plane.admin.rest, ns, names, round);
  let last = "";
  const lines = await eventually(
    "both replicas to export the same lines",
    async () => {
      const [a, b] = await Promise.all(replicas.map(async (r) => sharedLines(await r.metrics())));
      const diff = difference(a ?? [], b ?? []);
      last = diff;
      return a && b && a.join("\n") === b.join("\n") && a;
    },
    60_000,
  ).catch((error: Error) => {
    throw new Error(`${error.message}\n${last}`);
  });
  const objects = new Set(objectLines(lines.join("\n")).map(objectOf)).size;
  assert.ok(
    objects > 0 && objects < names.length,
    `shard 0 of 2 holds some of the ${names.length}: ${objects}`,
  );
  t.diagnostic(`${lines.length} identical lines (${objects} objects), same order`);
});

/** What a pod with only a namespaced Role runs: no CRD discovery, the widgets of one namespace. */
function podConfig(namespace: string): Record<string, unknown> {
  return {
    crdDiscovery: false,
    resources: [
      {
        group: "example.com",
        resource: "widgets",
        version: "v1",
        kind: "Widget",
        namespaced: true,
        namespaces: [namespace],
      },
    ],
  };
}

test("StatefulSet pods shard by ordinal and replicas with only a pod's Role, and re-shard without a restart from 2 to 3 and back", async (t) => {
  const plane = testbed.plane;
  const rest = plane.admin.rest;
  const ns = await plane.createNamespace("sts");
  const names = Array.from({ length: 48 }, (_, i) => `w${i}`);
  await createWidgets(rest, ns, names);
  const statefulSets = `/apis/apps/v1/namespaces/${ns}/statefulsets`;
  await rest.create(statefulSets, {
    apiVersion: "apps/v1",
    kind: "StatefulSet",
    metadata: { name: "exporter" },
    spec: {
      replicas: 2,
      serviceName: "exporter",
      selector: { matchLabels: { app: "exporter" } },
      template: {
        metadata: { labels: { app: "exporter" } },
        spec: { containers: [{ name: "exporter", image: "cr-status-exporter:test" }] },
      },
    },
  });
  const scale = (replicas: number) =>
    rest.patch(`${statefulSets}/exporter/scale`, { spec: { replicas } }, "merge");
  // What the chart's Role grants a shard: its resources, and its own StatefulSet by name.
  const pod = plane.mintUser();
  await plane.grant(pod, ns, [
    { apiGroups: ["example.com"], resources: ["widgets"], verbs: ["list", "watch"] },
    {
      apiGroups: ["apps"],
      resources: ["statefulsets"],
      resourceNames: ["exporter"],
      verbs: ["list", "watch"],
    },
  ]);
  const config = writeConfig(plane, "sts", podConfig(ns));
  const run = exporters(t);
  const podArgs = (ordinal: number) => ["--pod", `exporter-${ordinal}`, "--pod-namespace", ns];
  const [reference, ...shards] = await Promise.all([
    run.start("unsharded", plane.kubeconfigPath, config),
    ...[0, 1].map((i) => run.start(`pod exporter-${i}`, pod.kubeconfigPath, config, podArgs(i))),
  ]);
  assert.ok(reference);
  const expected = await settledReference(plane, reference, ns);
  let check = await unionEquals(expected, shards);
  t.diagnostic(`2 replicas: ${check.message}`);
  for (const [i, shard] of shards.entries()) {
    const text = await shard.metrics();
    assert.match(text, new RegExp(`^cr_exporter_shards\\{shard="${i}"\\} 2$`, "m"));
    assert.equal(relists(text), 1, "one initial list");
  }

  // Scale up: pods 0 and 1 follow the StatefulSet without a restart; their
  // ranges of the uid hash change, and each lists again once, with its new
  // range's shard selector.
  const pids = shards.map((s) => s.process.child.pid);
  await scale(3);
  shards.push(await run.start("pod exporter-2", pod.kubeconfigPath, config, podArgs(2)));
  check = await unionEquals(expected, shards);
  t.diagnostic(`scaled to 3: ${check.message}`);
  for (const [i, shard] of shards.entries()) {
    const text = await shard.metrics();
    assert.match(text, new RegExp(`^cr_exporter_shards\\{shard="${i}"\\} 3$`, "m"));
    // This apiserver has no ShardedListAndWatch: it ignores the selector, and the shard keeps its own.
    assert.match(text, /^cr_exporter_resource_shard_filter\{[^}]*kind="Widget"[^}]*filter="exporter"\} 1$/m);
    assert.equal(relists(text), i < 2 ? 2 : 1, `shard ${i}: its initial list${i < 2 ? " and one more" : ""}`);
  }
  assert.deepEqual(
    shards.slice(0, 2).map((s) => [s.process.child.pid, s.process.child.exitCode]),
    pids.map((p) => [p, null]),
    "pods 0 and 1 were not restarted",
  );

  // Scale down: pod 2 goes; 0 and 1 take its objects back by listing again.
  await scale(2);
  await run.stop(shards.pop() as RunningExporter);
  check = await unionEquals(expected, shards);
  t.diagnostic(`scaled back to 2: ${check.message}`);
  for (const shard of shards) assert.equal(relists(await shard.metrics()), 3, "listed again once more");
});

test("a pod that may not read its StatefulSet, or whose StatefulSet is missing, exits naming it", async () => {
  const plane = testbed.plane;
  const ns = await plane.createNamespace("sts-denied");
  const user = plane.mintUser();
  await plane.grant(user, ns, [
    { apiGroups: ["example.com"], resources: ["widgets"], verbs: ["list", "watch"] },
  ]);
  const config = writeConfig(plane, "sts-denied", podConfig(ns));
  for (const [kubeconfig, expected] of [
    [
      user.kubeconfigPath,
      new RegExp(`list StatefulSet ${ns}/exporter \\(of pod exporter-0\\) failed \\(HTTP 403\\)`),
    ],
    [plane.kubeconfigPath, new RegExp(`StatefulSet ${ns}/exporter \\(of pod exporter-0\\) not found`)],
  ] as const) {
    const exited = await startExporter("pod exporter-0", kubeconfig, config, [
      "--pod",
      "exporter-0",
      "--pod-namespace",
      ns,
    ]).then(
      async (e) => {
        await e.stop();
        return "started";
      },
      (error: Error) => error.message,
    );
    assert.match(exited, /exited with code 1 before serving/);
    assert.match(exited, expected);
  }
});
