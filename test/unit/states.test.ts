// State fields (`states`): string fields such as Argo CD's status.health.status
// exported as cr_state and judged by the readiness model — the configuration's
// checks, what the plan takes from the configuration or the detected shape,
// and the verdicts (Healthy + Synced Current, Degraded Failed after
// failedAfter, anything else progress).
import assert from "node:assert/strict";
import { test } from "node:test";
import { shapeSettings } from "../../src/collectors/shape-settings.ts";
import { defaultResourceOptions } from "../../src/config/schema.ts";
import { validateConfig } from "../../src/config/validate.ts";
import { newKindLearning } from "../../src/core/change/label-bounds.ts";
import { applyChange, type KindSettings } from "../../src/core/change/object-update.ts";
import { isReady, judge, type ReadinessRules, summarizeStatus } from "../../src/core/judge/readiness.ts";
import { defaultProjectionSettings, projectObject } from "../../src/core/project/project.ts";
import { problems } from "../support/config-problems.ts";
import { cond, t, type WidgetInit, widget } from "../support/objects.ts";
import { argoReadiness, argoStateSources, schemaShape } from "../support/state-fields.ts";

const argoStates = argoStateSources;
const projection = { ...defaultProjectionSettings, states: argoStates };
const argo = argoReadiness;
const app = (health: string | undefined, sync: string | undefined, since?: string): WidgetInit => ({
  status: {
    ...(health && { health: { status: health, ...(since && { lastTransitionTime: since }) } }),
    ...(sync && { sync: { status: sync } }),
  },
});
const p = (init: WidgetInit) => projectObject(widget(init), projection);
const NOW = t("2026-01-01T01:00:00Z");

// [name, object, result, by, changesAt]
const verdicts: [string, WidgetInit, string, string, number | undefined][] = [
  ["Healthy and Synced", app("Healthy", "Synced"), "Current", "state", undefined],
  ["Healthy, OutOfSync", app("Healthy", "OutOfSync"), "InProgress", "state", undefined],
  ["Progressing, Synced", app("Progressing", "Synced"), "InProgress", "state", undefined],
  ["sync not reported yet", app("Healthy", undefined), "InProgress", "state", undefined],
  ["no status at all", {}, "Unknown", "no_status", undefined],
  [
    "Degraded for less than failedAfter: progress, Failed at since + failedAfter",
    app("Degraded", "Synced", "2026-01-01T00:58:00Z"),
    "InProgress",
    "state",
    t("2026-01-01T00:58:00Z") + 300,
  ],
  [
    "Degraded for longer than failedAfter",
    app("Degraded", "OutOfSync", "2026-01-01T00:50:00Z"),
    "Failed",
    "failed_after",
    undefined,
  ],
];
for (const [name, init, result, by, changesAt] of verdicts) {
  test(`Argo CD states: ${name} → ${result}`, () => {
    const state = p(init);
    const verdict = judge(state, argo, NOW);
    assert.equal(verdict.result, result);
    assert.equal(verdict.by, by);
    assert.equal(summarizeStatus(state, argo, NOW).changesAt, changesAt);
    assert.equal(isReady(state, argo), result === "Current");
  });
}

test("with a ready condition as well, both must hold", () => {
  const both: ReadinessRules = { ...argo, readyCondition: "Ready" };
  const withReady = (status: string, health: string): WidgetInit => ({
    status: { conditions: [cond("Ready", status)], health: { status: health } },
  });
  const rules: ReadinessRules = { ...both, states: [{ name: "health", ready: ["Healthy"], failed: [] }] };
  assert.equal(judge(p(withReady("True", "Healthy")), rules, NOW).result, "Current");
  assert.equal(judge(p(withReady("True", "Progressing")), rules, NOW).result, "InProgress");
  assert.equal(isReady(p(withReady("True", "Progressing")), rules), false);
  assert.equal(judge(p(withReady("False", "Healthy")), rules, NOW).by, "failed_after");
});

test("a value without a time next to it counts from when the exporter first saw it", () => {
  const kind: KindSettings = {
    projection,
    readiness: argo,
    generationSource: "status",
    phaseTransitions: undefined,
    render: undefined,
  };
  const learning = newKindLearning({ phaseEnum: [], maxReasons: 20 });
  const seen = (
    health: string,
    rv: string,
    now: number,
    previous?: ReturnType<typeof applyChange>["entry"],
  ) =>
    applyChange(previous, widget({ resourceVersion: rv, ...app(health, "Synced") }), kind, learning, now)
      .entry;
  const first = seen("Degraded", "1", NOW);
  assert.equal(first.state.states[0]?.since, NOW);
  assert.equal(first.summary, "InProgress");
  // Still Degraded at a later write: the first sight stays, and failedAfter counts from it.
  const later = seen("Degraded", "2", NOW + 400, first);
  assert.equal(later.state.states[0]?.since, NOW);
  assert.equal(later.summary, "Failed");
  const recovered = seen("Healthy", "3", NOW + 500, later);
  assert.equal(recovered.state.states[0]?.since, NOW + 500);
  assert.equal(recovered.summary, "Current");
});

