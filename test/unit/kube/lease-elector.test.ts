// The Lease elector's timing rules with a scripted apiserver and clock; the
// real apiserver behaviour is covered in test/e2e/lease-elector.test.ts.
import assert from "node:assert/strict";
import { test } from "node:test";
import type { KubeClient } from "../../../src/kube/client.ts";
import { LeaseElector, microTime } from "../../../src/kube/lease-elector.ts";
import { silentLogger } from "../../../src/log.ts";

type Request = KubeClient["request"];
type LeaseRecord = { metadata: { resourceVersion: string }; spec: Record<string, unknown> };

/** An apiserver holding one Lease: GET returns it, a write replaces its spec. */
function scriptedLease(lease: LeaseRecord, failing: () => boolean = () => false): Request {
  return async <T>(method: string, _path: string, options?: { body?: unknown }) => {
    if (failing()) return { status: 503, body: { message: "unavailable" } as T };
    const written = options?.body as { spec: Record<string, unknown> } | undefined;
    if (method !== "GET" && written) lease.spec = written.spec;
    return { status: 200, body: lease as T };
  };
}

test("microTime: RFC 3339 with microseconds, as metav1.MicroTime", () => {
  assert.equal(microTime(Date.UTC(2026, 0, 1, 0, 0, 0, 250)), "2026-01-01T00:00:00.250000Z");
});

test("a leader that cannot renew steps down once the renew deadline has passed", async () => {
  let now = 1_000_000;
  let failing = false;
  const lease = { metadata: { resourceVersion: "1" }, spec: {} };
  const changes: boolean[] = [];
  const elector = new LeaseElector({
    request: scriptedLease(lease, () => failing),
    namespace: "ns",
    name: "tracing",
    identity: "me",
    leaseDurationMs: 15_000,
    renewDeadlineMs: 10_000,
    retryPeriodMs: 2_000,
    logger: silentLogger,
    nowMs: () => now,
    onChange: (leading) => changes.push(leading),
  });
  assert.equal(await elector.tryAcquireOrRenew(), true);
  failing = true;
  now += 9_999;
  assert.equal(await elector.tryAcquireOrRenew(), true, "still within the renew deadline");
  now += 1;
  assert.equal(await elector.tryAcquireOrRenew(), false, "deadline reached: stop leading");
  assert.deepEqual(changes, [true, false]);
});

test("another holder's Lease is respected until it has gone unrenewed for its duration", async () => {
  let now = 1_000_000;
  const lease = {
    metadata: { resourceVersion: "7" },
    spec: {
      holderIdentity: "other",
      leaseDurationSeconds: 15,
      renewTime: "2026-01-01T00:00:00.000000Z",
    } as Record<string, unknown>,
  };
  const elector = new LeaseElector({
    request: scriptedLease(lease),
    namespace: "ns",
    name: "tracing",
    identity: "me",
    logger: silentLogger,
    nowMs: () => now,
  });
  assert.equal(await elector.tryAcquireOrRenew(), false);
  now += 14_999;
  assert.equal(
    await elector.tryAcquireOrRenew(),
    false,
    "the record has not changed for 14.999 s of our clock",
  );
  now += 1;
  assert.equal(await elector.tryAcquireOrRenew(), true, "expired: taken over");
  assert.equal(lease.spec.holderIdentity, "me");
  assert.equal(lease.spec.leaseTransitions, 1);
});

test("elector settings: errors name the field and value", () => {
  const base = {
    request: scriptedLease({ metadata: { resourceVersion: "1" }, spec: {} }),
    namespace: "n",
    name: "l",
    logger: silentLogger,
  };
  assert.throws(() => new LeaseElector({ ...base, identity: "" }), /identity must be non-empty/);
  assert.throws(
    () => new LeaseElector({ ...base, identity: "a", leaseDurationMs: 5_000, renewDeadlineMs: 5_000 }),
    /renewDeadlineMs \(5000\) must be less than leaseDurationMs \(5000\)/,
  );
});
