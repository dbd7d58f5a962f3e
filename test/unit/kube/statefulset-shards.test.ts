// The shard of a StatefulSet pod: parsed from its name, counted from the
// StatefulSet's replicas, followed as it scales (on a scripted API; the real
// apiserver case, RBAC by resourceNames included, is test/e2e/sharding.test.ts).
import assert from "node:assert/strict";
import { test } from "node:test";
import { setImmediate as nextTurn } from "node:timers/promises";
import { assignmentOf, parsePodName, StatefulSetShards } from "../../../src/kube/statefulset-shards.ts";
import { createLogger } from "../../../src/log.ts";
import { fakeKubeApi, waitFor } from "../../support/fake-kube-api.ts";

const quiet = createLogger({ level: "error", write: () => {} });

function statefulSet(replicas: unknown, rv: string, start?: number): Record<string, unknown> {
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
  assert.throws(
    () =>
      new StatefulSetShards({
        client: fakeKubeApi({}).client,
        pod: "exporter",
        namespace: "obs",
        logger: quiet,
        onChange: () => {},
      }),
    /^Error: sharding: pod name "exporter" is not a StatefulSet pod's \(<statefulset>-<ordinal>\)$/,
  );
});

test("shard = ordinal − spec.ordinals.start, shards = spec.replicas", () => {
  assert.deepEqual(assignmentOf(statefulSet(3, "1"), 2), { shard: 2, total: 3 });
  assert.deepEqual(assignmentOf(statefulSet(3, "1", 5), 6), { shard: 1, total: 3 });
  assert.deepEqual(assignmentOf(statefulSet(2, "1"), 2), { shard: 2, total: 2 }, "beyond the replicas");
  assert.deepEqual(assignmentOf({ spec: {} }, 0), { shard: 0, total: 1 });
  assert.equal(assignmentOf({ spec: { replicas: "3" } }, 0), 'spec.replicas is not a count: "3"');
  assert.equal(assignmentOf({ spec: { replicas: -1 } }, 0), "spec.replicas is not a count: -1");
  assert.deepEqual(assignmentOf({ spec: { replicas: 0 } }, 0), { shard: 0, total: 0 }, "scaled to zero");
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
  release();
  await follower.stop();
  assert.deepEqual(
    process.getActiveResourcesInfo().filter((r) => r === "Timeout"),
    [],
    "the start timeout ends with the start",
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
    [
      { status: 200, body: { items: [statefulSet("3", "1")], metadata: { resourceVersion: "1" } } },
      /sharding: StatefulSet obs\/exporter \(of pod exporter-0\): spec.replicas is not a count: "3"/,
    ],
    [
      { status: 401, body: { message: "who are you" } },
      /sharding: list StatefulSet obs\/exporter \(of pod exporter-0\) failed \(HTTP 401\)/,
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
    // A start timeout left pending would hold a failing exporter up for a minute before it exits.
    assert.deepEqual(
      process.getActiveResourcesInfo().filter((r) => r === "Timeout"),
      [],
      "no timer left behind",
    );
  }
});

test("start waits through other failures (warned) until its timeout, which names the StatefulSet and the seconds", async (t) => {
  // The start timeout on a mocked clock, let run out only once two failures are logged: a loaded
  // machine could otherwise spend the 50 ms before the second list.
  t.mock.timers.enable({ apis: ["setTimeout"] });
  const log: Record<string, unknown>[] = [];
  let lists = 0;
  const { client } = fakeKubeApi({
    lists: () =>
      lists++ === 0 ? new Error("connect ECONNREFUSED") : { status: 500, body: { message: "etcd away" } },
  });
  const follower = new StatefulSetShards({
    client,
    pod: "exporter-0",
    namespace: "obs",
    logger: createLogger({ level: "debug", write: (line) => log.push(JSON.parse(line)) }),
    onChange: () => {},
    startTimeoutMs: 50,
    listWatch: { sleep: async () => nextTurn() },
  });
  const started = follower.start();
  for (let turns = 0; log.length < 2 && turns < 100_000; turns++) await nextTurn();
  t.mock.timers.tick(50);
  await assert.rejects(
    started,
    /^Error: sharding: StatefulSet obs\/exporter \(of pod exporter-0\) not read within 0.05 s$/,
  );
  await follower.stop();
  const what = "list StatefulSet obs/exporter (of pod exporter-0) failed";
  assert.deepEqual(
    log.slice(0, 2).map((l) => [l.msg, l.error]),
    [
      ["cannot follow the StatefulSet", `${what}: connect ECONNREFUSED`],
      [
        "cannot follow the StatefulSet",
        `${what} (HTTP 500): list /apis/apps/v1/namespaces/obs/statefulsets: HTTP 500: etcd away`,
      ],
    ],
  );
});

test("after start: bad objects, out-of-range ordinals, deletion, errors and a relist without it are warned; the last good assignment holds", async (t) => {
  const log: Record<string, unknown>[] = [];
  const line = (type: string, object: unknown): string => JSON.stringify({ type, object });
  const { client } = fakeKubeApi({
    lists: [
      { status: 200, body: { items: [statefulSet(2, "5")], metadata: { resourceVersion: "5" } } },
      { status: 200, body: { items: [], metadata: { resourceVersion: "20" } } },
    ],
    watches: [
      (o) => {
        o.onOpen?.();
        o.onLine(line("MODIFIED", statefulSet("x", "6")));
        o.onLine("not json");
        o.onLine(line("MODIFIED", statefulSet(2, "7", 1))); // shard 0 of 2
        o.onLine(line("MODIFIED", statefulSet(2, "8", 2))); // shard -1: below the ordinals
        o.onLine(line("MODIFIED", statefulSet(1, "9"))); // shard 1 of 1: beyond the replicas
        o.onLine(line("DELETED", statefulSet(1, "10")));
        o.onLine(line("ERROR", { kind: "Status", code: 500, message: "boom" }));
      },
      (o) => o.onLine(line("ERROR", { kind: "Status", code: 403, message: "forbidden now" })),
      (o) => o.onLine(line("ERROR", { kind: "Status", code: 410, message: "too old" })),
    ],
  });
  const changes: string[] = [];
  const follower = new StatefulSetShards({
    client,
    pod: "exporter-1",
    namespace: "obs",
    logger: createLogger({ level: "debug", write: (l) => log.push(JSON.parse(l)) }),
    onChange: (next, previous) =>
      changes.push(`${previous.shard}/${previous.total} → ${next.shard}/${next.total}`),
    listWatch: { sleep: async () => nextTurn() },
  });
  t.after(() => follower.stop());
  assert.deepEqual(await follower.start(), { shard: 1, total: 2 });
  const warned = (): unknown[] =>
    log.filter((l) => l.level === "warn").map(({ time, level, ...rest }) => rest);
  await waitFor(
    () => log.some((l) => l.msg === "StatefulSet gone; keeping the last shard assignment"),
    "the relist without the StatefulSet",
    warned,
  );
  const what = "StatefulSet obs/exporter (of pod exporter-1)";
  const outside = "this pod's ordinal is outside the StatefulSet's replicas: it exports no objects";
  const rest = warned();
  const skipped = rest[1] as { msg: string; error: string };
  assert.equal(skipped.msg, "StatefulSet event skipped");
  assert.match(skipped.error, /SyntaxError/);
  assert.deepEqual(rest, [
    { msg: "StatefulSet ignored", statefulSet: "obs/exporter", problem: 'spec.replicas is not a count: "x"' },
    skipped,
    { msg: outside, statefulSet: "obs/exporter", pod: "exporter-1", shard: -1, shards: 2 },
    { msg: outside, statefulSet: "obs/exporter", pod: "exporter-1", shard: 1, shards: 1 },
    { msg: "StatefulSet deleted; keeping the last shard assignment", what },
    {
      msg: "cannot follow the StatefulSet",
      error: `watch ${what} failed (HTTP 500): watch /apis/apps/v1/namespaces/obs/statefulsets: HTTP 500: boom`,
    },
    {
      msg: "cannot follow the StatefulSet",
      error: `watch ${what} failed (HTTP 403): watch /apis/apps/v1/namespaces/obs/statefulsets: HTTP 403: forbidden now`,
    },
    { msg: "StatefulSet gone; keeping the last shard assignment", what },
  ]);
  assert.deepEqual(changes, ["1/2 → 0/2", "0/2 → -1/2", "-1/2 → 1/1"]);
});
