// `sharding` in the configuration file and its flags: a fixed shard, or a
// StatefulSet pod; every bad value is named with what was expected; and
// `--shard-filter` decides whether the requests carry the shard's selector.
import assert from "node:assert/strict";
import { test } from "node:test";
import { buildSharding } from "../../src/app/sharding.ts";
import { shardLeaseName } from "../../src/app/tracing.ts";
import { flagOverrides, parseFlags } from "../../src/config/flags.ts";
import { parseConfigText } from "../../src/config/load.ts";
import { validateConfig } from "../../src/config/validate.ts";
import { fnv1a64, ownsUid, shardSelectorOf } from "../../src/core/shard.ts";
import { silentLogger } from "../../src/log.ts";
import { createSelfMetrics } from "../../src/metrics/self-metrics.ts";
import { offlineCollector } from "../support/collector.ts";
import { problems } from "../support/config-problems.ts";
import { fakeKubeApi, waitFor } from "../support/fake-kube-api.ts";
import { spreadUid, widget } from "../support/objects.ts";

test("no sharding unless configured", () => {
  assert.equal(validateConfig({ listen: "127.0.0.1:1" }).sharding, undefined);
});

test("a fixed shard, from the file or from --shard/--total-shards", () => {
  assert.deepEqual(validateConfig({ sharding: { shard: 2, totalShards: 3 } }).sharding, {
    kind: "fixed",
    shard: 2,
    total: 3,
    filter: "apiserver",
  });
  const flags = flagOverrides(parseFlags(["--shard", "1", "--total-shards", "4"]));
  assert.deepEqual(parseConfigText("logLevel: info\n", "f.yaml", flags).sharding, {
    kind: "fixed",
    shard: 1,
    total: 4,
    filter: "apiserver",
  });
  // Flags override the file's keys.
  assert.deepEqual(
    parseConfigText(
      "sharding: {shard: 0, totalShards: 2}\n",
      "f.yaml",
      flagOverrides(parseFlags(["--shard", "1"])),
    ).sharding,
    { kind: "fixed", shard: 1, total: 2, filter: "apiserver" },
  );
});

test("the shard filter: the apiserver's where it offers one (default), or the exporter's only", () => {
  assert.equal(
    validateConfig({ sharding: { shard: 0, totalShards: 2, filter: "exporter" } }).sharding?.filter,
    "exporter",
  );
  const flags = flagOverrides(
    parseFlags(["--shard", "0", "--total-shards", "2", "--shard-filter", "exporter"]),
  );
  assert.equal(parseConfigText("{}", "f.yaml", flags).sharding?.filter, "exporter");
  assert.deepEqual(problems({ sharding: { pod: "e-0", podNamespace: "obs", filter: "both" } }), [
    'sharding.filter: expected one of apiserver, exporter, got "both"',
  ]);
});

test("a StatefulSet pod, from the file (environment variables expanded) or from --pod/--pod-namespace", () => {
  const flags = flagOverrides(parseFlags(["--pod", "exporter-2", "--pod-namespace", "monitoring"]));
  assert.deepEqual(parseConfigText("{logLevel: info}", "f.yaml", flags).sharding, {
    kind: "statefulset",
    pod: "exporter-2",
    podNamespace: "monitoring",
    filter: "apiserver",
  });
  // biome-ignore lint/suspicious/noTemplateCurlyInString: the configuration file's own ${NAME} syntax
  const text = "sharding:\n  pod: ${POD_NAME}\n  podNamespace: ${POD_NAMESPACE}\n";
  const previous = { name: process.env.POD_NAME, namespace: process.env.POD_NAMESPACE };
  process.env.POD_NAME = "cr-status-exporter-10";
  process.env.POD_NAMESPACE = "obs";
  try {
    assert.deepEqual(parseConfigText(text, "f.yaml").sharding, {
      kind: "statefulset",
      pod: "cr-status-exporter-10",
      podNamespace: "obs",
      filter: "apiserver",
    });
  } finally {
    for (const [key, value] of [
      ["POD_NAME", previous.name],
      ["POD_NAMESPACE", previous.namespace],
    ] as const) {
      if (value === undefined) delete process.env[key];
      else process.env[key] = value;
    }
  }
});

