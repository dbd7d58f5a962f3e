// A CRD object → the summary the exporter keeps: names, scope, categories,
// labels, whether it is established, and its versions; anything that is not a
// usable CRD is skipped (undefined), never an error.
import assert from "node:assert/strict";
import { test } from "node:test";
import { pickVersion, summarizeCrd } from "../../src/core/detect/crd.ts";

const schema = { openAPIV3Schema: { type: "object", properties: { status: { type: "object" } } } };
const version = (name: string, served: boolean, storage: boolean) => ({ name, served, storage, schema });

function crd(overrides: { metadata?: unknown; spec?: Record<string, unknown>; status?: unknown } = {}) {
  return {
    metadata: { name: "widgets.example.com", labels: { team: "a" } },
    spec: {
      group: "example.com",
      scope: "Namespaced",
      names: { kind: "Widget", plural: "widgets", categories: ["all", "example"] },
      versions: [version("v1", true, true)],
      ...overrides.spec,
    },
    status: { conditions: [{ type: "Established", status: "True" }] },
    ...("metadata" in overrides ? { metadata: overrides.metadata } : {}),
    ...("status" in overrides ? { status: overrides.status } : {}),
  };
}

test("a CRD object is summarized: names, scope, categories, labels, established, versions", () => {
  const summary = summarizeCrd(crd());
  assert.ok(summary);
  const { versions, ...rest } = summary;
  assert.deepEqual(rest, {
    name: "widgets.example.com",
    group: "example.com",
    kind: "Widget",
    plural: "widgets",
    namespaced: true,
    categories: ["all", "example"],
    labels: { team: "a" },
    established: true,
  });
  assert.deepEqual(
    versions.map((v) => [v.version, v.served, v.storage]),
    [["v1", true, true]],
  );
});

test("scope Cluster is the only cluster-scoped one; anything else (or none) is namespaced", () => {
  assert.equal(summarizeCrd(crd({ spec: { scope: "Cluster" } }))?.namespaced, false);
  assert.equal(summarizeCrd(crd({ spec: { scope: undefined } }))?.namespaced, true);
});

test("non-string categories and label values are dropped, and odd containers read as empty", () => {
  const odd = summarizeCrd(
    crd({
      metadata: { name: "w.example.com", labels: { team: "a", replicas: 3, on: true, gone: null } },
      spec: { names: { kind: "Widget", plural: "widgets", categories: ["all", 7, null, "x"] } },
    }),
  );
  assert.deepEqual(odd?.categories, ["all", "x"]);
  assert.deepEqual(odd?.labels, { team: "a" });
  for (const categories of [undefined, "all", { 0: "all" }]) {
    const summary = summarizeCrd(crd({ spec: { names: { kind: "Widget", plural: "widgets", categories } } }));
    assert.deepEqual(summary?.categories, [], JSON.stringify(categories));
  }
  for (const labels of [undefined, ["team"], "team=a", null]) {
    const summary = summarizeCrd(crd({ metadata: { name: "w.example.com", labels } }));
    assert.deepEqual(summary?.labels, {}, JSON.stringify(labels));
  }
});

test("established only with an Established condition whose status is True", () => {
  const established = (status: unknown) => summarizeCrd(crd({ status }))?.established;
  assert.equal(established({ conditions: [{ type: "Established", status: "True" }] }), true);
  assert.equal(established({ conditions: [{ type: "Established", status: "False" }] }), false);
  assert.equal(established({ conditions: [{ type: "NamesAccepted", status: "True" }] }), false);
  assert.equal(
    established({
      conditions: [
        { type: "NamesAccepted", status: "True" },
        { type: "Established", status: "True" },
      ],
    }),
    true,
    "any of the conditions",
  );
  assert.equal(
    established({ conditions: [null, "Established", { type: "Established", status: "True" }] }),
    true,
  );
  assert.equal(established({ conditions: { type: "Established", status: "True" } }), false, "not a list");
  assert.equal(established({}), false);
  assert.equal(established(undefined), false);
  assert.equal(established([]), false);
});

test("anything that is not a usable CRD object is skipped", () => {
  for (const raw of [undefined, null, "crd", 7, [], [crd()]]) assert.equal(summarizeCrd(raw), undefined);
  assert.equal(summarizeCrd(crd({ metadata: undefined })), undefined, "no metadata");
  assert.equal(summarizeCrd(crd({ metadata: [] })), undefined, "metadata is a list");
  assert.equal(summarizeCrd({ ...crd(), spec: undefined }), undefined, "no spec");
  assert.equal(summarizeCrd({ ...crd(), spec: [] }), undefined, "spec is a list");
  assert.equal(summarizeCrd(crd({ spec: { names: undefined } })), undefined, "no names");
  assert.equal(summarizeCrd(crd({ spec: { names: null } })), undefined, "names is null");
  assert.equal(summarizeCrd(crd({ metadata: { name: 7 } })), undefined, "name not a string");
  assert.equal(summarizeCrd(crd({ spec: { group: undefined } })), undefined, "no group");
  assert.equal(summarizeCrd(crd({ spec: { names: { plural: "widgets" } } })), undefined, "no kind");
  assert.equal(summarizeCrd(crd({ spec: { names: { kind: "Widget" } } })), undefined, "no plural");
});

test("the version to watch: the requested one if served, else the served storage version, else the first served", () => {
  const of = (versions: unknown[], requested?: string) => {
    const summary = summarizeCrd(crd({ spec: { versions } }));
    assert.ok(summary);
    return pickVersion(summary, requested)?.version;
  };
  const versions = [
    version("v1alpha1", false, false),
    version("v1beta1", true, false),
    version("v1", true, true),
  ];
  assert.equal(of(versions), "v1", "the storage version");
  assert.equal(of(versions, "v1beta1"), "v1beta1", "the requested one");
  assert.equal(of(versions, "v1alpha1"), undefined, "requested but not served");
  assert.equal(of(versions, "v2"), undefined, "requested but absent: no fallback");
  assert.equal(
    of([version("v1alpha1", false, false), version("v1beta1", true, false), version("v1", false, true)]),
    "v1beta1",
    "the storage version is not served: the first served one",
  );
  assert.equal(of([version("v1", false, true)]), undefined, "nothing served");
  assert.equal(of([version("v1beta2", true, false), version("v1beta1", true, false)]), "v1beta2");
});
