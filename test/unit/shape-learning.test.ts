// Detection that learns from objects, wired: the learner re-decides as a
// collector hands it the first objects (bounded) and says when the decision
// changed; the collector then judges what it holds again, without a relist.
import assert from "node:assert/strict";
import { test } from "node:test";
import { planFromCrds, replan } from "../../src/collectors/selection.ts";
import { decisionOf, ShapeLearner } from "../../src/collectors/shape-learner.ts";
import { validateConfig } from "../../src/config/validate.ts";
import { summarizeCrd } from "../../src/core/detect/crd.ts";
import { decideWithSamples, defaultSampleLimits, noSamples } from "../../src/core/detect/learn.ts";
import { detectVersions } from "../../src/core/detect/schema.ts";
import type { DetectedShape } from "../../src/core/detect/shape.ts";
import { offlineCollector, perObjectText } from "../support/collector.ts";
import { cond, widget } from "../support/objects.ts";
import { corpusGroup, loadCorpusCrd } from "../support/shapes-corpus.ts";

const runs = (version: string) => {
  const found = detectVersions(loadCorpusCrd("runs")).find((v) => v.version === version);
  assert.ok(found);
  return found;
};
const run = (conditions: unknown[]) => ({ metadata: { name: "r", uid: "u" }, status: { conditions } });

test("the learner decides Succeeded from the first object, says so once, and then wants no more", () => {
  const changes: [DetectedShape, DetectedShape][] = [];
  const learner = new ShapeLearner(runs("v1alpha1"), (previous, next) => changes.push([previous, next]));
  assert.equal(learner.shape.readiness.pending, true);
  assert.equal(
    learner.sample(run([{ type: "Succeeded", status: "Unknown" }])),
    false,
    "nothing left to learn",
  );
  assert.equal(changes.length, 1);
  assert.equal(changes[0]?.[0].readiness.condition, undefined);
  assert.equal(changes[0]?.[1].readiness.condition, "Succeeded");
  assert.equal(learner.sample(run([{ type: "Ready", status: "True" }])), false);
  assert.equal(learner.samples, 1);
  assert.equal(learner.shape.readiness.condition, "Succeeded");
});

test("an open status is learned from at most maxSamples objects; the same decision again is no change", () => {
  const blobs = detectVersions(loadCorpusCrd("blobs"))[0];
  assert.ok(blobs);
  let changes = 0;
  const learner = new ShapeLearner(blobs, () => changes++);
  const wanted: boolean[] = [];
  for (let i = 0; i < defaultSampleLimits.maxSamples + 5; i++)
    wanted.push(learner.sample(run([{ type: "Ready", status: "True" }])));
  assert.equal(learner.samples, defaultSampleLimits.maxSamples);
  assert.equal(
    wanted.indexOf(false),
    defaultSampleLimits.maxSamples - 1,
    "the last wanted object is the bound",
  );
  assert.equal(changes, 1, "conditions and Ready found once; later objects confirm it");
  assert.equal(learner.shape.readiness.condition, "Ready");
});

test("a schema that decides everything takes no samples", () => {
  const learner = new ShapeLearner(runs("v1"), () => assert.fail("no change expected"));
  assert.equal(learner.shape.learning, false);
  assert.equal(learner.sample(run([{ type: "Ready", status: "True" }])), false);
  assert.equal(learner.samples, 0);
});

test("a value that is not an object is no sample: the decision stays as it was, the same shape", () => {
  const blobs = detectVersions(loadCorpusCrd("blobs"))[0];
  assert.ok(blobs);
  const learner = new ShapeLearner(blobs, () => assert.fail("no change expected"));
  const before = learner.shape;
  assert.equal(learner.sample("not an object"), true, "still learning");
  assert.equal(learner.samples, 0);
  assert.equal(learner.shape, before, "not decided again: the plans keep the shape they hold");
});

test("the decision (as logged when it changes) names the other condition arrays found, an empty list when none", () => {
  const decision = (name: "rollouts" | "exports") => {
    const version = detectVersions(loadCorpusCrd(name))[0];
    assert.ok(version);
    return JSON.parse(decisionOf(decideWithSamples(version, noSamples))) as { others: unknown };
  };
  assert.deepEqual(decision("rollouts").others, ["status.deprecated.conditions"]);
  assert.deepEqual(decision("exports").others, [], "no conditions at all");
});

test("a collector judges what it holds again when the readiness condition is learned, and its info follows", async () => {
  const crd = summarizeCrd({
    ...loadCorpusCrd("runs"),
    status: { conditions: [{ type: "Established", status: "True" }] },
  });
  assert.ok(crd);
  const resources = validateConfig({
    resources: [{ group: corpusGroup, resource: "runs", version: "v1alpha1" }],
  }).resources;
  const [plan] = planFromCrds(resources, [crd]);
  assert.ok(plan?.shape && plan.detection);
  assert.equal(plan.readiness.readyCondition, "Ready", "pending: Ready stands in");
  const c = offlineCollector({ readyCondition: plan.readiness.readyCondition });
  // A failed run: Succeeded=False. While Ready stands in, the object has no Ready and is Current.
  c.collector.ingest(
    "ADDED",
    widget({
      status: { observedGeneration: 1, conditions: [cond("Succeeded", "False", "2026-01-01T00:59:00Z")] },
    }),
  );
  assert.match(await perObjectText(c), /cr_status\{[^}]*result="Current"\} 1/);

  const learner = new ShapeLearner(plan.detection, () => {});
  learner.sample(run([{ type: "Succeeded", status: "False" }]));
  const decided = replan(plan, learner.shape);
  assert.equal(decided.fingerprint, plan.fingerprint, "the same watch: no relist");
  c.collector.rejudge({
    ...c.collector.settings,
    kind: { ...c.collector.settings.kind, readiness: decided.readiness },
    info: decided.info,
  });
  assert.match(
    await perObjectText(c),
    /cr_status\{[^}]*result="Failed"\} 1/,
    "Succeeded=False: a failed run",
  );
  const info = await c.metrics.registry.metrics();
  assert.match(
    info,
    /cr_exporter_resource_info\{[^}]*ready_condition="Succeeded",readiness_source="observed"[^}]*\} 1/,
  );
  assert.doesNotMatch(info, /readiness_source="config"/, "the previous info series is gone");
});
