// Sharding where the apiserver filters: a control plane with the
// ShardedListAndWatch feature gate on, so each shard lists and watches with
// its range's shardSelector and receives only its own objects. The union of
// three shards still equals one unsharded process after creation, churn and
// a shard restart (test/e2e/sharding.test.ts runs the same without the gate,
// where the exporter filters), every shard says the apiserver filters (the
// restarted one too: its new list carried the selector), and the watch events
// the shards receive add up to what the unsharded process receives (with the
// exporter filtering, each shard would receive all of them). Fixed shards
// restarted with a new total re-shard from 2 to 3 and back with the gate on,
// without losing or doubling an object.
import assert from "node:assert/strict";
import { before, test } from "node:test";
import { type ControlPlane, installCrd, useControlPlane } from "../cluster/index.ts";
import {
  apiWidgets,
  churn,
  createWidgets,
  exporters,
  familyLines,
  notOwned,
  type RunningExporter,
  relists,
  settledReference,
  shardFilterOf,
  unionEquals,
  unionEqualsExcept,
  writeConfig,
} from "../support/shard-fleet.ts";

const testbed = useControlPlane({ apiserverArgs: ["--feature-gates=ShardedListAndWatch=true"] });

before(async () => {
  await installCrd((await testbed.ready()).admin.rest, "widgets");
});

/** MODIFIED watch events of widgets a process received. */
async function modifiedEvents(exporter: RunningExporter): Promise<number> {
  const line = familyLines(await exporter.metrics(), ["cr_exporter_watch_events_total"]).find(
    (l) => l.includes('kind="Widget"') && l.includes('type="MODIFIED"'),
  );
  return line ? Number(line.slice(line.lastIndexOf(" ") + 1)) : 0;
}

