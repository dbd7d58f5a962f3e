// Per-kind overrides inside a discovery entry (`kinds:`): the kinds an entry
// selects share its options, except where an override names the kind (or its
// resource, optionally with the group); the override's values win, the rest is
// the entry's. Checked like every other option.
import assert from "node:assert/strict";
import { test } from "node:test";
import { planFromCrds } from "../../src/collectors/selection.ts";
import { tableKeys } from "../../src/config/option.ts";
import { resourceOptionTable } from "../../src/config/resource-options.ts";
import { validateConfig } from "../../src/config/validate.ts";
import { type CrdSummary, summarizeCrd } from "../../src/core/detect/crd.ts";
import { loadFixtureCrd } from "../cluster/fixtures.ts";
import { problems } from "../support/config-problems.ts";

/** The per-resource option keys in their table's order, as the messages list them. */
const optionKeys = tableKeys(resourceOptionTable).join(", ");

function established(name: Parameters<typeof loadFixtureCrd>[0]): CrdSummary {
  const summary = summarizeCrd({
    ...loadFixtureCrd(name),
    status: { conditions: [{ type: "Established", status: "True" }] },
  });
  assert.ok(summary);
  return summary;
}
const crds = [established("widgets"), established("gadgets"), established("sprockets")];

test("an override changes its kind only, on top of the entry's options", () => {
  const config = validateConfig({
    resources: [
      {
        groups: ["example.com"],
        failedAfter: "10m",
        maxReasons: 5,
        kinds: [
          { kind: "Widget", readyCondition: "Available", failedAfter: "1h" },
          { resource: "gadgets", group: "example.com", phaseResults: { Hibernating: "Current" } },
        ],
      },
    ],
  });
  const byKind = Object.fromEntries(planFromCrds(config.resources, crds).map((p) => [p.identity.kind, p]));
  const widget = byKind.Widget;
  const gadget = byKind.Gadget;
  const sprocket = byKind.Sprocket;
  assert.ok(widget && gadget && sprocket);
  assert.equal(widget.readiness.readyCondition, "Available");
  assert.equal(widget.info.readiness_source, "config");
  assert.equal(widget.readiness.failedAfterSeconds, 3600);
  assert.equal(widget.options.maxReasons, 5, "what the override leaves out is the entry's");
  assert.deepEqual(gadget.readiness.phases.overrides, { Hibernating: "Current" });
  assert.equal(gadget.readiness.failedAfterSeconds, 600);
  assert.notEqual(gadget.readiness.readyCondition, "Available");
  assert.deepEqual(sprocket.readiness.phases.overrides, {});
  assert.equal(sprocket.readiness.failedAfterSeconds, 600);
  assert.equal(sprocket.options.maxReasons, 5);
});

test("the first matching override wins; one for another group does not apply", () => {
  const config = validateConfig({
    resources: [
      {
        groups: ["*"],
        kinds: [
          { kind: "Widget", group: "other.example.org", failedAfter: "1m" },
          { kind: "Widget", failedAfter: "2m" },
          { resource: "widgets", failedAfter: "3m" },
        ],
      },
    ],
  });
  const widget = planFromCrds(config.resources, crds).find((p) => p.identity.kind === "Widget");
  assert.equal(widget?.readiness.failedAfterSeconds, 120);
});

test("overrides in the configuration: the field, the value and what was expected", () => {
  assert.deepEqual(
    problems({
      resources: [
        {
          groups: ["*"],
          failedAfter: "soon",
          kinds: [
            { group: "example.com", failedAfter: "1m" },
            { kind: "widget", maxReasons: 0 },
            { kind: "Widget" },
            { kind: "Gadget", colour: "red", maxReasons: 3 },
            { kind: "Gadget", maxReasons: 4 },
          ],
        },
      ],
    }),
    [
      'resources[0].failedAfter: expected a duration like "90s", "5m" or a number of seconds, from 0 to 2147483 (24.8 days), got "soon"',
      "resources[0].kinds[0]: expected kind or resource (which kinds of the entry it applies to)",
      'resources[0].kinds[1].kind: expected a Kind such as HelmRelease, got "widget"',
      "resources[0].kinds[1].maxReasons: expected an integer ≥ 1, got 0",
      `resources[0].kinds[2]: overrides nothing (give one of ${optionKeys})`,
      `resources[0].kinds[3].colour: unknown key (allowed: kind, group, resource, ${optionKeys})`,
      "resources[0].kinds[4]: the same kind is overridden twice",
    ],
  );
  assert.deepEqual(
    problems({
      resources: [{ group: "example.com", resource: "widgets", kinds: [{ kind: "Widget", maxReasons: 3 }] }],
    }),
    [
      "resources[0].kinds: per-kind options belong to discovery entries; an explicit entry's own options are its kind's",
    ],
  );
});

test("an override's namespaces count toward the list/watch total like the entry's", async () => {
  const { maxWatches } = await import("../../src/config/watch-limits.ts");
  const namespaces = (n: number, prefix: string) => Array.from({ length: n }, (_, i) => `${prefix}-${i}`);
  const entry = (overrideNamespaces: number) => ({
    groups: ["*"],
    namespaces: namespaces(2, "e"),
    kinds: [{ kind: "Widget", namespaces: namespaces(overrideNamespaces, "o") }],
  });
  const explicit = (i: number) => ({
    group: "example.com",
    resource: `r${i}`,
    namespaces: namespaces(400, `x${i}`),
  });
  // 400 + 400 + the entry's largest list (200 from the override) = 1000: allowed; one more is not.
  assert.deepEqual(problems({ resources: [explicit(1), explicit(2), entry(maxWatches - 800)] }), []);
  assert.match(
    problems({ resources: [explicit(1), explicit(2), entry(maxWatches - 799)] })[0] ?? "",
    /^resources: the entries start 1001 list\/watches/,
  );
});
