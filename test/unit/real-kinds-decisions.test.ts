// What zero-config exports for the real kinds of cert-manager, Flux, Argo CD,
// Crossplane, Cluster API and CloudNativePG (CRDs from the projects' Go
// modules): the plan the exporter makes from each CRD and its first objects
// (the drafts, in each project's status shape) — cr_exporter_resource_info's
// labels — and the cr_status of each draft through the per-object pipeline.
// docs/compatibility.md is this table.
import assert from "node:assert/strict";
import { test } from "node:test";
import { learned } from "../../src/cli/cluster.ts";
import { kindSettingsFor, planFromCrds } from "../../src/collectors/selection.ts";
import { validateConfig } from "../../src/config/validate.ts";
import { newKindLearning } from "../../src/core/change/label-bounds.ts";
import { applyChange } from "../../src/core/change/object-update.ts";
import { summarizeCrd } from "../../src/core/detect/crd.ts";
import { realCrd, realCrdsUnavailable, realKinds } from "../realcrds/index.ts";
import { draftBuilders } from "../realcrds/objects/index.ts";
import { zeroConfigExports as exported } from "../realcrds/zero-config.ts";

const unavailable = realCrdsUnavailable();

test("every real kind has an expectation", { skip: unavailable }, () => {
  assert.deepEqual(Object.keys(exported).sort(), realKinds.map((k) => k.id).sort());
});

for (const kind of realKinds) {
  test(`${kind.id}: what zero-config exports`, { skip: unavailable }, () => {
    const now = new Date();
    const crd = summarizeCrd({
      ...realCrd(kind),
      status: { conditions: [{ type: "Established", status: "True" }] },
    });
    assert.ok(crd);
    const [schemaPlan] = planFromCrds(validateConfig({}).resources, [crd]);
    assert.ok(schemaPlan);
    const drafts = draftBuilders[kind.id]?.({ now }) ?? [];
    const objects = drafts.map((draft, i) => {
      const terminating = draft.scenario === "terminating";
      return {
        metadata: {
          name: draft.scenario,
          namespace: "ns",
          uid: `uid-${i}`,
          resourceVersion: "1",
          generation: terminating ? 2 : 1,
          creationTimestamp: now.toISOString(),
          ...(terminating && { deletionTimestamp: now.toISOString() }),
        },
        spec: draft.spec,
        status: draft.status,
      };
    });
    const plan = learned(schemaPlan, objects);
    const settings = { ...kindSettingsFor(plan), render: undefined };
    const results = objects.map((raw, i) => {
      const learning = newKindLearning({ phaseEnum: plan.phases, maxReasons: 20 });
      const entry = applyChange(undefined, raw, settings, learning, now.getTime() / 1000).entry;
      return `${drafts[i]?.scenario}=${entry.summary}`;
    });
    const i = plan.info;
    const generation = `${i.observed_generation_source}${i.observed_generation_path ? ` ${i.observed_generation_path}` : ""}`;
    const row = [
      plan.identity.version,
      i.conditions_path || "-",
      generation,
      i.phase_path || "-",
      `${i.ready_condition || "-"} (${i.readiness_source})`,
      i.run_to_completion,
      i.condition_times || "-",
      results.join(" "),
    ].join(" | ");
    assert.equal(row, exported[kind.id]);
  });
}
