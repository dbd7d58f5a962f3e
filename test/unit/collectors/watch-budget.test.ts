// Discovery entries × matched CRDs against the watch limit, and what /readyz
// says about it and about CRDs that cannot be listed.
import assert from "node:assert/strict";
import { test } from "node:test";
import type { Readiness } from "../../../src/collectors/manager.ts";
import { planFromCrds } from "../../../src/collectors/selection.ts";
import { describeOverLimit, fitWatchLimit, watchesOf } from "../../../src/collectors/watch-budget.ts";
import { validateConfig } from "../../../src/config/validate.ts";
import { summarizeCrd } from "../../../src/core/detect/crd.ts";
import { formatReadiness } from "../../../src/server/http.ts";
import { loadFixtureCrd } from "../../cluster/fixtures.ts";

const crds = (["widgets", "gadgets", "sprockets", "gizmos"] as const).map((name) => {
  const raw = loadFixtureCrd(name);
  const summary = summarizeCrd({ ...raw, status: { conditions: [{ type: "Established", status: "True" }] } });
  assert.ok(summary);
  return summary;
});
const namespaces = Array.from({ length: 400 }, (_, i) => `ns-${i}`);
// One discovery entry listing 400 namespaces: each namespaced CRD it matches is 400 watches, the cluster-scoped one 1.
const plans = planFromCrds(
  validateConfig({ resources: [{ groups: ["example.com"], namespaces }] }).resources,
  crds,
);

test("each matched namespaced CRD costs one watch per listed namespace, a cluster-scoped one costs one", () => {
  const cost = Object.fromEntries(plans.map((p) => [p.key, watchesOf(p)]));
  assert.deepEqual(cost, {
    "example.com/widgets": 400,
    "example.com/gadgets": 1,
    "example.com/sprockets": 400,
    "example.com/gizmos": 400,
  });
});

test("within the limit every plan is kept; past it plans are kept in key order while they fit", () => {
  assert.deepEqual(fitWatchLimit(plans, 1201).skipped, []);
  const budget = fitWatchLimit(plans, 1000);
  assert.equal(budget.needed, 1201);
  assert.deepEqual(
    budget.kept.map((p) => p.key),
    ["example.com/gadgets", "example.com/gizmos", "example.com/sprockets"],
  );
  assert.deepEqual(budget.skipped, ["example.com/widgets"]);
  assert.equal(
    describeOverLimit(budget),
    "the resource entries match CRDs that need 1201 list/watches (one per listed namespace of each matched CRD), " +
      "more than the 1000 allowed: 1 resources not watched (example.com/widgets); narrow the discovery entries " +
      "or watch whole clusters instead of namespaces",
  );
});

const base: Readiness = { ready: false, resources: [], missing: [], crds: undefined, overLimit: undefined };

test("/readyz: CRDs that cannot be listed are said so, never 'no such CRD is installed'", () => {
  const text = formatReadiness({
    ...base,
    crds: { synced: false, error: "list customresourcedefinitions failed (HTTP 403): forbidden" },
  });
  assert.equal(
    text,
    "not ready\ncustomresourcedefinitions: cannot be listed, so no resource is watched yet and whether the " +
      "configured ones are installed is unknown: list customresourcedefinitions failed (HTTP 403): forbidden\n",
  );
  assert.doesNotMatch(text, /no such CRD/);
});

test("/readyz: the watch limit, stale and synced resources, and missing CRDs each get a line", () => {
  const text = formatReadiness({
    ready: false,
    crds: { synced: true, error: undefined },
    overLimit: "the resource entries match CRDs that need 1201 list/watches",
    missing: ["things.example.org"],
    resources: [
      { resource: "widgets.example.com/v1", ready: true, detail: "synced, data 3 s old" },
      {
        resource: "gizmos.example.com/v1",
        ready: false,
        detail: "stale: data not confirmed for 80 s (more than 75 s)",
      },
    ],
  });
  assert.equal(
    text,
    [
      "not ready",
      "customresourcedefinitions: listed",
      "widgets.example.com/v1: synced, data 3 s old",
      "gizmos.example.com/v1: not ready: stale: data not confirmed for 80 s (more than 75 s)",
      "watch limit: the resource entries match CRDs that need 1201 list/watches",
      "things.example.org: configured, but no such CRD is installed",
      "",
    ].join("\n"),
  );
});
