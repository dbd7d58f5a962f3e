// What the Lease elector writes and when, against an in-memory Lease API that
// keeps resourceVersions like the apiserver (a write with a stale one gets
// 409): create, renew, take over, hand back, the retry timer and the settings'
// bounds. The timing rules are in lease-elector.test.ts, the real apiserver in
// test/e2e/lease-elector.test.ts.
import assert from "node:assert/strict";
import { type TestContext, test } from "node:test";
import { setImmediate as nextTurn } from "node:timers/promises";
import type { KubeClient } from "../../../src/kube/client.ts";
import {
  LeaseElector,
  type LeaseElectorOptions,
  type LeaseSpec,
  microTime,
} from "../../../src/kube/lease-elector.ts";
import { createLogger } from "../../../src/log.ts";

const leasePath = "/apis/coordination.k8s.io/v1/namespaces/ns/leases/tracing";
const collectionPath = "/apis/coordination.k8s.io/v1/namespaces/ns/leases";

interface Written {
  method: string;
  path: string;
  body: { apiVersion?: string; kind?: string; metadata?: Record<string, string>; spec: LeaseSpec };
}

/** One Lease as the apiserver keeps it; `answer` can override any request's answer. */
function leaseApi(initial?: LeaseSpec) {
  let stored: { resourceVersion: number; spec: LeaseSpec } | undefined = initial
    ? { resourceVersion: 1, spec: { ...initial } }
    : undefined;
  const calls: Written[] = [];
  let answer: ((method: string) => { status: number; body?: unknown } | Error | undefined) | undefined;
  const request: KubeClient["request"] = async <T>(
    method: string,
    path: string,
    options?: { body?: unknown },
  ) => {
    calls.push({ method, path, body: options?.body as Written["body"] });
    const forced = answer?.(method);
    if (forced instanceof Error) throw forced;
    if (forced) return { status: forced.status, body: forced.body as T };
    const body = options?.body as Written["body"] | undefined;
    const view = (): T =>
      ({ metadata: { resourceVersion: String(stored?.resourceVersion) }, spec: { ...stored?.spec } }) as T;
    if (method === "GET") return stored ? { status: 200, body: view() } : { status: 404, body: {} as T };
    if (method === "POST") {
      if (stored) return { status: 409, body: {} as T };
      stored = { resourceVersion: 1, spec: { ...body?.spec } };
      return { status: 201, body: view() };
    }
    if (!stored || body?.metadata?.resourceVersion !== String(stored.resourceVersion)) {
      return { status: 409, body: {} as T };
    }
    stored = { resourceVersion: stored.resourceVersion + 1, spec: { ...body.spec } };
    return { status: 200, body: view() };
  };
  return {
    request,
    calls,
    spec: (): LeaseSpec | undefined => stored?.spec,
    /** Another replica writes the Lease. */
    writeAs: (spec: LeaseSpec): void => {
      stored = { resourceVersion: (stored?.resourceVersion ?? 0) + 1, spec: { ...spec } };
    },
    answerWith: (fn: typeof answer): void => {
      answer = fn;
    },
  };
}

function elector(
  t: TestContext | undefined,
  api: ReturnType<typeof leaseApi>,
  clock: { now: number },
  extra: Partial<LeaseElectorOptions> = {},
) {
  const log: Record<string, unknown>[] = [];
  const changes: boolean[] = [];
  const e = new LeaseElector({
    request: api.request,
    namespace: "ns",
    name: "tracing",
    identity: "me",
    leaseDurationMs: 14_500,
    renewDeadlineMs: 10_000,
    retryPeriodMs: 2_000,
    logger: createLogger({ level: "debug", write: (line) => log.push(JSON.parse(line)) }),
    nowMs: () => clock.now,
    onChange: (leading) => changes.push(leading),
    ...extra,
  });
  t?.after(() => e.abandon());
  return { e, log, changes };
}

const T0 = Date.UTC(2026, 0, 1, 0, 0, 0);

