// The CRDs of cert-manager, Flux, Argo CD, Crossplane, Cluster API and
// CloudNativePG, read from the projects' Go modules, installed on the testbed;
// the compatibility corpus beside them; and objects in each project's status
// shape (healthy, progressing, failed, suspended, terminating) accepted by
// the real schemas with strict field validation.
import assert from "node:assert/strict";
import { before, test } from "node:test";
import { addSample, decideWithSamples, noSamples, type Samples } from "../../src/core/detect/learn.ts";
import { detectVersions } from "../../src/core/detect/schema.ts";
import { type CrdManifest, crPath, installCrd, KubeRestError, useControlPlane } from "../cluster/index.ts";
import { learnedShapes, schemaShapes } from "../realcrds/expected-shapes.ts";
import { type RealKind, realCrds, realCrdsUnavailable, servedVersions } from "../realcrds/index.ts";
import { draftBuilders, scenarios } from "../realcrds/objects/index.ts";
import {
  missingFrom,
  type PlacedObject,
  placeDraft,
  refOf,
  release,
  storageVersion,
} from "../realcrds/testbed.ts";
import { corpusDrafts } from "../support/corpus-drafts.ts";
import { decisions, summarize } from "../support/shape-summary.ts";
import { corpusNames, loadCorpusCrd } from "../support/shapes-corpus.ts";

const testbed = useControlPlane();
const unavailable = realCrdsUnavailable();

/** The kinds every release is checked against (the compatibility list). */
const listed = [
  "cert-manager/Certificate",
  "cert-manager/Issuer",
  "cert-manager/ClusterIssuer",
  "cert-manager/CertificateRequest",
  "flux/Kustomization",
  "flux/HelmRelease",
  "flux/GitRepository",
  "flux/HelmRepository",
  "flux/OCIRepository",
  "argo-cd/Application",
  "crossplane/CompositeResourceDefinition",
  "crossplane/Composition",
  "crossplane/Provider",
  "crossplane/Object",
  "cluster-api/Cluster",
  "cluster-api/Machine",
  "cluster-api/MachineDeployment",
  "cloudnative-pg/Cluster",
];

let installed: { kind: RealKind; crd: CrdManifest }[] = [];

before(async () => {
  if (unavailable) return;
  const { rest } = (await testbed.ready()).admin;
  installed = realCrds();
  console.error(`# real CRDs from ${servedVersions().join(", ")}`);
  const started = performance.now();
  for (const { crd } of installed) await installCrd(rest, crd);
  console.error(
    `# ${installed.length} real CRDs Established in ${Math.round(performance.now() - started)} ms`,
  );
});

test("every listed kind's CRD, from its project's module, is Established and served", {
  skip: unavailable,
}, async () => {
  const { rest } = testbed.plane.admin;
  assert.deepEqual(
    installed.filter(({ kind }) => kind.listed).map(({ kind }) => kind.id),
    listed,
    "the catalog's listed kinds are the compatibility list",
  );
  for (const { kind, crd } of installed) {
    const current = await rest.get<{ status?: { conditions?: { type: string; status: string }[] } }>(
      `/apis/apiextensions.k8s.io/v1/customresourcedefinitions/${crd.metadata.name}`,
    );
    const established = current.status?.conditions?.find((c) => c.type === "Established");
    assert.equal(established?.status, "True", `${kind.id}: Established is ${JSON.stringify(established)}`);
    const version = storageVersion(crd).name;
    const list = await rest.get<{ items: unknown[] }>(
      `/apis/${crd.spec.group}/${version}/${crd.spec.names.plural}`,
    );
    assert.deepEqual(list.items, [], `${kind.id} ${version} is served and empty`);
  }
});

test("the compatibility corpus: CRDs Established, objects of each shape accepted, status as written", async (t) => {
  const { rest } = testbed.plane.admin;
  const namespace = await testbed.plane.createNamespace("corpus");
  const clock = { now: new Date() };
  const crds = [];
  for (const name of corpusNames) crds.push(await installCrd(rest, loadCorpusCrd(name)));
  for (const [index, name] of corpusNames.entries()) {
    const crd = crds[index] as CrdManifest;
    const drafts = corpusDrafts[name](clock);
    await t.test(`${name}: ${drafts.map((d) => d.scenario).join(", ")}`, async () => {
      for (const draft of drafts) {
        const placed = await placeDraft(rest, crd, namespace, `${name}-${draft.scenario}`, draft);
        assert.deepEqual(missingFrom(placed.served.status, draft.status), [], `${name} ${draft.scenario}`);
      }
    });
  }
});

