// How long the list/watch loop waits before each retry, exactly: the delays are
// recorded by an injected sleep and the jitter pinned by an injected random.
import assert from "node:assert/strict";
import { test } from "node:test";
import { KubeHttpError } from "../../src/kube/client.ts";
import { type ApiCall, emptyList, type ListAnswer, startLoop, waitFor } from "../support/fake-kube-api.ts";

const watchCount = (calls: ApiCall[]): number => calls.filter((c) => c.kind === "watch").length;
const status = (code: number, body: unknown = { kind: "Status", code }): ListAnswer => ({
  status: code,
  body,
});
const repeat = <T>(n: number, value: T): T[] => Array.from({ length: n }, () => value);

test("failed lists back off exponentially from initialMs, capped at maxMs, with jitter in [half, all] of the ceiling", async (t) => {
  // random 0.5: each delay is 3/4 of its ceiling 100 × 2^n, capped at 1000.
  const run = startLoop(t, { lists: repeat(7, status(500)) }, { random: () => 0.5 });
  await waitFor(
    () => watchCount(run.calls) === 1,
    "the watch after 7 failed lists",
    () => run.log,
  );
  assert.deepEqual(run.delays, [75, 150, 300, 600, 750, 750, 750]);
});

test("the jitter spans half the ceiling (random 0) to all of it (random → 1)", async (t) => {
  const low = startLoop(t, { lists: repeat(3, status(500)) }, { random: () => 0 });
  const high = startLoop(t, { lists: repeat(3, status(500)) }, { random: () => 0.999_999 });
  await waitFor(
    () => watchCount(low.calls) === 1 && watchCount(high.calls) === 1,
    "both watches",
    () => [low.log, high.log],
  );
  assert.deepEqual(low.delays, [50, 100, 200]);
  assert.deepEqual(high.delays, [100, 200, 400]);
});

test("network errors (no HTTP answer) and 503 retry at most every networkRetryMaxMs, while the exponent keeps growing", async (t) => {
  const refused = Object.assign(new Error("connect ECONNREFUSED 127.0.0.1:6443"), { code: "ECONNREFUSED" });
  const run = startLoop(
    t,
    { lists: [refused, refused, refused, status(503), refused, status(500)] },
    { random: () => 0.999_999, backoff: { initialMs: 500, maxMs: 30_000 }, networkRetryMaxMs: 2_000 },
  );
  await waitFor(
    () => watchCount(run.calls) === 1,
    "the watch",
    () => run.log,
  );
  // Ceilings 500, 1000, 2000, then 2000 for the 503 (capped from 4000) and 2000 (from 8000); then
  // a 500 is not a network error: its ceiling is the sixth step, 16000.
  assert.deepEqual(run.delays, [500, 1_000, 2_000, 2_000, 2_000, 16_000]);
  assert.deepEqual(
    run.log.filter((l) => l.startsWith("error")),
    ["error:list:0", "error:list:0", "error:list:0", "error:list:503", "error:list:0", "error:list:500"],
  );
});

test("429 waits as long as Retry-After asks, capped at maxMs, plus up to 20 % jitter; without it, the usual backoff", async (t) => {
  const retryAfter = (seconds: number): ListAnswer =>
    status(429, { kind: "Status", code: 429, details: { retryAfterSeconds: seconds } });
  const run = startLoop(
    t,
    {
      lists: [
        retryAfter(3),
        retryAfter(100),
        status(429),
        // Retry-After is honoured on 429 only: a 500 that carries one backs off as usual.
        status(500, { kind: "Status", code: 500, details: { retryAfterSeconds: 20 } }),
      ],
    },
    { random: () => 0.5, backoff: { initialMs: 500, maxMs: 30_000 } },
  );
  await waitFor(
    () => watchCount(run.calls) === 1,
    "the watch",
    () => run.log,
  );
  // 3 s × 1.1; 100 s capped at 30 s, × 1.1; no Retry-After: the first backoff step, 3/4 of 500;
  // the 500: the second step, 3/4 of 1000.
  assert.deepEqual(
    run.delays.map((d) => Math.round(d)),
    [3_300, 33_000, 375, 750],
  );
});

test("a successful list resets the backoff for the watch that follows", async (t) => {
  const run = startLoop(
    t,
    {
      lists: [status(500), status(500), emptyList],
      watches: [
        () => {
          throw new KubeHttpError(500, {}, "watch");
        },
      ],
    },
    { random: () => 0.5 },
  );
  await waitFor(
    () => watchCount(run.calls) === 2,
    "the second watch",
    () => run.log,
  );
  assert.deepEqual(run.delays, [75, 150, 75]);
});

test("an opened watch resets the backoff; a watch refused before opening does not", async (t) => {
  const refuse = (): void => {
    throw new KubeHttpError(500, {}, "watch");
  };
  const run = startLoop(
    t,
    {
      watches: [
        refuse,
        refuse,
        (o) => {
          o.onOpen?.();
          throw new KubeHttpError(500, {}, "watch");
        },
      ],
    },
    { random: () => 0.5 },
  );
  await waitFor(
    () => watchCount(run.calls) === 4,
    "the fourth watch",
    () => run.log,
  );
  assert.deepEqual(run.delays, [75, 150, 75]);
});

test("a watch the server ends in under a second waits a backoff step; one that lasted a second or more reconnects at once", async (t) => {
  // Far from 0, so a duration computed as a sum instead of a difference shows.
  let nowMs = 50_000;
  const lasting = (ms: number) => (o: { onOpen?: () => void }) => {
    o.onOpen?.();
    nowMs += ms;
  };
  const run = startLoop(
    t,
    { watches: [lasting(0), lasting(999), lasting(1_000)] },
    { random: () => 0.5, now: () => nowMs },
  );
  await waitFor(
    () => watchCount(run.calls) === 4,
    "the fourth watch",
    () => run.log,
  );
  // Each opened watch reset the backoff, so every short one waits the first step.
  assert.deepEqual(run.delays, [75, 75]);
});
