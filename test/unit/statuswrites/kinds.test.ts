import assert from "node:assert/strict";
import { test } from "node:test";
import {
  type ApiResourceList,
  createDiscoveryKindResolver,
  maxTrackedGroupVersions,
  staticKindResolver,
  unconfirmingKindResolver,
} from "../../../src/statuswrites/kinds.ts";

const widgetsList: ApiResourceList = {
  resources: [
    { name: "widgets", kind: "Widget" },
    { name: "widgets/status", kind: "Widget" },
  ],
};

function fakeDiscovery(responses: Record<string, ApiResourceList | Error>) {
  const calls: string[] = [];
  const fetchResourceList = async (group: string, version: string): Promise<ApiResourceList> => {
    calls.push(`${group}/${version}`);
    const response = responses[`${group}/${version}`];
    if (response instanceof Error) throw response;
    return response ?? { resources: [] };
  };
  return { calls, fetchResourceList };
}

test("resolves a plural through discovery once, then from the cache", async () => {
  const discovery = fakeDiscovery({ "example.com/v1": widgetsList });
  const resolver = createDiscoveryKindResolver({ fetchResourceList: discovery.fetchResourceList });
  assert.equal(await resolver.kindOf("example.com", "v1", "widgets"), "Widget");
  assert.equal(await resolver.kindOf("example.com", "v1", "widgets"), "Widget");
  assert.equal(
    await resolver.kindOf("example.com", "v2", "widgets"),
    "Widget",
    "the same kind in every version",
  );
  assert.deepEqual(discovery.calls, ["example.com/v1"]);
});

test("concurrent misses share one discovery request", async () => {
  const discovery = fakeDiscovery({ "example.com/v1": widgetsList });
  const resolver = createDiscoveryKindResolver({ fetchResourceList: discovery.fetchResourceList });
  const kinds = await Promise.all([1, 2, 3].map(() => resolver.kindOf("example.com", "v1", "widgets")));
  assert.deepEqual(kinds, ["Widget", "Widget", "Widget"]);
  assert.equal(discovery.calls.length, 1);
});

test("an unknown plural is not confirmed, and refreshes at most once per interval", async () => {
  let clock = 0;
  const responses: Record<string, ApiResourceList | Error> = { "example.com/v1": widgetsList };
  const discovery = fakeDiscovery(responses);
  const resolver = createDiscoveryKindResolver({
    fetchResourceList: discovery.fetchResourceList,
    retryAfterMs: 30_000,
    now: () => clock,
  });
  assert.equal(await resolver.kindOf("example.com", "v1", "gears"), undefined);
  clock = 10_000;
  assert.equal(await resolver.kindOf("example.com", "v1", "gears"), undefined);
  assert.equal(discovery.calls.length, 1, "no refetch inside the interval");
  // The CRD gets installed; after the interval the miss refreshes discovery.
  responses["example.com/v1"] = {
    resources: [...(widgetsList.resources ?? []), { name: "gears", kind: "Gear" }],
  };
  clock = 40_000;
  assert.equal(await resolver.kindOf("example.com", "v1", "gears"), "Gear");
  assert.equal(discovery.calls.length, 2);
});

test("discovery errors are reported and nothing is confirmed", async () => {
  const errors: string[] = [];
  const discovery = fakeDiscovery({ "example.com/v1": new Error("403 forbidden") });
  const resolver = createDiscoveryKindResolver({
    fetchResourceList: discovery.fetchResourceList,
    onError: (error, group, version) => errors.push(`${group}/${version}: ${String(error)}`),
  });
  assert.equal(await resolver.kindOf("example.com", "v1", "widgets"), undefined);
  assert.deepEqual(errors, ["example.com/v1: Error: 403 forbidden"]);
});

test("known kinds are used without asking discovery; malformed entries are ignored", async () => {
  const discovery = fakeDiscovery({
    "example.com/v1": {
      resources: [{ name: 7, kind: "Bad" }, { name: "gears" }, { name: "cogs", kind: "Cog" }],
    },
  });
  const resolver = createDiscoveryKindResolver({
    fetchResourceList: discovery.fetchResourceList,
    known: [{ group: "example.com", resource: "widgets", kind: "Widget" }],
  });
  assert.equal(await resolver.kindOf("example.com", "v1", "widgets"), "Widget");
  assert.deepEqual(discovery.calls, []);
  assert.equal(await resolver.kindOf("example.com", "v1", "gears"), undefined);
  assert.equal(await resolver.kindOf("example.com", "v1", "cogs"), "Cog");
});

