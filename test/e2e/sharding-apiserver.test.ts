// Sharding where the apiserver filters: a control plane with the
// ShardedListAndWatch feature gate on, so each shard lists and watches with
// its range's shardSelector and receives only its own objects. The union of
// three shards still equals one unsharded process after creation and churn
// (test/e2e/sharding.test.ts runs the same without the gate, where the
// exporter filters), every shard says the apiserver filters, and the watch
// events the shards receive add up to what the unsharded process receives
// (with the exporter filtering, each shard would receive all of them).
import assert from "node:assert/strict";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { before, test } from "node:test";
import { stringify } from "yaml";
import { fnv1a64, ownsUid } from "../../src/core/shard.ts";
import { installCrd, useControlPlane } from "../cluster/index.ts";
import {
  apiWidgets,
  churn,
  createWidgets,
  exporters,
  familyLines,
  labelOf,
  objectLines,
  objectOf,
  type RunningExporter,
  settledReference,
  unionEquals,
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

test("with ShardedListAndWatch, each shard receives only its objects, and the union equals one unsharded process", async (t) => {
  const plane = testbed.plane;
  const ns = await plane.createNamespace("apiserver-sharded");
  let names = Array.from({ length: 60 }, (_, i) => `w${i}`);
  await createWidgets(plane.admin.rest, ns, names);
  const config = join(plane.directory, "apiserver-sharded.yaml");
  writeFileSync(
    config,
    stringify({ resources: [{ group: "example.com", resource: "widgets", namespaces: [ns] }] }),
  );
  const run = exporters(t);
  const shardArgs = (i: number) => ["--shard", String(i), "--total-shards", "3"];
  const [reference, ...shards] = await Promise.all([
    run.start("unsharded", plane.kubeconfigPath, config),
    ...[0, 1, 2].map((i) => run.start(`shard ${i}`, plane.kubeconfigPath, config, shardArgs(i))),
  ]);
  assert.ok(reference && shards.length === 3);

  let check = await unionEquals(await settledReference(plane, reference, ns), shards);
  t.diagnostic(`after creation: ${check.message}`);
  const uids = new Map((await apiWidgets(plane, ns)).map((w) => [w.metadata.name, w.metadata.uid]));
  for (const [i, shard] of shards.entries()) {
    const text = await shard.metrics();
    assert.match(text, /^cr_exporter_resource_shard_filter\{[^}]*kind="Widget"[^}]*filter="apiserver"\} 1$/m);
    for (const line of objectLines(text).filter((l) => l.includes('kind="Widget"'))) {
      const uid = uids.get(labelOf(line, "name") ?? "") ?? "";
      assert.ok(
        ownsUid({ shard: i, total: 3 }, uid),
        `${objectOf(line)} (uid ${uid}, ${fnv1a64(uid)}) on shard ${i}`,
      );
    }
  }
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
});
