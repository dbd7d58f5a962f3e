// CRD → what to watch: schema detection, selectors (explicit, group globs,
// categories, CRD labels), version choice, first match wins.
import assert from "node:assert/strict";
import { test } from "node:test";
import {
  missingExplicit,
  planFromCrds,
  planStatic,
  replan,
  settingsFor,
} from "../../src/collectors/selection.ts";
import { validateConfig } from "../../src/config/validate.ts";
import { type CrdSummary, summarizeCrd } from "../../src/core/detect/crd.ts";
import { addSample, decideWithSamples, noSamples } from "../../src/core/detect/learn.ts";
import { selectFamilies } from "../../src/core/series/family-selection.ts";
import { loadFixtureCrd } from "../cluster/fixtures.ts";
import { type CorpusName, corpusGroup, loadCorpusCrd } from "../support/shapes-corpus.ts";

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
    {
      version: v1?.version,
      served: v1?.served,
      storage: v1?.storage,
      statusSubresource: v1?.statusSubresource,
      openStatus: v1?.openStatus,
      conditions: v1?.evidence.conditionArrays.map((c) => c.path.join(".")),
      generation: v1?.evidence.generationFields.map((f) => f.join(".")),
      phase: v1?.evidence.phaseFields.map((f) => [f.path.join("."), f.declaredValues]),
    },
    {
      version: "v1",
      served: true,
      storage: true,
      statusSubresource: true,
      openStatus: false,
      conditions: ["status.conditions"],
      generation: ["status.observedGeneration"],
      phase: [["status.phase", ["Pending", "Provisioning", "Running", "Failed", "Terminating"]]],
    },
  );
  assert.equal(established("sprockets").versions[0]?.statusSubresource, false);
  assert.equal(established("gadgets").namespaced, false);
  const [plan] = plans([{ group: "example.com", resource: "widgets" }]);
  assert.deepEqual(plan?.phases, ["Pending", "Provisioning", "Running", "Failed", "Terminating"]);
  const gadget = plans([{ group: "example.com", resource: "gadgets" }])[0];
  assert.equal(gadget?.projection.phasePath, undefined, "no phase in the gadget schema: not read");
});

/** The widgets CRD as the API server shows it before it is Established. */
function pendingWidgets(): CrdSummary {
  const summary = summarizeCrd({
    ...loadFixtureCrd("widgets"),
    status: { conditions: [{ type: "Established", status: "False" }] },
  });
  assert.ok(summary);
  return summary;
}

