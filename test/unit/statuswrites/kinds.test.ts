import assert from "node:assert/strict";
import { test } from "node:test";
import { type ApiResourceList, createDiscoveryKindResolver } from "../../../src/statuswrites/kinds.ts";

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
