// Proves the test control plane behaves like a real cluster in the ways the
// rest of the suite relies on: generation semantics, /status, conflicts, RBAC.
import assert from "node:assert/strict";
import { test } from "node:test";
import {
  ControlPlane,
  changeSpec,
  condition,
  createCr,
  getCr,
  installCrd,
  KubeRestError,
  loadFixtureCrd,
  patchStatus,
  refFor,
  updateStatus,
  useControlPlane,
} from "../cluster/index.ts";

const testbed = useControlPlane();

test("all four fixture CRDs become Established and are served", async () => {
  const { admin } = testbed.plane;
  for (const name of ["widgets", "gadgets", "sprockets", "gizmos"] as const) {
    await installCrd(admin.rest, name);
  }
  const gizmo = loadFixtureCrd("gizmos");
  assert.deepEqual(
    gizmo.spec.versions.map((v) => v.name),
    ["v1beta1", "v1"],
  );
  for (const version of ["v1beta1", "v1"]) {
    const list = await admin.rest.get<{ items: unknown[] }>(`/apis/example.com/${version}/gizmos`);
    assert.deepEqual(list.items, []);
  }
  const gadgets = await admin.rest.get<{ items: unknown[] }>("/apis/example.com/v1/gadgets");
  assert.deepEqual(gadgets.items, [], "cluster-scoped kind is listed without a namespace");
});

test("generation: create → 1, spec change → 2, /status write leaves it alone", async () => {
  const { admin } = testbed.plane;
  const ns = await testbed.plane.createNamespace();
  const ref = refFor("widgets", ns, "w1");
  const created = await createCr(admin.rest, ref, "w1", { size: 1 });
  assert.equal(created.metadata.generation, 1);

  const changed = await changeSpec(admin.rest, ref, { size: 2 });
  assert.equal(changed.metadata.generation, 2);

  const statusWritten = await patchStatus(admin.rest, ref, {
    observedGeneration: 2,
    phase: "Running",
    conditions: [condition("Ready", "True", "Reconciled", "all good", 2)],
  });
  assert.equal(statusWritten.metadata.generation, 2, "a /status write must not bump generation");
  assert.notEqual(statusWritten.metadata.resourceVersion, changed.metadata.resourceVersion);
  assert.equal(statusWritten.status?.phase, "Running");

  // Status sent to the main resource is ignored when the CRD has a status subresource.
  const ignored = await admin.rest.patch<{ status?: { phase?: string }; metadata: { generation: number } }>(
    `/apis/example.com/v1/namespaces/${ns}/widgets/w1`,
    { status: { phase: "Failed" } },
  );
  assert.equal(ignored.status?.phase, "Running");
  assert.equal(ignored.metadata.generation, 2);
});

test("a status update with a stale resourceVersion gets 409 Conflict", async () => {
  const { admin } = testbed.plane;
  const ns = await testbed.plane.createNamespace();
  const ref = refFor("widgets", ns, "w1");
  await createCr(admin.rest, ref, "w1", { size: 1 });
  const stale = await getCr(admin.rest, ref);
  await patchStatus(admin.rest, ref, { phase: "Provisioning" });

  const attempt = updateStatus(admin.rest, ref, { ...stale, status: { phase: "Running" } });
  await assert.rejects(attempt, (error: unknown) => error instanceof KubeRestError && error.status === 409);

  // The same update with the current resourceVersion succeeds.
  const fresh = await getCr(admin.rest, ref);
  const updated = await updateStatus(admin.rest, ref, { ...fresh, status: { phase: "Running" } });
  assert.equal(updated.status?.phase, "Running");
});

test("a write to the main resource with a stale resourceVersion gets 409 Conflict", async () => {
  const { admin } = testbed.plane;
  const ns = await testbed.plane.createNamespace();
  const ref = refFor("widgets", ns, "w1");
  const created = await createCr(admin.rest, ref, "w1", { size: 1 });
  await changeSpec(admin.rest, ref, { size: 2 });
  const response = await admin.rest.raw("PUT", `/apis/example.com/v1/namespaces/${ns}/widgets/w1`, {
    ...created,
    spec: { size: 3 },
  });
  assert.equal(response.status, 409);
  assert.equal((response.body as { reason?: string }).reason, "Conflict");
});

