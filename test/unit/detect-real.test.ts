// Schema → detected status shape for the real CRDs of cert-manager, Flux,
// Argo CD, Crossplane, Cluster API and CloudNativePG (from the projects' Go
// modules, in the module cache), and the decision once the kinds' objects
// (drafts in each project's status shape) are seen.
import assert from "node:assert/strict";
import { test } from "node:test";
import { shapeLogFields } from "../../src/core/detect/describe.ts";
import {
  addSample,
  decideWithSamples,
  detectShapes,
  noSamples,
  type Samples,
} from "../../src/core/detect/learn.ts";
import { detectVersions } from "../../src/core/detect/schema.ts";
import { learnedShapes, schemaShapes } from "../realcrds/expected-shapes.ts";
import { realCrd, realCrdsUnavailable, realKinds } from "../realcrds/index.ts";
import { draftBuilders } from "../realcrds/objects/index.ts";
import { decisions, summarize } from "../support/shape-summary.ts";

const unavailable = realCrdsUnavailable();
if (unavailable) console.error(`# skipping the real-CRD detection tests: ${unavailable}`);

function draftSamples(id: string): Samples {
  const builder = draftBuilders[id];
  assert.ok(builder, `${id} has no drafts`);
  return builder({ now: new Date("2026-01-01T00:00:00Z") }).reduce<Samples>(
    (samples, draft) =>
      addSample(samples, { metadata: { name: draft.scenario }, spec: draft.spec, status: draft.status }),
    noSamples,
  );
}

test("every real kind and served version has an expectation, and nothing else", { skip: unavailable }, () => {
  const keys = realKinds.flatMap((kind) => detectShapes(realCrd(kind)).map((s) => `${kind.id} ${s.version}`));
  assert.deepEqual(keys.sort(), Object.keys(schemaShapes).sort());
  assert.deepEqual(realKinds.map((k) => k.id).sort(), Object.keys(learnedShapes).sort());
});

for (const kind of realKinds) {
  test(`${kind.id}: detected from the schema of each served version`, { skip: unavailable }, () => {
    for (const shape of detectShapes(realCrd(kind))) {
      assert.deepEqual(
        summarize(shape),
        schemaShapes[`${kind.id} ${shape.version}`],
        `${kind.id} ${shape.version}`,
      );
    }
  });

  test(`${kind.id}: decided once its objects are seen`, { skip: unavailable }, () => {
    const storage = detectVersions(realCrd(kind)).find((v) => v.storage);
    assert.ok(storage, `${kind.id} has no storage version`);
    const before = schemaShapes[`${kind.id} ${storage.version}`];
    assert.ok(before);
    const shape = decideWithSamples(storage, draftSamples(kind.id));
    assert.deepEqual(decisions(summarize(shape)), decisions({ ...before, ...learnedShapes[kind.id] }));
  });
}

test("Argo CD Application: its status.conditions are set aside, health and sync say readiness", {
  skip: unavailable,
}, () => {
  const kind = realKinds.find((k) => k.id === "argo-cd/Application");
  assert.ok(kind);
  const [shape] = detectShapes(realCrd(kind));
  assert.ok(shape);
  assert.match(
    shape.notes.join("\n"),
    /status\.conditions: entries lack a string type and status, not conditions/,
  );
  assert.equal(shape.readiness.why, "no conditions; ready when health Healthy and sync Synced");
  // status.operationState.phase is the last sync's phase, nested: not the object's phase.
  assert.equal(shape.phase, undefined);
  assert.deepEqual(shape.warnings, ["no status subresource: every status write bumps metadata.generation"]);
});

test("Cluster API: status.conditions chosen over the other version's conditions, which are named", {
  skip: unavailable,
}, () => {
  const kind = realKinds.find((k) => k.id === "cluster-api/Machine");
  assert.ok(kind);
  const byVersion = new Map(detectShapes(realCrd(kind)).map((s) => [s.version, s]));
  assert.equal(
    byVersion.get("v1beta2")?.conditions?.why,
    "status.conditions is the conventional place; also found: status.deprecated.v1beta1.conditions",
  );
  assert.equal(
    byVersion.get("v1beta1")?.conditions?.why,
    "status.conditions is the conventional place; also found: status.v1beta2.conditions",
  );
  // Unserved versions (v1alpha3, v1alpha4) get no decision.
  assert.deepEqual([...byVersion.keys()], ["v1beta1", "v1beta2"]);
});

test("Crossplane Provider: no readiness condition among the learned types is said, not guessed", {
  skip: unavailable,
}, () => {
  const kind = realKinds.find((k) => k.id === "crossplane/Provider");
  assert.ok(kind);
  const storage = detectVersions(realCrd(kind)).find((v) => v.storage);
  assert.ok(storage);
  const limits = { maxSamples: 5, maxDepth: 6, maxValues: 32, maxPaths: 16 };
  const shape = decideWithSamples(storage, draftSamples(kind.id), limits);
  assert.equal(shape.readiness.condition, undefined);
  assert.match(
    String(shapeLogFields(shape).readinessWhy),
    /objects carry none of Ready, Succeeded, Available \(only Healthy, Installed, Synced\)/,
  );
  assert.ok(shape.warnings.some((w) => /set readyCondition to choose one/.test(w)));
});
