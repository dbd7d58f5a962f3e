// Labels from paths (kube-state-metrics' labelsFromPath): a scalar field of
// the object as an extra object label, configured like label and annotation
// labels — the configuration's checks, the values read, and what a change of
// value does to the series (a new identity: the old series end).
import assert from "node:assert/strict";
import { test } from "node:test";
import { shapeSettings } from "../../src/collectors/shape-settings.ts";
import { validateConfig } from "../../src/config/validate.ts";
import { newKindLearning } from "../../src/core/change/label-bounds.ts";
import { applyChange, type KindSettings } from "../../src/core/change/object-update.ts";
import { defaultReadinessRules } from "../../src/core/judge/readiness.ts";
import { projectObject } from "../../src/core/project/project.ts";
import { slotOf } from "../../src/core/series/catalog.ts";
import { fromByteString } from "../../src/core/series/exposition.ts";
import { newKindRender } from "../../src/core/series/render.ts";
import { problems } from "../support/config-problems.ts";
import { widget } from "../support/objects.ts";
import { slotLines } from "../support/series.ts";

const configured = validateConfig({
  resources: [
    {
      groups: ["*"],
      labels: [
        { fromPath: "spec.suspend", name: "suspended" },
        { fromPath: "spec.size" },
        { fromPath: "status.lastAppliedRevision", name: "revision" },
        { fromLabel: "app", name: "app" },
      ],
    },
  ],
});
const options = configured.resources[0]?.options;
assert.ok(options);
const settings = shapeSettings(options, undefined, true, true);

test("fromPath: a scalar field becomes a label; the name defaults to the sanitized path", () => {
  assert.deepEqual(
    options.labels.map((l) => [l.from, l.key, l.name]),
    [
      ["path", "spec.suspend", "suspended"],
      ["path", "spec.size", "spec_size"],
      ["path", "status.lastAppliedRevision", "revision"],
      ["label", "app", "app"],
    ],
  );
  const state = projectObject(
    widget({
      labels: { app: "shop" },
      spec: { suspend: true, size: 3 },
      status: { lastAppliedRevision: "main@sha1:6f8e" },
    }),
    settings.projection,
  );
  assert.deepEqual(state.extraLabels, {
    suspended: "true",
    spec_size: "3",
    revision: "main@sha1:6f8e",
    app: "shop",
  });
  // Not a scalar, or absent: an empty value (the label is always there, as for labels and annotations).
  const odd = projectObject(widget({ spec: { suspend: { nested: 1 }, size: null } }), settings.projection);
  assert.deepEqual(odd.extraLabels, { suspended: "", spec_size: "", revision: "", app: "" });
});

test("a new value is a new identity: every series of the object moves to it (the cardinality trap)", () => {
  const kind: KindSettings = {
    projection: settings.projection,
    readiness: defaultReadinessRules,
    generationSource: "status",
    phaseTransitions: undefined,
    render: newKindRender({
      group: "example.com",
      kind: "Widget",
      prefix: "cr_",
      selected: 1 << slotOf.status,
      extraLabelNames: options.labels.map((l) => l.name),
    }),
  };
  const learning = newKindLearning({ phaseEnum: [], maxReasons: 20 });
  const at = (revision: string, rv: string, previous?: ReturnType<typeof applyChange>["entry"]) =>
    applyChange(
      previous,
      widget({ resourceVersion: rv, status: { lastAppliedRevision: revision } }),
      kind,
      learning,
      0,
    ).entry;
  const first = at("r1", "1");
  const second = at("r2", "2", first);
  const text = (e: typeof first) => fromByteString(slotLines(e.series, slotOf.status));
  assert.match(text(first), /revision="r1"/);
  assert.match(text(second), /revision="r2"/);
  assert.doesNotMatch(text(second), /revision="r1"/);
});

test("labels in the configuration: the field, the value and what was expected", () => {
  const of = (labels: unknown) => problems({ resources: [{ groups: ["*"], labels }] });
  assert.deepEqual(of([{ fromPath: "spec..x" }]), [
    'resources[0].labels[0].fromPath: expected a dotted path to a scalar field such as spec.suspend, got "spec..x"',
  ]);
  assert.deepEqual(of([{ fromPath: "spec.a", fromLabel: "a" }]), [
    "resources[0].labels[0]: expected exactly one of fromLabel, fromAnnotation or fromPath",
  ]);
  assert.deepEqual(of([{ fromPath: "spec.a", name: "value" }]), [
    'resources[0].labels[0].name: "value" is reserved by the exporter\'s own labels; choose another name',
  ]);
  assert.deepEqual(
    of([
      { fromPath: "spec.a", name: "a" },
      { fromLabel: "a", name: "a" },
    ]),
    ['resources[0].labels[1].name: "a" is given twice'],
  );
});