test("bad sharding settings name the field, the value and what was expected", () => {
  assert.deepEqual(problems({ sharding: { shard: 3, totalShards: 3 } }), [
    "sharding.shard: expected an integer from 0 to 2 (below totalShards, 3), got 3",
  ]);
  assert.deepEqual(problems({ sharding: { shard: 0, totalShards: 0 } }), [
    "sharding.totalShards: expected an integer ≥ 1, got 0",
  ]);
  assert.deepEqual(problems({ sharding: { shard: -1, totalShards: 2 } }), [
    "sharding.shard: expected an integer ≥ 0, got -1",
  ]);
  assert.deepEqual(problems({ sharding: { totalShards: 2 } }), [
    "sharding.shard: missing; expected this shard, an integer ≥ 0 (it goes with sharding.totalShards)",
  ]);
  assert.deepEqual(problems({ sharding: { pod: "exporter-0" } }), [
    "sharding.podNamespace: missing; expected the pod's namespace (it goes with sharding.pod)",
  ]);
  assert.deepEqual(problems({ sharding: { pod: "exporter-7d9f-abcde", podNamespace: "obs" } }), [
    "sharding.pod: expected a StatefulSet pod's name such as cr-status-exporter-0 (the StatefulSet's name, a dash, the ordinal), got \"exporter-7d9f-abcde\"",
  ]);
  assert.deepEqual(problems({ sharding: { shard: 0, totalShards: 2, pod: "e-0", podNamespace: "obs" } }), [
    'sharding: expected either shard and totalShards (a fixed shard) or pod and podNamespace (a StatefulSet pod), not both, got {"shard":0,"totalShards":2,"pod":"e-0","podNamespace":"obs"}',
  ]);
  assert.deepEqual(problems({ sharding: { shards: 3 } }), [
    "sharding.shards: unknown key (allowed: shard, totalShards, pod, podNamespace, filter)",
    'sharding: expected shard and totalShards, or pod and podNamespace, got {"shards":3}',
  ]);
  assert.deepEqual(problems({ sharding: {} }), [
    "sharding: expected shard and totalShards, or pod and podNamespace, got {}",
  ]);
  // A flag that is not a whole number stays text, so the message shows what was typed.
  assert.throws(
    () =>
      parseConfigText("{}", "f.yaml", flagOverrides(parseFlags(["--shard", "one", "--total-shards", "3"]))),
    /--shard: sharding\.shard: expected an integer ≥ 0, got "one"/,
  );
});

test("StatefulSet shards take no Lease; a fixed shard's replicas elect on a Lease of their own", () => {
  assert.deepEqual(
    problems({
      sharding: { pod: "e-0", podNamespace: "obs" },
      tracing: { leaseName: "spans", leaseNamespace: "obs" },
    }),
    [
      'tracing.leaseName: expected no Lease with StatefulSet sharding (each pod is the only one of its shard and emits its own objects\' spans), got "spans"',
    ],
  );
  assert.equal(
    shardLeaseName("spans", { kind: "fixed", shard: 2, total: 3, filter: "apiserver" }),
    "spans-shard-2",
  );
  assert.equal(shardLeaseName("spans", { kind: "fixed", shard: 0, total: 1, filter: "apiserver" }), "spans");
  assert.equal(shardLeaseName("spans", undefined), "spans");
  assert.equal(
    shardLeaseName(undefined, { kind: "fixed", shard: 1, total: 2, filter: "apiserver" }),
    undefined,
  );
});