test("an absent Lease is created on the collection: our identity, whole seconds, microsecond times", async (t) => {
  const api = leaseApi();
  const clock = { now: T0 };
  const { e, log, changes } = elector(t, api, clock);
  assert.equal(await e.tryAcquireOrRenew(), true);
  assert.equal(e.isLeader(), true);
  assert.deepEqual(
    api.calls.map((c) => `${c.method} ${c.path}`),
    [`GET ${leasePath}`, `POST ${collectionPath}`],
  );
  assert.deepEqual(api.calls[1]?.body, {
    apiVersion: "coordination.k8s.io/v1",
    kind: "Lease",
    metadata: { name: "tracing", namespace: "ns" },
    spec: {
      holderIdentity: "me",
      leaseDurationSeconds: 15, // 14.5 s rounded up
      acquireTime: "2026-01-01T00:00:00.000000Z",
      renewTime: "2026-01-01T00:00:00.000000Z",
      leaseTransitions: 0,
    },
  });
  assert.deepEqual(changes, [true]);
  assert.deepEqual(
    log.map((l) => [l.level, l.msg, l.identity, l.lease]),
    [["info", "leading", "me", "ns/tracing"]],
  );
});

test("a create answered 200 also wins; one that lost the race (409) does not, and is not a warning", async (t) => {
  const ok = leaseApi();
  ok.answerWith((method) => (method === "POST" ? { status: 200 } : undefined));
  assert.equal(await elector(t, ok, { now: T0 }).e.tryAcquireOrRenew(), true);

  const raced = leaseApi();
  raced.answerWith((method) => (method === "POST" ? { status: 409 } : undefined));
  const lost = elector(t, raced, { now: T0 });
  assert.equal(await lost.e.tryAcquireOrRenew(), false);
  assert.deepEqual(lost.log, []);
});

test("renewing our Lease: a PUT with the read resourceVersion; acquireTime kept, renewTime moves, no transition", async (t) => {
  const api = leaseApi();
  const clock = { now: T0 };
  const { e, changes, log } = elector(t, api, clock);
  await e.tryAcquireOrRenew();
  clock.now += 2_000;
  assert.equal(await e.tryAcquireOrRenew(), true);
  const put = api.calls.at(-1);
  assert.equal(put?.method, "PUT");
  assert.equal(put?.path, leasePath);
  assert.deepEqual(put?.body.metadata, { name: "tracing", namespace: "ns", resourceVersion: "1" });
  assert.deepEqual(api.spec(), {
    holderIdentity: "me",
    leaseDurationSeconds: 15,
    acquireTime: "2026-01-01T00:00:00.000000Z",
    renewTime: "2026-01-01T00:00:02.000000Z",
    leaseTransitions: 0,
  });
  assert.deepEqual(changes, [true], "onChange only when leadership changes");
  assert.equal(log.length, 1, "one 'leading' line, not one per renewal");
});

test("a free Lease (empty holder) is taken at once, with our own acquireTime, and counts a transition", async (t) => {
  const api = leaseApi({
    holderIdentity: "",
    leaseDurationSeconds: 15,
    leaseTransitions: 4,
    acquireTime: "2025-06-01T00:00:00.000000Z",
  });
  const { e } = elector(t, api, { now: T0 });
  assert.equal(await e.tryAcquireOrRenew(), true);
  assert.equal(api.spec()?.holderIdentity, "me");
  assert.equal(api.spec()?.leaseTransitions, 5);
  assert.equal(api.spec()?.acquireTime, "2026-01-01T00:00:00.000000Z");
});

test("a holder that keeps renewing is never taken over; its duration defaults to ours when unset", async (t) => {
  const api = leaseApi({ holderIdentity: "other", renewTime: microTime(T0) });
  const clock = { now: T0 };
  const { e } = elector(t, api, clock);
  assert.equal(await e.tryAcquireOrRenew(), false);
  clock.now += 10_000;
  api.writeAs({ holderIdentity: "other", renewTime: microTime(clock.now) });
  assert.equal(await e.tryAcquireOrRenew(), false);
  clock.now += 14_999; // 24.999 s after the first sight, 14.999 s after the renewal
  assert.equal(await e.tryAcquireOrRenew(), false, "renewed 14.999 s ago: still held");
  assert.ok(!api.calls.some((c) => c.method === "PUT"), "nothing written while another holds it");
  clock.now += 1; // 15 s: our own duration, 14.5 s rounded up
  assert.equal(await e.tryAcquireOrRenew(), true);
});

