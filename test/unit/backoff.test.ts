// The retry delay arithmetic on its own (the loop's use of it is in
// list-watch-retry.test.ts), and the abortable sleep.
import assert from "node:assert/strict";
import { getEventListeners } from "node:events";
import { test } from "node:test";
import { Backoff, sleep } from "../../src/kube/backoff.ts";

const steps = (backoff: Backoff, n: number, cap?: number): number[] =>
  Array.from({ length: n }, () => backoff.next(cap));

test("each step doubles the ceiling from initialMs up to maxMs; random 0 gives half of it, random 1 all of it", () => {
  assert.deepEqual(
    steps(new Backoff({ initialMs: 10, maxMs: 100, random: () => 0 }), 6),
    [5, 10, 20, 40, 50, 50],
  );
  assert.deepEqual(
    steps(new Backoff({ initialMs: 10, maxMs: 100, random: () => 1 }), 6),
    [10, 20, 40, 80, 100, 100],
  );
  assert.deepEqual(steps(new Backoff({ initialMs: 10, maxMs: 100, random: () => 0.5 }), 3), [8, 15, 30]);
});

test("a lower cap for one call bounds that call only; the exponent keeps counting under it", () => {
  const backoff = new Backoff({ initialMs: 10, maxMs: 10_000, random: () => 1 });
  assert.deepEqual(steps(backoff, 4, 25), [10, 20, 25, 25]);
  assert.equal(backoff.next(), 160, "the fifth step, uncapped");
});

test("reset starts again from initialMs", () => {
  const backoff = new Backoff({ initialMs: 10, maxMs: 1_000, random: () => 1 });
  steps(backoff, 5);
  backoff.reset();
  assert.deepEqual(steps(backoff, 2), [10, 20]);
});

test("the exponent stops growing after 30 steps (2^30 × initialMs), so a long outage never drives it towards Infinity", () => {
  const backoff = new Backoff({ initialMs: 1, maxMs: Number.POSITIVE_INFINITY, random: () => 1 });
  const delays = steps(backoff, 40);
  assert.equal(delays[30], 2 ** 30);
  assert.equal(delays[39], 2 ** 30);
  assert.ok(delays.every(Number.isFinite));
});

test("without a random the jitter comes from Math.random and stays within [half, all] of the ceiling", () => {
  const backoff = new Backoff({ initialMs: 1_000, maxMs: 1_000 });
  for (const delay of steps(backoff, 50)) assert.ok(delay >= 500 && delay <= 1_000, String(delay));
});

test("sleep waits the given time, and no longer than until the signal aborts", async (t) => {
  t.mock.timers.enable({ apis: ["setTimeout"] });
  const controller = new AbortController();
  let done = false;
  const waiting = sleep(1_000, controller.signal).then(() => {
    done = true;
  });
  t.mock.timers.tick(999);
  await Promise.resolve();
  assert.equal(done, false, "still waiting at 999 ms");
  t.mock.timers.tick(1);
  await waiting;
  assert.equal(getEventListeners(controller.signal, "abort").length, 0, "the abort listener is removed");

  let early = false;
  const aborted = sleep(60_000, controller.signal).then(() => {
    early = true;
  });
  controller.abort();
  await aborted;
  assert.equal(early, true);
});

test("sleep on an already aborted signal returns at once and leaves nothing behind", async () => {
  const signal = AbortSignal.abort();
  await sleep(60_000, signal);
  assert.equal(getEventListeners(signal, "abort").length, 0);
});
