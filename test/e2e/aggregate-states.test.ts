// Aggregate mode on real CRDs: Argo CD's Application (judged by its health and
// sync state fields) and Flux's Kustomization (spec.suspend) from their Go
// modules on the testbed, the exporter with `mode: aggregate` for both. The
// per-namespace counts say how many Applications hold each health and sync
// value and how many Kustomizations are suspended — with no per-object series
// — and follow an Application that recovers.
import assert from "node:assert/strict";
import { before, test } from "node:test";
import { crPath, installCrd, useControlPlane } from "../cluster/index.ts";
import { realCrds, realCrdsUnavailable } from "../realcrds/index.ts";
import { draftBuilders } from "../realcrds/objects/index.ts";
import { placeDraft, refOf } from "../realcrds/testbed.ts";
import { eventually, runExporter } from "../support/exporter.ts";

const unavailable = realCrdsUnavailable();
const testbed = useControlPlane();

before(async () => {
  if (unavailable) return;
  const { rest } = (await testbed.ready()).admin;
  for (const { crd } of realCrds(["argo-cd/Application", "flux/Kustomization"])) await installCrd(rest, crd);
});

test("aggregate mode counts state values and suspended objects per namespace, and follows changes", {
  skip: unavailable,
}, async (t) => {
  const { admin } = testbed.plane;
  const [{ crd: application } = { crd: undefined }, { crd: kustomization } = { crd: undefined }] = realCrds([
    "argo-cd/Application",
    "flux/Kustomization",
  ]);
  assert.ok(application && kustomization);
  const ns = await testbed.plane.createNamespace("fleet");
  const handle = await runExporter(testbed.plane.kubeconfigPath, {
    resources: [
      { groups: ["argoproj.io"], mode: "aggregate" },
      { groups: ["kustomize.toolkit.fluxcd.io"], mode: "aggregate" },
    ],
  });
  t.after(() => handle.stop());
  await eventually("exporter ready", async () => (await fetch(`${handle.exporter.url}/readyz`)).ok, 30_000);

  const apps = draftBuilders["argo-cd/Application"]?.({ now: new Date() }) ?? [];
  const flux = draftBuilders["flux/Kustomization"]?.({ now: new Date() }) ?? [];
  const draft = <T extends { scenario: string }>(list: T[], scenario: string): T => {
    const found = list.find((d) => d.scenario === scenario);
    assert.ok(found, scenario);
    return found;
  };
  await placeDraft(admin.rest, application, ns, "shop", draft(apps, "healthy"));
  await placeDraft(admin.rest, application, ns, "cart", draft(apps, "healthy"));
  await placeDraft(admin.rest, application, ns, "broken", draft(apps, "failed"));
  await placeDraft(admin.rest, kustomization, ns, "paused", draft(flux, "suspended"));
  await placeDraft(admin.rest, kustomization, ns, "running", draft(flux, "healthy"));

  const app = `group="argoproj.io",kind="Application",namespace="${ns}"`;
  const ks = `group="kustomize.toolkit.fluxcd.io",kind="Kustomization",namespace="${ns}"`;
  /** Waits until every wanted sample has its value; says what was seen otherwise. */
  const counted = async (what: string, want: Record<string, number>) => {
    let seen: string[] = [];
    await eventually(
      what,
      async () => {
        const { samples } = await handle.scrape();
        seen = [...samples.entries()]
          .filter(([k]) => k.startsWith("cr_aggregate"))
          .map(([k, v]) => `${k} ${v}`);
        return Object.entries(want).every(([k, v]) => samples.get(k) === v);
      },
      20_000,
    ).catch((error) => {
      throw new Error(`${(error as Error).message}\nseen:\n${seen.join("\n")}`);
    });
  };
  await counted("the counts of the five objects", {
    [`cr_aggregate_objects{${app}}`]: 3,
    [`cr_aggregate_state_objects{${app},field="health",value="Healthy"}`]: 2,
    [`cr_aggregate_state_objects{${app},field="health",value="Degraded"}`]: 1,
    [`cr_aggregate_state_objects{${app},field="sync",value="Synced"}`]: 2,
    [`cr_aggregate_state_objects{${app},field="sync",value="OutOfSync"}`]: 1,
    [`cr_aggregate_objects{${ks}}`]: 2,
    [`cr_aggregate_suspended_objects{${ks}}`]: 1,
  });
  const { samples, text } = await handle.scrape();
  assert.equal(samples.has(`cr_aggregate_suspended_objects{${app}}`), false, "no Application is suspended");
  assert.doesNotMatch(text, /^cr_(state|suspended|status)\{/m, "no per-object series in aggregate mode");

  // Argo CD syncs the broken one and it comes back healthy: its values move to the others' counts.
  await admin.rest.patch(
    crPath(refOf(application, ns, "broken")),
    { status: { health: { status: "Healthy" }, sync: { status: "Synced" } } },
    "merge",
  );
  await counted("the counts after the Application recovered", {
    [`cr_aggregate_state_objects{${app},field="health",value="Healthy"}`]: 3,
    [`cr_aggregate_state_objects{${app},field="sync",value="Synced"}`]: 3,
  });
  const after = (await handle.scrape()).samples;
  assert.equal(after.has(`cr_aggregate_state_objects{${app},field="health",value="Degraded"}`), false);
  assert.equal(after.has(`cr_aggregate_state_objects{${app},field="sync",value="OutOfSync"}`), false);
});