test("a write that loses to a concurrent one (409) is no warning; any other answer is", async (t) => {
  const api = leaseApi({ holderIdentity: "", leaseDurationSeconds: 15 });
  const { e, log } = elector(t, api, { now: T0 });
  api.answerWith((method) => (method === "PUT" ? { status: 409 } : undefined));
  assert.equal(await e.tryAcquireOrRenew(), false);
  assert.equal(log.length, 0);
  api.answerWith((method) => (method === "PUT" ? { status: 500 } : undefined));
  assert.equal(await e.tryAcquireOrRenew(), false);
  api.answerWith((method) => (method === "GET" ? { status: 403 } : undefined));
  assert.equal(await e.tryAcquireOrRenew(), false);
  assert.deepEqual(
    log.map((l) => [l.level, l.msg, l.status, l.lease]),
    [
      ["warn", "leader election: unexpected answer", 500, leasePath],
      ["warn", "leader election: unexpected answer", 403, leasePath],
    ],
  );
  assert.ok(!api.calls.some((c) => c.method === "PUT" && c.body === undefined));
});

test("a request that throws is logged with the error and loses the round", async (t) => {
  const api = leaseApi();
  api.answerWith(() => new Error("connect ECONNREFUSED"));
  const { e, log } = elector(t, api, { now: T0 });
  assert.equal(await e.tryAcquireOrRenew(), false);
  assert.deepEqual(
    log.map((l) => [l.level, l.msg, l.error, l.lease]),
    [["warn", "leader election: request failed", "connect ECONNREFUSED", leasePath]],
  );
});

test("stop() hands our Lease back: empty holder, 1 s duration, renewed now, with the read resourceVersion", async () => {
  const api = leaseApi();
  const clock = { now: T0 };
  const { e, changes, log } = elector(undefined, api, clock);
  await e.tryAcquireOrRenew();
  clock.now += 3_000;
  await e.stop();
  const put = api.calls.at(-1);
  assert.equal(put?.method, "PUT");
  assert.equal(put?.path, leasePath);
  assert.equal(put?.body.metadata?.resourceVersion, "1");
  assert.deepEqual(api.spec(), {
    holderIdentity: "",
    leaseDurationSeconds: 1,
    acquireTime: "2026-01-01T00:00:00.000000Z",
    renewTime: "2026-01-01T00:00:03.000000Z",
    leaseTransitions: 0,
  });
  assert.equal(e.isLeader(), false);
  assert.deepEqual(changes, [true, false]);
  assert.deepEqual(
    log.map((l) => l.msg),
    ["leading", "not leading"],
  );
});

test("stop() leaves a Lease that is no longer ours alone, and a failed hand-back still stops leading", async () => {
  const api = leaseApi();
  const clock = { now: T0 };
  const taken = elector(undefined, api, clock);
  await taken.e.tryAcquireOrRenew();
  api.writeAs({ holderIdentity: "other" });
  await taken.e.stop();
  assert.equal(api.spec()?.holderIdentity, "other");
  assert.equal(api.calls.at(-1)?.method, "GET");
  assert.equal(taken.e.isLeader(), false);

  const broken = leaseApi();
  const failing = elector(undefined, broken, clock);
  await failing.e.tryAcquireOrRenew();
  broken.answerWith(() => new Error("apiserver gone"));
  await failing.e.stop();
  assert.equal(failing.e.isLeader(), false);
  assert.deepEqual(failing.log.map((l) => [l.msg, l.error, l.lease]).at(-2), [
    "leader election: could not release the lease",
    "apiserver gone",
    leasePath,
  ]);
});

test("stop() when not leading and abandon() write nothing", async () => {
  const api = leaseApi({ holderIdentity: "other", leaseDurationSeconds: 15 });
  const idle = elector(undefined, api, { now: T0 });
  await idle.e.tryAcquireOrRenew();
  await idle.e.stop();
  assert.deepEqual(
    api.calls.map((c) => c.method),
    ["GET"],
  );

  const own = leaseApi();
  const crashed = elector(undefined, own, { now: T0 });
  await crashed.e.tryAcquireOrRenew();
  await crashed.e.abandon();
  assert.equal(own.spec()?.holderIdentity, "me", "the Lease is left to expire");
  assert.equal(crashed.e.isLeader(), false);
  assert.deepEqual(crashed.changes, [true, false]);
});