test("conditions without lastTransitionTime in the schema: the API server refuses or prunes one", async () => {
  const { rest } = testbed.plane.admin;
  const namespace = await testbed.plane.createNamespace("beacon");
  const crd = loadCorpusCrd("beacons");
  const [healthy] = corpusDrafts.beacons({ now: new Date() });
  assert.ok(healthy?.status);
  const withTime = {
    ...healthy,
    status: {
      ...healthy.status,
      conditions: [{ type: "Ready", status: "True", lastTransitionTime: "2026-01-01T00:00:00Z" }],
    },
  };
  await assert.rejects(
    placeDraft(rest, crd, namespace, "strict", withTime),
    /unknown field "status\.conditions\[0\]\.lastTransitionTime"/,
  );
  // A controller that does not ask for strict validation loses the field without an error.
  const ref = refOf(crd, namespace, "lenient");
  await rest.create(crPath({ ...ref, name: undefined }), {
    apiVersion: `${ref.group}/${ref.version}`,
    kind: crd.spec.names.kind,
    metadata: { name: "lenient" },
    spec: healthy.spec,
  });
  const written = await rest.patch<{ status: { conditions: Record<string, unknown>[] } }>(
    crPath(ref, "status"),
    { status: withTime.status },
    "merge",
  );
  assert.deepEqual(written.status.conditions, [{ type: "Ready", status: "True" }]);
});

test("strict field validation bites: a status field the real schema lacks is refused", {
  skip: unavailable,
}, async () => {
  const { rest } = testbed.plane.admin;
  const namespace = await testbed.plane.createNamespace("strict");
  // Certificate: status written through /status; Application: with the object (no subresource).
  for (const [id, field] of [
    ["cert-manager/Certificate", "observedGeneration"],
    ["argo-cd/Application", "phase"],
  ] as const) {
    const entry = installed.find(({ kind }) => kind.id === id);
    const [draft] = draftBuilders[id]?.({ now: new Date() }) ?? [];
    assert.ok(entry && draft, id);
    const bogus = { ...draft, status: { ...draft.status, [field]: 1 } };
    await assert.rejects(
      placeDraft(rest, entry.crd, namespace, "bogus", bogus),
      (error: unknown) =>
        error instanceof KubeRestError && new RegExp(`unknown field "status\\.${field}"`).test(error.message),
      `${id}: status.${field} accepted`,
    );
  }
});

test("realistic objects of every real kind are accepted by the real schemas, status as written", {
  skip: unavailable,
}, async (t) => {
  const { rest } = testbed.plane.admin;
  const namespace = await testbed.plane.createNamespace("real");
  const clock = { now: new Date() };
  const held: PlacedObject[] = [];
  t.after(async () => {
    for (const placed of held) await release(rest, placed.ref);
  });
  const seen: string[] = [];
  for (const { kind, crd } of installed) {
    const builder = draftBuilders[kind.id];
    assert.ok(builder, `${kind.id} has no drafts`);
    const drafts = builder(clock);
    await t.test(`${kind.id}: ${drafts.map((d) => d.scenario).join(", ")}`, async () => {
      let samples: Samples = noSamples;
      for (const draft of drafts) {
        const name = `${kind.kind.toLowerCase()}-${draft.scenario}`;
        const placed = await placeDraft(rest, crd, namespace, name, draft);
        if (draft.scenario === "terminating") held.push(placed);
        const what = `${kind.id} ${draft.scenario} (${draft.about})`;
        if (draft.status) {
          assert.deepEqual(
            missingFrom(placed.served.status, draft.status),
            [],
            `${what}: status not as written`,
          );
        } else {
          assert.equal(placed.served.status, undefined, `${what}: a status appeared`);
        }
        const metadata = placed.served.metadata as {
          generation?: number;
          deletionTimestamp?: string;
          finalizers?: string[];
        };
        // Setting deletionTimestamp counts as a change of a custom resource: generation 2.
        assert.equal(metadata.generation, draft.scenario === "terminating" ? 2 : 1, `${what}: generation`);
        if (draft.scenario === "terminating") {
          assert.ok(metadata.deletionTimestamp, `${what}: no deletionTimestamp after delete`);
          assert.deepEqual(metadata.finalizers, draft.finalizers, `${what}: finalizers`);
        }
        seen.push(`${kind.id} ${draft.scenario}`);
        samples = addSample(samples, placed.served);
      }
      // The objects as the API server serves them lead detection to the same decisions as the drafts.
      const storage = detectVersions(crd).find((v) => v.storage);
      assert.ok(storage);
      const fromSchema = schemaShapes[`${kind.id} ${storage.version}`];
      assert.ok(fromSchema, `${kind.id} ${storage.version} has no expectation`);
      const decided = decisions(summarize(decideWithSamples(storage, samples)));
      const expected = decisions({ ...fromSchema, ...learnedShapes[kind.id] });
      assert.deepEqual(decided, expected, `${kind.id}: decisions from the served objects`);
    });
  }
  // Every kind has a healthy and a terminating object; every stage appears for some kind.
  for (const id of listed) {
    for (const scenario of ["healthy", "terminating"])
      assert.ok(seen.includes(`${id} ${scenario}`), `${id} ${scenario}`);
  }
  for (const scenario of scenarios)
    assert.ok(
      seen.some((s) => s.endsWith(` ${scenario}`)),
      scenario,
    );
  console.error(`# ${seen.length} objects of ${installed.length} real kinds accepted`);
});