/**
 * An apiserver with ShardedListAndWatch on: a list with a shardSelector
 * answers only the objects whose FNV-1a 64 uid hash is in its range, and
 * echoes the selector in shardInfo (read here from the selector's text, not
 * with src/core/shard.ts's ranges); a list without one answers every object.
 */
function shardingApiserver(items: { metadata: { uid: string } }[]) {
  const received: number[] = [];
  const api = fakeKubeApi({
    lists: (query) => {
      const selector = query.shardSelector;
      let answered = items;
      if (typeof selector === "string") {
        const bounds = /^shardRange\(object\.metadata\.uid, '(0x[0-9a-f]+)', '(0x[0-9a-f]+)'\)$/.exec(
          selector,
        );
        assert.ok(bounds, `a shardSelector the apiserver reads: ${selector}`);
        const [start, end] = [BigInt(bounds[1] as string), BigInt(bounds[2] as string)];
        answered = items.filter((item) => {
          const [hi, lo] = fnv1a64(item.metadata.uid);
          const hash = (BigInt(hi) << 32n) | BigInt(lo);
          return hash >= start && hash < end;
        });
      }
      received.push(answered.length);
      const shardInfo = typeof selector === "string" ? { shardInfo: { selector } } : {};
      return { status: 200, body: { items: answered, metadata: { resourceVersion: "1", ...shardInfo } } };
    },
  });
  return { ...api, received };
}

test("--shard-filter exporter never sends a shardSelector, even to an apiserver that honours it; the default does", async (t) => {
  const items = Array.from(
    { length: 30 },
    (_, i) => widget({ name: `w${i}`, uid: spreadUid(i) }) as { metadata: { uid: string } },
  );
  const assignment = { shard: 1, total: 3 };
  const owned = items.filter((item) => ownsUid(assignment, item.metadata.uid)).length;
  assert.ok(owned > 0 && owned < items.length, `shard 1 of 3 owns some of the 30: ${owned}`);
  const seen: Record<string, unknown> = {};
  for (const filter of ["apiserver (default)", "exporter"]) {
    const flags = ["--shard", "1", "--total-shards", "3"];
    if (filter === "exporter") flags.push("--shard-filter", "exporter");
    const config = parseConfigText("{}", "f.yaml", flagOverrides(parseFlags(flags)));
    const api = shardingApiserver(items);
    const sharding = buildSharding(config, {
      client: api.client,
      metrics: createSelfMetrics("cr_", "0.0.0-test"),
      logger: silentLogger,
    });
    await sharding.start();
    const c = offlineCollector({
      client: api.client,
      owns: sharding.owns,
      sharded: () => sharding.assignment.total > 1,
      shardSelector: sharding.shardSelector,
    });
    t.after(async () => {
      await c.collector.stop();
      await sharding.stop();
    });
    c.collector.start();
    await waitFor(
      () => api.calls.some((call) => call.kind === "watch"),
      `the watch (${filter})`,
      () => api.calls,
    );
    const gauge = (await c.metrics.registry.metrics())
      .split("\n")
      .filter((l) => l.startsWith("cr_exporter_resource_shard_filter{"));
    seen[filter] = {
      requests: api.calls.map((call) => [call.kind, call.query.shardSelector ?? "no shardSelector"]),
      received: api.received,
      kept: c.collector.store.size,
      filters: gauge.map((l) => l.match(/filter="(\w+)"/)?.[1]),
    };
  }
  const selector = shardSelectorOf(assignment);
  assert.deepEqual(seen, {
    "apiserver (default)": {
      requests: [
        ["list", selector],
        ["watch", selector],
      ],
      received: [owned],
      kept: owned,
      filters: ["apiserver"],
    },
    // Every object received, the shard's kept; nothing asked of the apiserver.
    exporter: {
      requests: [
        ["list", "no shardSelector"],
        ["watch", "no shardSelector"],
      ],
      received: [items.length],
      kept: owned,
      // Said as documented: the exporter keeps the shard's objects.
      filters: ["exporter"],
    },
  });
});
