// The shard of a StatefulSet pod: parsed from its name, counted from the
// StatefulSet's replicas, followed as it scales (on a scripted API; the real
// apiserver case, RBAC by resourceNames included, is test/e2e/sharding.test.ts).
import assert from "node:assert/strict";
import { test } from "node:test";
import { assignmentOf, parsePodName, StatefulSetShards } from "../../../src/kube/statefulset-shards.ts";
import { createLogger } from "../../../src/log.ts";
import { fakeKubeApi } from "../../support/fake-kube-api.ts";

const quiet = createLogger({ level: "error", write: () => {} });

function statefulSet(replicas: number, rv: string, start?: number): Record<string, unknown> {
  return {
    metadata: { name: "exporter", namespace: "obs", resourceVersion: rv },
    spec: { replicas, ...(start !== undefined && { ordinals: { start } }) },
  };
}

test("the pod name gives the StatefulSet and the ordinal", () => {
  assert.deepEqual(parsePodName("cr-status-exporter-12"), { statefulSet: "cr-status-exporter", ordinal: 12 });
  assert.deepEqual(parsePodName("a-b-0"), { statefulSet: "a-b", ordinal: 0 });
  assert.equal(parsePodName("exporter"), undefined);
  assert.equal(parsePodName("exporter-01"), undefined);
  assert.equal(parsePodName("exporter-7d9f-abcde"), undefined);
});

test("shard = ordinal − spec.ordinals.start, shards = spec.replicas", () => {
  assert.deepEqual(assignmentOf(statefulSet(3, "1"), 2), { shard: 2, total: 3 });
  assert.deepEqual(assignmentOf(statefulSet(3, "1", 5), 6), { shard: 1, total: 3 });
  assert.deepEqual(assignmentOf(statefulSet(2, "1"), 2), { shard: 2, total: 2 }, "beyond the replicas");
  assert.deepEqual(assignmentOf({ spec: {} }, 0), { shard: 0, total: 1 });
  assert.equal(assignmentOf({ spec: { replicas: "3" } }, 0), 'spec.replicas is not a count: "3"');
  assert.equal(
    assignmentOf({ spec: { replicas: 3, ordinals: { start: -1 } } }, 0),
    "spec.ordinals.start is not an ordinal: -1",
  );
});

test("the StatefulSet is followed by name; a new replica count is reported once", async (t) => {
  let release: () => void = () => {};
  const { client, calls } = fakeKubeApi({
    lists: [{ status: 200, body: { items: [statefulSet(2, "5")], metadata: { resourceVersion: "5" } } }],
    watches: [
      async (options) => {
        options.onOpen?.();
        options.onLine(JSON.stringify({ type: "MODIFIED", object: statefulSet(2, "6") }));
        options.onLine(JSON.stringify({ type: "MODIFIED", object: statefulSet(3, "7") }));
        await new Promise<void>((resolve) => {
          release = resolve;
        });
      },
    ],
  });
  const changes: string[] = [];
  let changed: () => void = () => {};
  const seen = new Promise<void>((resolve) => {
    changed = resolve;
  });
  const follower = new StatefulSetShards({
    client,
    pod: "exporter-1",
    namespace: "obs",
    logger: quiet,
    onChange: (next, previous) => {
      changes.push(`${previous.shard}/${previous.total} → ${next.shard}/${next.total}`);
      changed();
    },
  });
  t.after(async () => {
    release();
    await follower.stop();
  });
  assert.deepEqual(await follower.start(), { shard: 1, total: 2 });
  await seen;
  assert.deepEqual(changes, ["1/2 → 1/3"], "the same count again is no change");
  assert.deepEqual(
    calls.map((c) => [c.kind, c.path, c.query.fieldSelector]),
    [
      ["list", "/apis/apps/v1/namespaces/obs/statefulsets", "metadata.name=exporter"],
      ["watch", "/apis/apps/v1/namespaces/obs/statefulsets", "metadata.name=exporter"],
    ],
  );
});

test("start fails at once for a StatefulSet that does not exist or may not be read, and stops", {
  timeout: 10_000,
}, async () => {
  for (const [answer, expected] of [
    [
      { status: 200, body: { items: [], metadata: { resourceVersion: "1" } } },
      /sharding: StatefulSet obs\/exporter \(of pod exporter-0\) not found/,
    ],
    [
      { status: 403, body: { message: "forbidden" } },
      /sharding: list StatefulSet obs\/exporter \(of pod exporter-0\) failed \(HTTP 403\)/,
    ],
  ] as const) {
    const { client } = fakeKubeApi({ lists: [answer] });
    const follower = new StatefulSetShards({
      client,
      pod: "exporter-0",
      namespace: "obs",
      logger: quiet,
      onChange: () => {},
    });
    await assert.rejects(follower.start(), expected);
    await follower.stop();
  }
});
