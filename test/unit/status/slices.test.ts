// eachInSlices: every item visited in order, working only while a turn's
// budget lasts; the walks of many requests share one budget per turn.
import assert from "node:assert/strict";
import { test } from "node:test";
import { eachInSlices } from "../../../src/status/slices.ts";
import { fakeTurns } from "../../support/turns.ts";

/** A share on a clock the walks advance, its turns real turns of the event loop, counted. */
test("slow work waits for a turn before its first item, then each time the budget (8 ms, looked at every 256 items) is spent", async () => {
  const { clock, turns } = fakeTurns(8);
  const seen: number[] = [];
  const turnAt: number[] = [];
  let lastTurn = 0;
  const waited = await eachInSlices(
    Array.from({ length: 2000 }, (_, i) => i),
    (i) => {
      if (clock.turns !== lastTurn) turnAt.push(i);
      lastTurn = clock.turns;
      seen.push(i);
      clock.now += 0.05;
    },
    turns,
  );
  assert.deepEqual(
    seen,
    Array.from({ length: 2000 }, (_, i) => i),
  );
  assert.equal(waited, 8);
  assert.deepEqual(turnAt, [0, 256, 512, 768, 1024, 1280, 1536, 1792]);
});

test("quick work takes the one turn it starts in", async () => {
  const { clock, turns } = fakeTurns(8);
  const waited = await eachInSlices(
    Array.from({ length: 5000 }, (_, i) => i),
    () => {
      clock.now += 0.0001;
    },
    turns,
  );
  assert.equal(waited, 1);
});

test("a walk started while a turn's budget lasts does not wait", async () => {
  const { clock, turns } = fakeTurns(8);
  await turns.next();
  clock.now += 7;
  assert.equal(await eachInSlices([1, 2, 3], () => {}, turns), 0);
  clock.now += 1;
  assert.equal(await eachInSlices([1, 2, 3], () => {}, turns), 1);
});

test("walks at once share the budget: one walk per turn, in the order they asked, never two in a turn", async () => {
  const { clock, turns } = fakeTurns(8);
  const byTurn = new Map<number, Set<string>>();
  const walk = (name: string) =>
    eachInSlices(
      Array.from({ length: 1024 }, (_, i) => i),
      () => {
        const walks = byTurn.get(clock.turns) ?? new Set<string>();
        walks.add(name);
        byTurn.set(clock.turns, walks);
        clock.now += 0.05;
      },
      turns,
    );
  const waited = await Promise.all([walk("a"), walk("b"), walk("c")]);
  assert.deepEqual(waited, [4, 4, 4]);
  const order = [...byTurn.entries()].map(([turn, walks]) => `${turn}:${[...walks].join("")}`);
  assert.deepEqual(order, [
    "1:a",
    "2:b",
    "3:c",
    "4:a",
    "5:b",
    "6:c",
    "7:a",
    "8:b",
    "9:c",
    "10:a",
    "11:b",
    "12:c",
  ]);
});

test("on the real event loop, 50 walks at once leave other callbacks a turn every slice", async () => {
  // Counted in items, not milliseconds: a loaded machine stretches the time
  // between timer callbacks, never the work done between them.
  let itemsSinceTick = 0;
  let mostItemsBetweenTicks = 0;
  let ticks = 0;
  const ticker = setInterval(() => {
    mostItemsBetweenTicks = Math.max(mostItemsBetweenTicks, itemsSinceTick);
    itemsSinceTick = 0;
    ticks++;
  }, 1);
  const busy = () => {
    // About 20 µs of work per item: 1,000 items are 20 ms, four budgets.
    const until = performance.now() + 0.02;
    while (performance.now() < until);
    itemsSinceTick++;
  };
  try {
    await Promise.all(
      Array.from({ length: 50 }, () =>
        eachInSlices(
          Array.from({ length: 1000 }, (_, i) => i),
          busy,
        ),
      ),
    );
  } finally {
    clearInterval(ticker);
  }
  mostItemsBetweenTicks = Math.max(mostItemsBetweenTicks, itemsSinceTick);
  assert.ok(ticks > 0, "the timer never ran while the walks did");
  // One slice is a few hundred items (the budget is looked at every 256th);
  // each walk slicing on its own ran a slice of all 50 back to back: 12,800 or more.
  assert.ok(mostItemsBetweenTicks <= 1024, `${mostItemsBetweenTicks} items between two timer callbacks`);
});

test("callers with a deadline come first, three turns of four, and the others are not starved", async () => {
  const { clock, turns } = fakeTurns(8);
  const served: string[] = [];
  const waiter = (name: string, priority: "first" | "later", times: number) =>
    (async () => {
      for (let i = 0; i < times; i++) {
        await turns.next(priority);
        served.push(`${clock.turns}:${name}`);
      }
    })();
  await Promise.all([waiter("page", "later", 3), waiter("scrape", "first", 6), waiter("audit", "first", 3)]);
  assert.deepEqual(served, [
    "1:scrape",
    "2:audit",
    "3:scrape",
    "4:page",
    "5:audit",
    "6:scrape",
    "7:audit",
    "8:page",
    "9:scrape",
    "10:scrape",
    "11:scrape",
    "12:page",
  ]);
});

test("with no one else waiting, a caller with a deadline is served every turn, none wasted", async () => {
  const { clock, turns } = fakeTurns(8);
  const servedAt: number[] = [];
  for (let i = 0; i < 6; i++) {
    await turns.next("first");
    servedAt.push(clock.turns);
  }
  assert.deepEqual(servedAt, [1, 2, 3, 4, 5, 6]);
});