/** Per-object counters: a process that (re)started counts from 0, so they are compared by series only. */
const counters = /^cr_[a-z_]+_total\{/;

/**
 * Each shard (shard i of `total`) says the apiserver filters its widgets and
 * holds only the widgets whose uid is in its range, as the API has them now.
 */
async function filteredByApiserver(
  plane: ControlPlane,
  namespace: string,
  shards: RunningExporter[],
  total: number,
): Promise<void> {
  const uids = new Map((await apiWidgets(plane, namespace)).map((w) => [w.metadata.name, w.metadata.uid]));
  for (const [shard, exporter] of shards.entries()) {
    const text = await exporter.metrics();
    assert.deepEqual(shardFilterOf(text), ["apiserver"], `${exporter.label}: the apiserver filters`);
    assert.deepEqual(notOwned(text, { shard, total }, uids), [], `${exporter.label} holds only its own`);
  }
}

test("with ShardedListAndWatch, each shard receives only its objects, and the union equals one unsharded process after creation, churn and a shard restart", async (t) => {
  const plane = testbed.plane;
  const ns = await plane.createNamespace("apiserver-sharded");
  let names = Array.from({ length: 60 }, (_, i) => `w${i}`);
  await createWidgets(plane.admin.rest, ns, names);
  const config = writeConfig(plane, "apiserver-sharded", {
    resources: [{ group: "example.com", resource: "widgets", namespaces: [ns] }],
  });
  const run = exporters(t);
  const shardArgs = (i: number) => ["--shard", String(i), "--total-shards", "3"];
  const [reference, ...shards] = await Promise.all([
    run.start("unsharded", plane.kubeconfigPath, config),
    ...[0, 1, 2].map((i) => run.start(`shard ${i}`, plane.kubeconfigPath, config, shardArgs(i))),
  ]);
  assert.ok(reference && shards.length === 3);

  let check = await unionEquals(await settledReference(plane, reference, ns), shards);
  t.diagnostic(`after creation: ${check.message}`);
  await filteredByApiserver(plane, ns, shards, 3);
  assert.doesNotMatch(
    await reference.metrics(),
    /cr_exporter_resource_shard_filter\{/,
    "unsharded: no filter",
  );

  // Churn: flips, spec changes, deletions, new objects; then the events each received.
  for (let round = 0; round < 3; round++) names = await churn(plane.admin.rest, ns, names, round);
  check = await unionEquals(await settledReference(plane, reference, ns), shards);
  t.diagnostic(`after churn: ${check.message}`);
  const all = await modifiedEvents(reference);
  const perShard = await Promise.all(shards.map(modifiedEvents));
  const received = perShard.reduce((sum, n) => sum + n, 0);
  t.diagnostic(`MODIFIED events: unsharded ${all}, shards ${perShard.join(" + ")} = ${received}`);
  assert.ok(all > 60, `churn modified objects (${all} events)`);
  assert.equal(received, all, "each event reached only the shard that owns its object");

  // A shard restarts, and misses churn while it is down: it lists again, once,
  // with its range's selector, and the apiserver applies it.
  await run.stop(shards[1] as RunningExporter);
  names = await churn(plane.admin.rest, ns, names, 3);
  const restarted = await run.start("shard 1, restarted", plane.kubeconfigPath, config, shardArgs(1));
  shards[1] = restarted;
  const settled = await settledReference(plane, reference, ns);
  check = await unionEquals(settled, shards, false);
  const gauges = await unionEqualsExcept(settled, shards, counters);
  await filteredByApiserver(plane, ns, shards, 3);
  assert.equal(relists(await restarted.metrics()), 1, "the restarted shard listed once");
  t.diagnostic(`after restarting shard 1: ${check.message}; every gauge equal by value (${gauges} lines)`);
});

test("with ShardedListAndWatch, fixed shards restarted with a new total re-shard from 2 to 3 and back without losing or doubling an object", async (t) => {
  const plane = testbed.plane;
  const ns = await plane.createNamespace("apiserver-reshard");
  let names = Array.from({ length: 48 }, (_, i) => `w${i}`);
  await createWidgets(plane.admin.rest, ns, names);
  const config = writeConfig(plane, "apiserver-reshard", {
    resources: [{ group: "example.com", resource: "widgets", namespaces: [ns] }],
  });
  const run = exporters(t);
  const shard = (i: number, total: number) =>
    run.start(`shard ${i} of ${total}`, plane.kubeconfigPath, config, [
      "--shard",
      String(i),
      "--total-shards",
      String(total),
    ]);
  const [reference, ...shards] = await Promise.all([
    run.start("unsharded", plane.kubeconfigPath, config),
    shard(0, 2),
    shard(1, 2),
  ]);
  assert.ok(reference && shards.length === 2);
  let check = await unionEquals(await settledReference(plane, reference, ns), shards);
  await filteredByApiserver(plane, ns, shards, 2);
  t.diagnostic(`2 shards: ${check.message}`);

  /**
   * Restarts the fleet with `total` shards, one process at a time as a
   * rollout does (old and new totals run side by side meanwhile), with churn
   * while it is mixed; then the union is checked.
   */
  const reshard = async (total: number, round: number) => {
    while (shards.length > total) await run.stop(shards.pop() as RunningExporter);
    for (const [i, old] of [...shards.entries()]) {
      await run.stop(old);
      shards[i] = await shard(i, total);
      if (i === 0) names = await churn(plane.admin.rest, ns, names, round);
    }
    while (shards.length < total) shards.push(await shard(shards.length, total));
    const settled = await settledReference(plane, reference, ns);
    check = await unionEquals(settled, shards, false);
    const gauges = await unionEqualsExcept(settled, shards, counters);
    await filteredByApiserver(plane, ns, shards, total);
    for (const s of shards) assert.equal(relists(await s.metrics()), 1, `${s.label} listed once`);
    return `${check.message}; every gauge equal by value (${gauges} lines)`;
  };
  t.diagnostic(`2 → 3 shards: ${await reshard(3, 0)}`);
  t.diagnostic(`3 → 2 shards: ${await reshard(2, 1)}`);
});