test("not yet Established CRDs are not watched", () => {
  assert.deepEqual(planFromCrds(validateConfig({}).resources, [pendingWidgets()]), []);
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

test("an explicit selector matches only its own group; any one of several globs or categories is enough", () => {
  assert.deepEqual(plans([{ group: "example.org", resource: "widgets" }]), [], "same resource, other group");
  assert.deepEqual(
    plans([{ groups: ["*.example.org", "example.com"] }]).map((p) => p.key),
    ["example.com/gadgets", "example.com/gizmos", "example.com/sprockets", "example.com/widgets"],
  );
  assert.deepEqual(
    plans([{ categories: ["all-of-them", "fixtures"] }]).map((p) => p.key),
    ["example.com/gadgets", "example.com/widgets"],
  );
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

test("only explicit selectors are reported missing, and only when no established CRD matches them", () => {
  const resources = validateConfig({
    resources: [
      { group: "example.com", resource: "widgets" },
      { group: "example.com", kind: "Gadget" },
      { groups: ["*.example.org"] },
      { categories: ["nothing"] },
    ],
  }).resources;
  assert.deepEqual(
    missingExplicit(resources, crds()),
    [],
    "both found among four CRDs; discovery entries never missing",
  );
  assert.deepEqual(
    missingExplicit(resources, [pendingWidgets(), established("gadgets")]),
    ["widgets.example.com"],
    "a CRD that is not Established yet does not count",
  );
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

test("changing how objects are read changes the fingerprint (the collector restarts and relists)", () => {
  const a = plans([{ group: "example.com", resource: "widgets" }])[0];
  const b = plans([{ group: "example.com", resource: "widgets", conditionsPath: "status.other" }])[0];
  assert.notEqual(a?.fingerprint, b?.fingerprint);
});

test("changing how objects are judged changes `judging` only (the collector judges again, no relist)", () => {
  const a = plans([{ group: "example.com", resource: "widgets" }])[0];
  for (const change of [
    { readyCondition: "Available" },
    { failedAfter: "1m" },
    { phaseResults: { Running: "Current" } },
    { phaseTransitions: { Pending: ["Running"] } },
  ]) {
    const b = plans([{ group: "example.com", resource: "widgets", ...change }])[0];
    assert.equal(a?.fingerprint, b?.fingerprint, JSON.stringify(change));
    assert.notEqual(a?.judging, b?.judging, JSON.stringify(change));
  }
});

// --- the detected shape in the plan (issue: zero-config reads any status shape) ---

function corpus(name: CorpusName): CrdSummary {
  const summary = summarizeCrd({
    ...loadCorpusCrd(name),
    status: { conditions: [{ type: "Established", status: "True" }] },
  });
  assert.ok(summary);
  return summary;
}

const corpusPlan = (name: CorpusName, options: Record<string, unknown> = {}) => {
  const [plan] = planFromCrds(
    validateConfig({ resources: [{ group: corpusGroup, resource: name, ...options }] }).resources,
    [corpus(name)],
  );
  assert.ok(plan, name);
  return plan;
};

// [corpus kind, conditions path, observedGeneration (source path), phase path, ready condition (source), runs]
const decided: [CorpusName, string, string, string, string, string][] = [
  [
    "rollouts",
    "status.rollout.conditions",
    "status status.rollout.observedGeneration",
    "-",
    "Ready (pending)",
    "false",
  ],
  ["beacons", "status.conditions", "status status.observedGeneration", "-", "Ready (pending)", "false"],
  ["runs", "status.conditions", "status status.observedGeneration", "-", "Succeeded (schema)", "true"],
  ["pools", "status.conditions", "status status.observedGeneration", "-", "Available (schema)", "false"],
  ["exports", "-", "condition -", "status.phase", "- (none)", "true"],
  ["chores", "-", "condition -", "status.phase", "- (none)", "false"],
  // status.conditions entries without a status are not conditions: not read, none invented.
  ["deliveries", "-", "condition -", "-", "- (states)", "false"],
  [
    "blobs",
    "status.conditions",
    "status_or_condition status.observedGeneration",
    "status.phase",
    "Ready (pending)",
    "false",
  ],
  ["tickets", "status.conditions", "condition -", "-", "Ready (pending)", "false"],
  [
    "mirrors",
    "status.conditions",
    "status status.summary.observedGeneration",
    "-",
    "Ready (pending)",
    "false",
  ],
];

for (const [name, conditions, generation, phase, ready, runs] of decided) {
  test(`corpus ${name}: the plan reads and judges as detected`, () => {
    const plan = corpusPlan(name);
    const generationPath =
      plan.generationSource === "condition" ? "-" : plan.projection.observedGenerationPath.join(".");
    assert.deepEqual(
      [
        plan.projection.conditionsPath?.join(".") ?? "-",
        `${plan.generationSource} ${generationPath}`,
        plan.projection.phasePath?.join(".") ?? "-",
        `${plan.readiness.readyCondition ?? "-"} (${plan.info.readiness_source})`,
        String(plan.readiness.phases.runToCompletion),
      ],
      [conditions, generation, phase, ready, runs],
    );
    assert.equal(plan.info.ready_condition, plan.readiness.readyCondition ?? "");
    assert.equal(plan.info.conditions_path, conditions === "-" ? "" : conditions);
  });
}

test("the configuration wins over detection, path by path and for readiness", () => {
  const plan = corpusPlan("rollouts", {
    conditionsPath: "status.deprecated.conditions",
    observedGenerationPath: "status.observedGeneration",
    readyCondition: "Healthy",
    phaseResults: { Paused: "InProgress" },
  });
  assert.deepEqual(plan.projection.conditionsPath, ["status", "deprecated", "conditions"]);
  assert.deepEqual(plan.projection.observedGenerationPath, ["status", "observedGeneration"]);
  assert.equal(plan.generationSource, "status");
  assert.equal(plan.readiness.readyCondition, "Healthy");
  assert.equal(plan.info.readiness_source, "config");
  assert.deepEqual(plan.readiness.phases.overrides, { Paused: "InProgress" });
  assert.equal(plan.info.condition_times, "", "not the detected list: its times are not known");
});

test("condition times: the info says when conditions carry no lastTransitionTime", () => {
  assert.equal(corpusPlan("beacons").info.condition_times, "first_seen");
  assert.equal(corpusPlan("runs").info.condition_times, "lastTransitionTime");
  assert.equal(corpusPlan("exports").info.condition_times, "");
});

test("naming the detected conditions path in the config keeps what is known of their times", () => {
  assert.equal(
    corpusPlan("runs", { conditionsPath: "status.conditions" }).info.condition_times,
    "lastTransitionTime",
  );
  assert.equal(
    corpusPlan("beacons", { conditionsPath: "status.conditions" }).info.condition_times,
    "first_seen",
  );
});

test("an open status whose conditions alone carry observedGeneration is judged by the conditions' one", () => {
  const sample = {
    status: {
      conditions: [
        { type: "Ready", status: "True", observedGeneration: 3, lastTransitionTime: "2026-01-01T00:00:00Z" },
      ],
    },
  };
  const [plan] = planFromCrds(
    validateConfig({ resources: [{ group: corpusGroup, resource: "blobs" }] }).resources,
    [corpus("blobs")],
    (_crd, version) => decideWithSamples(version, addSample(noSamples, sample)),
  );
  assert.equal(plan?.shape?.observedGeneration.source, "conditions");
  assert.equal(
    plan?.generationSource,
    "condition",
    "not status_or_condition: the objects showed none in status",
  );
  assert.equal(plan?.info.observed_generation_path, "");
});

test("a kind without a status subresource compares spec by digest", () => {
  assert.equal(corpusPlan("chores").projection.specDigest, true);
  assert.equal(corpusPlan("chores").info.status_subresource, "false");
  assert.equal(corpusPlan("exports").projection.specDigest, false);
});

test("a learned shape (replan) changes judging, and the projection only when a path changed", () => {
  const plan = corpusPlan("runs");
  const learned = corpusPlan("tickets");
  assert.equal(learned.readiness.readyCondition, "Ready");
  assert.equal(learned.info.readiness_source, "pending");
  const shape = learned.shape;
  assert.ok(shape && plan.shape);
  const decided = replan(learned, {
    ...shape,
    readiness: { ...shape.readiness, condition: "Succeeded", source: "observed", pending: false },
  });
  assert.equal(decided.readiness.readyCondition, "Succeeded");
  assert.equal(decided.info.readiness_source, "observed");
  assert.equal(decided.fingerprint, learned.fingerprint);
  assert.notEqual(decided.judging, learned.judging);
});

test("crdDiscovery: false skips selectors missing any of group, version, resource, kind, namespaced", () => {
  const [full] = validateConfig({
    crdDiscovery: false,
    resources: [
      { group: "example.com", version: "v1", resource: "widgets", kind: "Widget", namespaced: true },
    ],
  }).resources;
  assert.ok(full);
  const without = (key: "group" | "version" | "resource" | "kind" | "namespaced") => ({
    ...full,
    [key]: undefined,
  });
  const planned = planStatic([
    without("group"),
    without("version"),
    without("resource"),
    without("kind"),
    without("namespaced"),
    full,
  ]);
  assert.deepEqual(
    planned.map((p) => p.key),
    ["example.com/widgets"],
  );
});

test("without a CRD: status subresource assumed, conventional paths read, readiness by default, no phase enum", () => {
  const [plan] = planStatic(
    validateConfig({
      crdDiscovery: false,
      resources: [
        { group: "example.com", version: "v1", resource: "widgets", kind: "Widget", namespaced: true },
      ],
    }).resources,
  );
  assert.ok(plan);
  assert.equal(plan.statusSubresource, true);
  assert.equal(plan.projection.specDigest, false);
  assert.deepEqual(
    plan.projection.conditionsPath,
    ["status", "conditions"],
    "an unread schema may have them",
  );
  assert.deepEqual(plan.projection.phasePath, ["status", "phase"]);
  assert.equal(plan.generationSource, "status_or_condition");
  assert.deepEqual(plan.phases, []);
  assert.deepEqual([plan.readiness.readyCondition, plan.readiness.phases.runToCompletion], ["Ready", false]);
  assert.deepEqual(
    [plan.info.readiness_source, plan.info.run_to_completion, plan.info.status_subresource],
    ["default", "false", "true"],
  );
});

test("a cluster-scoped kind is watched cluster-wide: its entry's namespaces do not apply", () => {
  const selection = selectFamilies("cr_", []);
  const [gadgets] = plans([{ group: "example.com", resource: "gadgets", namespaces: ["team-a"] }]);
  const [widgets] = plans([{ group: "example.com", resource: "widgets", namespaces: ["team-a"] }]);
  assert.ok(gadgets && widgets);
  assert.deepEqual(settingsFor(gadgets, "cr_", selection).scope.namespaces, []);
  assert.deepEqual(settingsFor(widgets, "cr_", selection).scope.namespaces, ["team-a"]);
});

test("excludeNamespaces: one field selector term per namespace on a namespaced kind's watch, none on a cluster-scoped one", () => {
  const selection = selectFamilies("cr_", []);
  const excluded = { excludeNamespaces: ["kube-system", "team-b"] };
  const [gadgets] = plans([{ group: "example.com", resource: "gadgets", ...excluded }]);
  const [widgets] = plans([{ group: "example.com", resource: "widgets", ...excluded }]);
  const [plain] = plans([{ group: "example.com", resource: "widgets" }]);
  assert.ok(gadgets && widgets && plain);
  assert.equal(
    settingsFor(widgets, "cr_", selection).scope.fieldSelector,
    "metadata.namespace!=kube-system,metadata.namespace!=team-b",
  );
  assert.equal(settingsFor(gadgets, "cr_", selection).scope.fieldSelector, undefined);
  assert.equal(settingsFor(plain, "cr_", selection).scope.fieldSelector, undefined);
});
