// Lease-based leader election against a real kube-apiserver: one leader at a
// time, hand-over on release, take-over after expiry, no double win on a race.
import assert from "node:assert/strict";
import { test } from "node:test";
import { createKubeClient } from "../../src/kube/client.ts";
import { loadKubeConfig } from "../../src/kube/kubeconfig.ts";
import { LeaseElector, type LeaseElectorOptions } from "../../src/kube/lease-elector.ts";
import { createLogger, silentLogger } from "../../src/log.ts";
import { useControlPlane, waitUntil } from "../cluster/index.ts";

const testbed = useControlPlane();

interface LeaseBody {
  spec: {
    holderIdentity?: string;
    leaseTransitions?: number;
    leaseDurationSeconds?: number;
    renewTime?: string;
  };
}

/** An elector with the exporter's own Kubernetes client, as the admin user. */
async function elector(namespace: string, identity: string, name = "tracing"): Promise<LeaseElector> {
  const client = createKubeClient(
    await loadKubeConfig({ path: testbed.plane.kubeconfigPath, context: undefined }),
  );
  const options: LeaseElectorOptions = {
    request: client.request,
    namespace,
    name,
    identity,
    leaseDurationMs: 2_000,
    renewDeadlineMs: 1_500,
    retryPeriodMs: 200,
    logger: process.env.LEASE_DEBUG ? createLogger({ level: "debug" }) : silentLogger,
  };
  return new LeaseElector(options);
}

test("two electors: one leads, the Lease names it, release hands over at once", async () => {
  const { admin } = testbed.plane;
  const ns = await testbed.plane.createNamespace("lease");
  const a = await elector(ns, "replica-a");
  const b = await elector(ns, "replica-b");
  try {
    assert.equal(await a.tryAcquireOrRenew(), true, "a creates the Lease");
    assert.equal(await b.tryAcquireOrRenew(), false, "b finds it held");
    const lease = await admin.rest.get<LeaseBody>(
      `/apis/coordination.k8s.io/v1/namespaces/${ns}/leases/tracing`,
    );
    assert.equal(lease.spec.holderIdentity, "replica-a");
    assert.equal(lease.spec.leaseDurationSeconds, 2);
    assert.match(lease.spec.renewTime ?? "", /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/);

    a.start();
    b.start();
    // Held for longer than one lease duration, renewed all along: b, retrying
    // every 200 ms, saw the Lease and never took it.
    const acquiredAtMs = Date.parse(lease.spec.renewTime ?? "");
    let seen = lease.spec;
    let bLed = false;
    await waitUntil("a renewed the Lease 2.5 s past its first renewTime", 60_000, async () => {
      seen = (await admin.rest.get<LeaseBody>(`/apis/coordination.k8s.io/v1/namespaces/${ns}/leases/tracing`))
        .spec;
      bLed ||= b.isLeader();
      // A lost Lease ends the wait at once; the asserts below say what went wrong.
      if (seen.holderIdentity !== "replica-a" || bLed) return true;
      return Date.parse(seen.renewTime ?? "") - acquiredAtMs > 2_500;
    }).catch((error: unknown) => {
      throw new Error(`${String(error)}; last Lease spec seen: ${JSON.stringify(seen)}`);
    });
    assert.equal(seen.holderIdentity, "replica-a", `a keeps the Lease (seen ${JSON.stringify(seen)})`);
    assert.equal(seen.leaseTransitions ?? 0, 0, "the Lease never changed hands");
    assert.equal(bLed, false, "b never takes a renewed Lease");
    assert.equal(a.isLeader(), true, "a keeps renewing");

    await a.stop();
    assert.equal(a.isLeader(), false);
    await waitUntil("b leads after a released the Lease", 30_000, async () => b.isLeader());
    const after = await admin.rest.get<LeaseBody>(
      `/apis/coordination.k8s.io/v1/namespaces/${ns}/leases/tracing`,
    );
    assert.equal(after.spec.holderIdentity, "replica-b");
    assert.equal(after.spec.leaseTransitions, 1);
  } finally {
    await a.stop();
    await b.stop();
  }
});

test("a leader that vanishes without releasing is replaced only after the Lease expires", async () => {
  const ns = await testbed.plane.createNamespace("lease");
  const crashed = await elector(ns, "replica-a");
  const successor = await elector(ns, "replica-b");
  try {
    crashed.start();
    await waitUntil("a leads", 30_000, async () => crashed.isLeader());
    await crashed.abandon();
    const abandonedAt = Date.now();
    successor.start();
    await waitUntil("b leads after expiry", 30_000, async () => successor.isLeader());
    const waited = Date.now() - abandonedAt;
    assert.ok(waited >= 1_800, `b waited for the 2 s lease to expire (waited ${waited} ms)`);
  } finally {
    await crashed.stop();
    await successor.stop();
  }
});

test("a race for a free Lease has exactly one winner", async () => {
  const ns = await testbed.plane.createNamespace("lease");
  for (let round = 0; round < 5; round++) {
    const candidates = await Promise.all(
      ["a", "b", "c"].map((id) => elector(ns, `replica-${id}`, `race-${round}`)),
    );
    const results = await Promise.all(candidates.map((c) => c.tryAcquireOrRenew()));
    assert.equal(results.filter(Boolean).length, 1, `round ${round}: ${JSON.stringify(results)}`);
  }
});