test("start() tries at once, then every retryPeriodMs; a second start() adds nothing; stop() ends the rounds", async (t) => {
  t.mock.timers.enable({ apis: ["setTimeout"] });
  const api = leaseApi({ holderIdentity: "other", leaseDurationSeconds: 15 });
  const { e } = elector(t, api, { now: T0 });
  const gets = (): number => api.calls.filter((c) => c.method === "GET").length;
  const settle = async (): Promise<void> => {
    for (let i = 0; i < 5; i++) await nextTurn();
  };
  e.start();
  e.start();
  await settle();
  assert.equal(gets(), 1, "one attempt at start, however often start() is called");
  t.mock.timers.tick(1_999);
  await settle();
  assert.equal(gets(), 1);
  t.mock.timers.tick(1);
  await settle();
  assert.equal(gets(), 2, "the next attempt one retry period later");
  e.start();
  await settle();
  assert.equal(gets(), 2, "start() while running adds no second loop");
  await e.stop();
  t.mock.timers.tick(10_000);
  await settle();
  assert.equal(gets(), 2, "no attempt after stop()");
  e.start();
  await settle();
  assert.equal(gets(), 3, "start() after stop() runs again");
});

test("settings: the Lease lasts at least 1 s; the retry period is positive and shorter than the renew deadline", () => {
  const api = leaseApi();
  const make = (extra: Partial<LeaseElectorOptions>) => () => elector(undefined, api, { now: T0 }, extra);
  assert.throws(
    make({ leaseDurationMs: 999, renewDeadlineMs: 500, retryPeriodMs: 100 }),
    /leaseDurationMs must be at least 1000 \(got 999\)/,
  );
  make({ leaseDurationMs: 1_000, renewDeadlineMs: 500, retryPeriodMs: 100 })();
  assert.throws(
    make({ retryPeriodMs: 0 }),
    /retryPeriodMs \(0\) must be positive and less than renewDeadlineMs \(10000\)/,
  );
  assert.throws(make({ retryPeriodMs: 10_000 }), /retryPeriodMs \(10000\) must be positive/);
  make({ retryPeriodMs: 1 })();
  make({ retryPeriodMs: 9_999 })();
});

test("microTime keeps whole milliseconds as microseconds and nothing else", () => {
  assert.equal(microTime(T0 + 7), "2026-01-01T00:00:00.007000Z");
  assert.equal(microTime(T0).match(/Z/g)?.length, 1);
});

test("stop() or abandon() during a round in flight: no round after it", async (t) => {
  t.mock.timers.enable({ apis: ["setTimeout"] });
  for (const end of ["stop", "abandon"] as const) {
    const api = leaseApi({ holderIdentity: "other", leaseDurationSeconds: 15 });
    let release: (() => void) | undefined;
    // The first request hangs until released, as a slow apiserver would.
    const slow: KubeClient["request"] = async (method, path, options) => {
      if (!release) await new Promise<void>((resolve) => (release = resolve));
      return api.request(method, path, options);
    };
    const { e } = elector(t, { ...api, request: slow }, { now: T0 });
    e.start();
    for (let i = 0; i < 5 && !release; i++) await nextTurn();
    assert.ok(release, "the first round is in flight");
    const ending = end === "stop" ? e.stop() : e.abandon();
    release?.();
    await ending;
    t.mock.timers.tick(10_000);
    for (let i = 0; i < 5; i++) await nextTurn();
    assert.equal(api.calls.filter((c) => c.method === "GET").length, 1, `${end}: no round after it`);
  }
});

test("abandon() between rounds cancels the next one", async (t) => {
  t.mock.timers.enable({ apis: ["setTimeout"] });
  const api = leaseApi({ holderIdentity: "other", leaseDurationSeconds: 15 });
  const { e } = elector(t, api, { now: T0 });
  e.start();
  for (let i = 0; i < 5; i++) await nextTurn();
  await e.abandon();
  t.mock.timers.tick(10_000);
  for (let i = 0; i < 5; i++) await nextTurn();
  assert.equal(api.calls.filter((c) => c.method === "GET").length, 1);
});
