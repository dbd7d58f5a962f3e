// eachInSlices: every item visited in order; a turn of the event loop once a
// slice has taken its budget, none while the work is quick.
import assert from "node:assert/strict";
import { test } from "node:test";
import { eachInSlices } from "../../../src/status/slices.ts";

function run(items: number, msPerItem: number) {
  let now = 0;
  const seen: number[] = [];
  const turnsAt: number[] = [];
  const done = eachInSlices(
    Array.from({ length: items }, (_, i) => i),
    (i) => {
      seen.push(i);
      now += msPerItem;
    },
    8,
    () => now,
    async () => {
      turnsAt.push(seen.length);
    },
  );
  return done.then((turns) => ({ turns, turnsAt, seen }));
}

test("slow work yields once a slice has taken 8 ms (looked at every 256 items)", async () => {
  const { turns, turnsAt, seen } = await run(2000, 0.05);
  assert.deepEqual(
    seen,
    Array.from({ length: 2000 }, (_, i) => i),
  );
  assert.equal(turns, 7);
  assert.deepEqual(turnsAt, [256, 512, 768, 1024, 1280, 1536, 1792]);
});

test("quick work does not yield", async () => {
  assert.equal((await run(5000, 0.0001)).turns, 0);
});

test("a real turn lets other callbacks run between slices", async () => {
  let ranBetween = false;
  setImmediate(() => {
    ranBetween = true;
  });
  let sawIt = false;
  const start = performance.now();
  await eachInSlices(
    Array.from({ length: 20_000 }, (_, i) => i),
    () => {
      // About 10 µs of work per item: 200 ms in all, far past one slice.
      const until = performance.now() + 0.01;
      while (performance.now() < until);
      if (ranBetween) sawIt = true;
    },
  );
  assert.ok(
    sawIt,
    `the other callback ran during the walk (took ${Math.round(performance.now() - start)} ms)`,
  );
});