test("states in the configuration: the field, the value and what was expected", () => {
  const of = (states: unknown) => problems({ resources: [{ groups: ["*"], states }] });
  assert.deepEqual(of({ health: "x" }), [
    'resources[0].states: expected a list of {name, path, values?, ready?, failed?}, got {"health":"x"}',
  ]);
  assert.deepEqual(of([{ name: "Health", path: "status..x" }]), [
    'resources[0].states[0].name: expected a lower-camel-case name such as health, got "Health"',
    'resources[0].states[0].path: expected a dotted field path such as status.health.status, got "status..x"',
  ]);
  assert.deepEqual(of([{ path: "status.a" }]), [
    "resources[0].states[0].name: required (the field label of cr_state)",
  ]);
  assert.deepEqual(
    of([
      { name: "a", path: "status.a", values: ["Up", "Down"], ready: ["Up", "Sideways"], failed: ["Down"] },
      { name: "a", path: "status.b", ready: ["X"], failed: ["X"] },
    ]),
    [
      'resources[0].states[0].ready[1]: "Sideways" is not one of the listed values (Up, Down)',
      'resources[0].states[1].name: "a" is given twice',
      'resources[0].states[1].failed: "X" is also in ready; a value is one or the other',
    ],
  );
  assert.deepEqual(
    of([{ name: "a", path: "status.a", values: Array.from({ length: 21 }, (_, i) => `v${i}`) }]).length,
    1,
  );
  assert.deepEqual(of([{ name: "a", path: "status.a", colour: "red" }]), [
    "resources[0].states[0].colour: unknown key (allowed: name, path, values, ready, failed)",
  ]);
  const config = validateConfig({
    resources: [
      { groups: ["*"], states: [{ name: "health", path: "status.health.status", ready: ["Healthy"] }] },
    ],
  });
  assert.deepEqual(config.resources[0]?.options.states, [
    { name: "health", path: "status.health.status", values: undefined, ready: ["Healthy"], failed: [] },
  ]);
});

const argoShape = schemaShape(
  {
    stateFields: [
      { path: ["status", "health", "status"], declaredValues: undefined, observedValues: [] },
      { path: ["status", "sync", "status"], declaredValues: ["Synced", "OutOfSync"], observedValues: [] },
    ],
  },
  false,
);

test("zero-config: the detected health and sync fields are read, bounded and judged", () => {
  const settings = shapeSettings(defaultResourceOptions, argoShape, false, false);
  assert.deepEqual(settings.projection.states, argoStates);
  assert.deepEqual(settings.readiness.states, argo.states);
  assert.equal(settings.readiness.readyCondition, undefined);
  assert.equal(settings.info.readiness_source, "states");
  assert.deepEqual(settings.stateValues.sync, ["Synced", "OutOfSync"]);
  assert.deepEqual(settings.stateValues.health, [
    "Healthy",
    "Progressing",
    "Degraded",
    "Suspended",
    "Missing",
    "Unknown",
  ]);
});

test("configured states replace the detected ones; their values come from the enum at the same path", () => {
  const options = {
    ...defaultResourceOptions,
    states: [
      { name: "synced", path: "status.sync.status", values: undefined, ready: ["Synced"], failed: [] },
    ],
  };
  const settings = shapeSettings(options, argoShape, false, false);
  assert.deepEqual(settings.projection.states, [{ name: "synced", path: ["status", "sync", "status"] }]);
  assert.deepEqual(settings.readiness.states, [{ name: "synced", ready: ["Synced"], failed: [] }]);
  assert.deepEqual(settings.stateValues, { synced: ["Synced", "OutOfSync"] });
  assert.equal(settings.info.readiness_source, "config");
  // `states: []` turns the detected fields off.
  const none = shapeSettings({ ...defaultResourceOptions, states: [] }, argoShape, false, false);
  assert.deepEqual(none.projection.states, []);
  assert.deepEqual(none.readiness.states, []);
});

test("a kind with a ready condition keeps it; a detected state field there is exported, not judged", () => {
  const shape = schemaShape({
    conditionArrays: [
      {
        path: ["status", "conditions"],
        declaredTypes: ["Ready"],
        observedTypes: [],
        lastTransitionTime: true,
        observedGeneration: false,
      },
    ],
    stateFields: [{ path: ["status", "health", "status"], declaredValues: undefined, observedValues: [] }],
  });
  const settings = shapeSettings(defaultResourceOptions, shape, false, true);
  assert.equal(settings.readiness.readyCondition, "Ready");
  assert.deepEqual(settings.readiness.states, []);
  assert.deepEqual(settings.projection.states, [{ name: "health", path: ["status", "health", "status"] }]);
});

test("states that gate readiness stand for the ready condition only where the kind has none", () => {
  const state = (name: string, ready: string[]) => ({
    name,
    path: `status.${name}.status`,
    values: undefined,
    ready,
    failed: [],
  });
  const gating = { ...defaultResourceOptions, states: [state("sync", []), state("health", ["Healthy"])] };
  const exported = { ...defaultResourceOptions, states: [state("sync", []), state("health", [])] };
  const conditions = (declaredTypes: string[] | undefined) =>
    schemaShape({
      conditionArrays: [
        {
          path: ["status", "conditions"],
          declaredTypes,
          observedTypes: [],
          lastTransitionTime: true,
          observedGeneration: false,
        },
      ],
    });
  const ready = (options: typeof gating, shape: ReturnType<typeof schemaShape> | undefined) => {
    const { readiness, info } = shapeSettings(options, shape, false, true);
    return [readiness.readyCondition, info.readiness_source];
  };
  assert.deepEqual(ready(gating, undefined), [undefined, "config"], "one state with ready values is enough");
  assert.deepEqual(
    ready(exported, undefined),
    ["Ready", "default"],
    "states without ready values only export",
  );
  assert.deepEqual(ready(gating, conditions(["Ready"])), ["Ready", "schema"], "the declared condition stays");
  assert.deepEqual(
    ready(gating, conditions(undefined)),
    ["Ready", "pending"],
    "until objects tell the types",
  );
  assert.deepEqual(
    ready(gating, conditions(["Progressing"])),
    [undefined, "config"],
    "no readiness type declared",
  );
  assert.deepEqual(ready(gating, argoShape), [undefined, "config"], "no conditions at all");
});
