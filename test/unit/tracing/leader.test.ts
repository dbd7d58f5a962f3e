// The Lease elector's timing rules with a scripted transport and clock; the
// real apiserver behaviour is covered in test/e2e/leader.test.ts.
import assert from "node:assert/strict";
import { test } from "node:test";
import { silentLogger } from "../../../src/log.ts";
import { LeaseElector, type LeaseTransport, microTime } from "../../../src/tracing/leader.ts";

test("microTime: RFC 3339 with microseconds, as metav1.MicroTime", () => {
  assert.equal(microTime(Date.UTC(2026, 0, 1, 0, 0, 0, 250)), "2026-01-01T00:00:00.250000Z");
});

test("a leader that cannot renew steps down once the renew deadline has passed", async () => {
  let now = 1_000_000;
  let failing = false;
  const lease = { metadata: { resourceVersion: "1" }, spec: {} as Record<string, unknown> };
  const transport: LeaseTransport = {
    async request(method, _path, body) {
      if (failing) return { status: 503, body: { message: "unavailable" } };
      if (method === "GET") return { status: 200, body: lease };
      lease.spec = (body as { spec: Record<string, unknown> }).spec;
      return { status: 200, body: lease };
    },
  };
  const changes: boolean[] = [];
  const elector = new LeaseElector({
    transport,
    namespace: "ns",
    name: "tracing",
    identity: "me",
    leaseDurationMs: 15_000,
    renewDeadlineMs: 10_000,
    retryPeriodMs: 2_000,
    logger: silentLogger,
    now: () => now,
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
  const transport: LeaseTransport = {
    async request(method, _path, body) {
      if (method === "GET") return { status: 200, body: lease };
      lease.spec = (body as { spec: Record<string, unknown> }).spec;
      return { status: 200, body: lease };
    },
  };
  const elector = new LeaseElector({
    transport,
    namespace: "ns",
    name: "tracing",
    identity: "me",
    logger: silentLogger,
    now: () => now,
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
    transport: { request: async () => ({ status: 200, body: {} }) },
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