test("subresource entries (widgets/status) are not kinds of their own", async () => {
  const discovery = fakeDiscovery({ "example.com/v1": widgetsList });
  const resolver = createDiscoveryKindResolver({ fetchResourceList: discovery.fetchResourceList });
  assert.equal(await resolver.kindOf("example.com", "v1", "widgets"), "Widget");
  assert.equal(await resolver.kindOf("example.com", "v1", "widgets/status"), undefined);
});

test("without the served list, group/versions asked about an interval ago make room for new ones", async () => {
  let clock = 0;
  const discovery = fakeDiscovery({});
  const resolver = createDiscoveryKindResolver({
    fetchResourceList: discovery.fetchResourceList,
    retryAfterMs: 30_000,
    now: () => clock,
  });
  for (let i = 0; i < maxTrackedGroupVersions; i++) await resolver.kindOf(`g${i}.example`, "v1", "x");
  assert.equal(discovery.calls.length, maxTrackedGroupVersions);
  clock = 29_999;
  await resolver.kindOf("late.example", "v1", "x");
  assert.equal(discovery.calls.length, maxTrackedGroupVersions, "full, and nothing old enough to forget");
  clock = 30_000;
  await resolver.kindOf("late.example", "v1", "x");
  assert.equal(discovery.calls.at(-1), "late.example/v1", "asked once the oldest are an interval old");
});

test("with the served list, a served group/version does not refresh the list again", async () => {
  let clock = 0;
  const calls: string[] = [];
  const resolver = createDiscoveryKindResolver({
    fetchResourceList: async (group, version) => {
      calls.push(`${group}/${version}`);
      return widgetsList;
    },
    fetchServedGroupVersions: async () => {
      calls.push("served");
      return ["v1", "example.com/v1"];
    },
    retryAfterMs: 30_000,
    now: () => clock,
  });
  assert.equal(await resolver.kindOf("example.com", "v1", "gears"), undefined);
  clock = 40_000;
  assert.equal(await resolver.kindOf("example.com", "v1", "cogs"), undefined);
  assert.deepEqual(calls, ["served", "example.com/v1", "example.com/v1"]);
});

test("a served list that cannot be read is reported with an empty group and version", async () => {
  const errors: unknown[][] = [];
  const discovery = fakeDiscovery({ "example.com/v1": widgetsList });
  const resolver = createDiscoveryKindResolver({
    fetchResourceList: discovery.fetchResourceList,
    fetchServedGroupVersions: async () => {
      throw new Error("no /apis");
    },
    onError: (error, group, version) => errors.push([String(error), group, version]),
  });
  assert.equal(await resolver.kindOf("example.com", "v1", "widgets"), undefined, "nothing is served");
  assert.deepEqual(errors, [["Error: no /apis", "", ""]]);
  assert.deepEqual(discovery.calls, []);
});

test("a served list read again replaces the old one: a group/version no longer served is not asked about", async () => {
  let clock = 0;
  let served = ["example.com/v1"];
  const discovery = fakeDiscovery({ "example.com/v1": widgetsList });
  const resolver = createDiscoveryKindResolver({
    fetchResourceList: discovery.fetchResourceList,
    fetchServedGroupVersions: async () => served,
    retryAfterMs: 30_000,
    now: () => clock,
  });
  assert.equal(await resolver.kindOf("example.com", "v1", "gears"), undefined);
  served = ["other.example/v1"];
  clock = 40_000;
  assert.equal(await resolver.kindOf("other.example", "v1", "things"), undefined);
  clock = 80_000;
  assert.equal(await resolver.kindOf("example.com", "v1", "cogs"), undefined);
  assert.deepEqual(discovery.calls, ["example.com/v1", "other.example/v1"], "example.com/v1 is gone");
});

test("namespaces: the default resolver knows none and confirms nothing; the static one learns from writes", async () => {
  assert.equal(await unconfirmingKindResolver.kindOf("example.com", "v1", "widgets"), undefined);
  assert.equal(await unconfirmingKindResolver.namespaceExists("shop"), false);
  unconfirmingKindResolver.namespaceConfirmed("shop");
  assert.equal(await unconfirmingKindResolver.namespaceExists("shop"), false);
  const resolver = staticKindResolver(
    [{ group: "example.com", resource: "widgets", kind: "Widget" }],
    ["shop"],
  );
  assert.equal(await resolver.namespaceExists("shop"), true);
  assert.equal(await resolver.namespaceExists("search"), false);
  resolver.namespaceConfirmed("search");
  assert.equal(await resolver.namespaceExists("search"), true);
  assert.equal(await resolver.kindOf("example.com", "v9", "widgets"), "Widget", "any version");
  assert.equal(await resolver.kindOf("example.org", "v1", "widgets"), undefined, "another group");
});