test("a status that violates the CRD schema gets 422 Invalid", async () => {
  const { admin } = testbed.plane;
  const ns = await testbed.plane.createNamespace();
  const ref = refFor("widgets", ns, "w1");
  await createCr(admin.rest, ref, "w1");
  await assert.rejects(
    patchStatus(admin.rest, ref, { phase: "NotAPhase" }),
    (error: unknown) => error instanceof KubeRestError && error.status === 422,
  );
});

test("RBAC: a restricted user gets 403 where its Role does not reach and 200 where it does", async () => {
  const { plane } = testbed;
  const allowed = await plane.createNamespace("allowed");
  const other = await plane.createNamespace("other");
  await createCr(plane.admin.rest, refFor("widgets", allowed, "w1"), "w1");
  await createCr(plane.admin.rest, refFor("widgets", other, "w1"), "w1");

  const reader = plane.mintUser();
  const before = await reader.rest.raw("GET", `/apis/example.com/v1/namespaces/${allowed}/widgets`);
  assert.equal(before.status, 403, "a fresh user has no permissions");

  await plane.grant(reader, allowed, [
    { apiGroups: ["example.com"], resources: ["widgets"], verbs: ["get", "list", "watch"] },
  ]);
  const granted = await reader.rest.raw<{ items: unknown[] }>(
    "GET",
    `/apis/example.com/v1/namespaces/${allowed}/widgets`,
  );
  assert.equal(granted.status, 200);
  assert.equal(granted.body.items.length, 1);

  assert.equal(
    (await reader.rest.raw("GET", `/apis/example.com/v1/namespaces/${other}/widgets`)).status,
    403,
  );
  assert.equal(
    (await reader.rest.raw("GET", "/apis/example.com/v1/widgets")).status,
    403,
    "no cluster-wide list",
  );
  assert.equal((await reader.rest.raw("GET", "/apis/example.com/v1/gadgets")).status, 403);
  const statusWrite = await reader.rest.raw(
    "PATCH",
    `/apis/example.com/v1/namespaces/${allowed}/widgets/w1/status`,
    { status: { phase: "Running" } },
    { contentType: "application/merge-patch+json" },
  );
  assert.equal(statusWrite.status, 403, "the Role does not grant widgets/status");
});

test("the kind without a status subresource bumps generation on a status change", async () => {
  const { admin } = testbed.plane;
  const ns = await testbed.plane.createNamespace();
  const ref = refFor("sprockets", ns, "s1");
  const created = await createCr(admin.rest, ref, "s1", { size: 1 });
  assert.equal(created.metadata.generation, 1);
  const written = await admin.rest.patch<{ metadata: { generation: number }; status?: { phase?: string } }>(
    `/apis/example.com/v1/namespaces/${ns}/sprockets/s1`,
    { status: { phase: "Running", conditions: [condition("Ready", "True")] } },
  );
  assert.equal(written.status?.phase, "Running");
  assert.equal(written.metadata.generation, 2);
  const noStatusSubresource = await admin.rest.raw(
    "GET",
    `/apis/example.com/v1/namespaces/${ns}/sprockets/s1/status`,
  );
  assert.equal(noStatusSubresource.status, 404);
});

test("two control planes run side by side on different ports and stop cleanly", async () => {
  const second = await ControlPlane.start();
  try {
    assert.notEqual(second.server, testbed.plane.server);
    const version = await second.admin.rest.get<{ gitVersion: string }>("/version");
    assert.match(version.gitVersion, /^v1\.\d+\.\d+/);
    console.error(`# second control plane ready in ${second.startMs} ms`);
  } finally {
    await second.stop();
  }
  const gone = await second.admin.rest.raw("GET", "/readyz").then(
    () => "answered",
    () => "refused",
  );
  assert.equal(gone, "refused");
});
