// CRD → what to watch: schema detection, selectors (explicit, group globs,
// categories, CRD labels), version choice, first match wins.
import assert from "node:assert/strict";
import { test } from "node:test";
import { missingExplicit, planFromCrds, planStatic } from "../../src/collectors/selection.ts";
import { validateConfig } from "../../src/config/validate.ts";
import { type CrdSummary, summarizeCrd } from "../../src/core/crd.ts";
import { loadFixtureCrd } from "../cluster/fixtures.ts";

function established(
  name: Parameters<typeof loadFixtureCrd>[0],
  labels: Record<string, string> = {},
): CrdSummary {
  const raw = loadFixtureCrd(name);
  const summary = summarizeCrd({
    ...raw,
    metadata: { ...raw.metadata, labels: { ...raw.metadata.labels, ...labels } },
    status: { conditions: [{ type: "Established", status: "True" }] },
  });
  assert.ok(summary);
  return summary;
}

const crds = () => [
  established("widgets", { team: "a" }),
  established("gadgets"),
  established("sprockets"),
  established("gizmos"),
];
const plans = (resources: unknown[]) => planFromCrds(validateConfig({ resources }).resources, crds());

test("schema detection: conditions, observedGeneration, phase enum, status subresource", () => {
  const widgets = established("widgets");
  const v1 = widgets.versions[0];
  assert.deepEqual(
    { ...v1, name: undefined },
    {
      name: undefined,
      served: true,
      storage: true,
      statusSubresource: true,
      conditions: true,
      observedGeneration: true,
      phase: true,
      phaseEnum: ["Pending", "Provisioning", "Running", "Failed", "Terminating"],
      openStatus: false,
    },
  );
  assert.equal(established("sprockets").versions[0]?.statusSubresource, false);
  assert.equal(established("gadgets").namespaced, false);
  const [plan] = plans([{ group: "example.com", resource: "widgets" }]);
  assert.deepEqual(plan?.phases, ["Pending", "Provisioning", "Running", "Failed", "Terminating"]);
  const gadget = plans([{ group: "example.com", resource: "gadgets" }])[0];
  assert.equal(gadget?.projection.phasePath, undefined, "no phase in the gadget schema: not read");
});

test("not yet Established CRDs are not watched", () => {
  const raw = loadFixtureCrd("widgets");
  const pending = summarizeCrd({
    ...raw,
    status: { conditions: [{ type: "Established", status: "False" }] },
  });
  assert.ok(pending);
  assert.deepEqual(planFromCrds(validateConfig({}).resources, [pending]), []);
});

test("selectors: explicit, group glob, category, CRD label selector; first match wins", () => {
  assert.deepEqual(
    plans([{ groups: ["*"] }]).map((p) => p.key),
    ["example.com/gadgets", "example.com/gizmos", "example.com/sprockets", "example.com/widgets"],
  );
  assert.deepEqual(plans([{ groups: ["*.example.org"] }]), []);
  assert.deepEqual(
    plans([{ categories: ["fixtures"] }]).map((p) => p.key),
    ["example.com/gadgets", "example.com/widgets"],
  );
  assert.deepEqual(
    plans([{ crdSelector: "team=a" }]).map((p) => p.key),
    ["example.com/widgets"],
  );
  assert.deepEqual(
    plans([{ group: "example.com", kind: "Sprocket" }]).map((p) => p.key),
    ["example.com/sprockets"],
  );
  const first = plans([
    { group: "example.com", resource: "widgets", mode: "aggregate" },
    { groups: ["example.com"], mode: "objects" },
  ]);
  assert.equal(first.find((p) => p.key === "example.com/widgets")?.options.mode, "aggregate");
  assert.equal(first.find((p) => p.key === "example.com/gizmos")?.options.mode, "objects");
});

test("version: the storage version by default, or the requested served one", () => {
  assert.equal(plans([{ group: "example.com", resource: "gizmos" }])[0]?.identity.version, "v1");
  assert.equal(
    plans([{ group: "example.com", resource: "gizmos", version: "v1beta1" }])[0]?.identity.version,
    "v1beta1",
  );
  assert.deepEqual(plans([{ group: "example.com", resource: "gizmos", version: "v2" }]), []);
});

test("explicit selectors without a CRD are reported as missing", () => {
  const resources = validateConfig({
    resources: [{ group: "example.com", resource: "doohickeys" }],
  }).resources;
  assert.deepEqual(missingExplicit(resources, crds()), ["doohickeys.example.com"]);
});

test("crdDiscovery: false plans fully specified resources without reading CRDs", () => {
  const config = validateConfig({
    crdDiscovery: false,
    resources: [
      {
        group: "example.com",
        version: "v1",
        resource: "widgets",
        kind: "Widget",
        namespaced: true,
        namespaces: ["team-a"],
      },
    ],
  });
  const [plan] = planStatic(config.resources);
  assert.deepEqual(plan?.identity, {
    group: "example.com",
    version: "v1",
    kind: "Widget",
    resource: "widgets",
    namespaced: true,
  });
  assert.deepEqual(plan?.options.namespaces, ["team-a"]);
});

test("changing a resource's options changes its fingerprint (the collector restarts)", () => {
  const a = plans([{ group: "example.com", resource: "widgets" }])[0];
  const b = plans([{ group: "example.com", resource: "widgets", readyCondition: "Available" }])[0];
  assert.notEqual(a?.fingerprint, b?.fingerprint);
});
