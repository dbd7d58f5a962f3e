// Sharding as a part of the app, on a scripted API: which shard a process
// holds before and after start, what cr_exporter_shards and the log say, the
// selector it asks the apiserver with, and a StatefulSet that scales handed
// to the listeners (the collectors re-shard). The real apiserver case is
// test/e2e/sharding.test.ts.
import assert from "node:assert/strict";
import { test } from "node:test";
import { buildSharding } from "../../src/app/sharding.ts";
import { validateConfig } from "../../src/config/validate.ts";
import { ownsUid, shardSelectorOf } from "../../src/core/shard.ts";
import { createLogger } from "../../src/log.ts";
import { createSelfMetrics } from "../../src/metrics/self-metrics.ts";
import { fakeKubeApi, waitFor } from "../support/fake-kube-api.ts";
import { spreadUid } from "../support/objects.ts";

function statefulSet(replicas: number, rv: string, start = 0): Record<string, unknown> {
  return {
    metadata: { name: "exporter", namespace: "obs", resourceVersion: rv },
    spec: { replicas, ordinals: { start } },
  };
}

function setup(sharding: unknown, api = fakeKubeApi({})) {
  const logs: Record<string, unknown>[] = [];
  const metrics = createSelfMetrics("cr_", "0.0.0-test");
  const part = buildSharding(validateConfig(sharding === undefined ? {} : { sharding }), {
    client: api.client,
    metrics,
    logger: createLogger({ level: "debug", write: (line) => logs.push(JSON.parse(line)) }),
  });
  const shardsGauge = async (): Promise<string[]> =>
    (await metrics.registry.metrics()).split("\n").filter((l) => l.startsWith("cr_exporter_shards{"));
  return { part, logs, shardsGauge, calls: api.calls };
}

const uids = Array.from({ length: 40 }, (_, i) => spreadUid(i));

test("unsharded: every object is ours, no selector, shard 0 of 1 shown, nothing logged about sharding", async () => {
  const { part, logs, shardsGauge } = setup(undefined);
  assert.deepEqual(part.assignment, { shard: 0, total: 1 });
  assert.ok(uids.every((uid) => part.owns(uid)));
  assert.equal(part.shardSelector(), undefined);
  await part.start();
  assert.deepEqual(await shardsGauge(), ['cr_exporter_shards{shard="0"} 1']);
  assert.deepEqual(
    logs.map((l) => l.msg),
    [],
  );
  await part.stop();
});

test("a fixed shard: its objects only, the apiserver asked for its range, shown and logged from the configuration", async () => {
  const { part, logs, shardsGauge } = setup({ shard: 1, totalShards: 3 });
  const assignment = { shard: 1, total: 3 };
  assert.deepEqual(part.assignment, assignment, "known before start");
  assert.deepEqual(
    uids.map((uid) => part.owns(uid)),
    uids.map((uid) => ownsUid(assignment, uid)),
  );
  assert.ok(uids.some((uid) => part.owns(uid)) && !uids.every((uid) => part.owns(uid)));
  assert.equal(part.shardSelector(), shardSelectorOf(assignment));
  assert.ok(part.shardSelector());
  await part.start();
  assert.deepEqual(await shardsGauge(), ['cr_exporter_shards{shard="1"} 3']);
  assert.deepEqual(logs, [
    {
      time: logs[0]?.time,
      level: "info",
      msg: "sharding",
      shard: 1,
      shards: 3,
      hash: "fnv1a64(uid) in equal ranges",
      filter: "apiserver",
      from: "configuration",
    },
  ]);
  await part.stop();
});

test("--shard-filter exporter: the same objects kept, but no selector sent to the apiserver", () => {
  const { part } = setup({ shard: 1, totalShards: 3, filter: "exporter" });
  assert.equal(part.shardSelector(), undefined);
  assert.ok(uids.some((uid) => part.owns(uid)));
});

test("a StatefulSet pod owns nothing until its StatefulSet is read, then follows it as it scales", async (t) => {
  let release: () => void = () => {};
  let scale: (replicas: number, start?: number) => void = () => {};
  const api = fakeKubeApi({
    lists: [{ status: 200, body: { items: [statefulSet(2, "5")], metadata: { resourceVersion: "5" } } }],
    watches: [
      async (options) => {
        options.onOpen?.();
        let rv = 5;
        scale = (replicas, start) =>
          options.onLine(
            JSON.stringify({ type: "MODIFIED", object: statefulSet(replicas, String(++rv), start) }),
          );
        await new Promise<void>((resolve) => {
          release = resolve;
        });
      },
    ],
  });
  const { part, logs, shardsGauge, calls } = setup({ pod: "exporter-1", podNamespace: "obs" }, api);
  t.after(async () => {
    release();
    await part.stop();
  });
  assert.deepEqual(part.assignment, { shard: 0, total: 0 });
  assert.ok(!uids.some((uid) => part.owns(uid)), "before the StatefulSet is read, nothing is ours");
  assert.equal(part.shardSelector(), undefined);
  const heard: string[] = [];
  part.onChange((next, previous) =>
    heard.push(`a: ${previous.shard}/${previous.total} → ${next.shard}/${next.total}`),
  );
  part.onChange((next, previous) =>
    heard.push(`b: ${previous.shard}/${previous.total} → ${next.shard}/${next.total}`),
  );

  await part.start();
  assert.deepEqual(part.assignment, { shard: 1, total: 2 });
  assert.deepEqual(heard, [], "the first assignment is start's, not a change");
  assert.equal(part.shardSelector(), shardSelectorOf({ shard: 1, total: 2 }));
  assert.deepEqual(
    uids.map((uid) => part.owns(uid)),
    uids.map((uid) => ownsUid({ shard: 1, total: 2 }, uid)),
  );
  assert.deepEqual(await shardsGauge(), ['cr_exporter_shards{shard="1"} 2']);
  assert.deepEqual(
    logs.map((l) => [l.msg, l.shard, l.shards, l.filter, l.from]),
    [["sharding", 1, 2, "apiserver", "StatefulSet obs/exporter"]],
  );
  assert.ok(calls.some((c) => c.kind === "watch"));

  await waitFor(
    () => calls.some((c) => c.kind === "watch"),
    "the watch",
    () => calls,
  );
  scale(4);
  await waitFor(
    () => heard.length === 2,
    "both listeners told",
    () => heard,
  );
  assert.deepEqual(heard, ["a: 1/2 → 1/4", "b: 1/2 → 1/4"]);
  assert.deepEqual(part.assignment, { shard: 1, total: 4 });
  assert.equal(part.shardSelector(), shardSelectorOf({ shard: 1, total: 4 }));
  assert.deepEqual(await shardsGauge(), ['cr_exporter_shards{shard="1"} 4']);
  assert.deepEqual(
    logs.slice(1).map((l) => [l.level, l.msg, l.shard, l.shards, l.previousShards]),
    [["info", "shard assignment changed", 1, 4, 2]],
  );

  // The ordinals now start at 1: this pod is shard 0, and the gauge no longer shows shard 1.
  scale(4, 1);
  await waitFor(
    () => heard.length === 4,
    "the new shard told",
    () => heard,
  );
  assert.deepEqual(await shardsGauge(), ['cr_exporter_shards{shard="0"} 4']);
});

test("a StatefulSet that cannot be read fails the start", async () => {
  const api = fakeKubeApi({ lists: [{ status: 403, body: { message: "forbidden" } }] });
  const { part } = setup({ pod: "exporter-0", podNamespace: "obs" }, api);
  await assert.rejects(part.start(), /sharding: list StatefulSet obs\/exporter/);
  await part.stop();
});

test("a reload warns only when the sharding changes, which takes a restart", async () => {
  const { part, logs } = setup({ shard: 0, totalShards: 2 });
  const two = validateConfig({ sharding: { shard: 0, totalShards: 2 } });
  await part.reload(validateConfig({ sharding: { shard: 0, totalShards: 2 }, logLevel: "debug" }), two);
  assert.equal(logs.length, 0);
  await part.reload(validateConfig({ sharding: { shard: 1, totalShards: 2 } }), two);
  assert.deepEqual(
    logs.map((l) => [l.level, l.msg]),
    [["warn", "sharding changes take effect after a restart"]],
  );
});
