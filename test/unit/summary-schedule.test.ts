// The schedule of clock-driven summary changes: a min-heap of (time, uid)
// that hands out exactly the uids due, earliest first, and one timer.
import assert from "node:assert/strict";
import { test } from "node:test";
import { SummarySchedule } from "../../src/collectors/summary-schedule.ts";

test("takeDue returns the uids due at a time, earliest first, and keeps the rest", (t) => {
  const schedule = new SummarySchedule(
    () => 0,
    () => {},
  );
  t.after(() => schedule.stop());
  const times = [50, 10, 40, 30, 20, 60, 10, 35];
  for (const [i, at] of times.entries()) schedule.add(`u${i}`, at);
  assert.deepEqual(schedule.takeDue(5), []);
  const due = schedule.takeDue(35);
  assert.deepEqual(
    due.map((uid) => times[Number(uid.slice(1))]),
    [10, 10, 20, 30, 35],
  );
  assert.equal(schedule.size, 3);
  assert.deepEqual(
    schedule.takeDue(1000).map((uid) => times[Number(uid.slice(1))]),
    [40, 50, 60],
  );
  assert.equal(schedule.size, 0);
});

test("the timer wakes the collector once the earliest time has come", async (t) => {
  let woken = 0;
  const start = Date.now() / 1000;
  const schedule = new SummarySchedule(
    () => Date.now() / 1000,
    () => woken++,
  );
  t.after(() => schedule.stop());
  schedule.add("later", start + 3600);
  schedule.add("soon", start + 0.05);
  const deadline = Date.now() + 5_000;
  while (woken === 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
  assert.equal(woken, 1);
  assert.deepEqual(schedule.takeDue(Date.now() / 1000), ["soon"]);
});

/** A schedule on mocked timers and Date: `wakes` counts the wake-ups, `at(s)` moves time to epoch second s. */
function mocked(t: import("node:test").TestContext) {
  t.mock.timers.enable({ apis: ["setTimeout", "Date"], now: 0 });
  const state = { wakes: 0 };
  const schedule = new SummarySchedule(
    () => Date.now() / 1000,
    () => state.wakes++,
  );
  t.after(() => schedule.stop());
  const at = (seconds: number) => t.mock.timers.tick(seconds * 1000 - Date.now());
  return { schedule, state, at };
}

test("the timer never fires before the earliest time", (t) => {
  const { schedule, state, at } = mocked(t);
  schedule.add("u", 10);
  at(9.999);
  assert.equal(state.wakes, 0, "a wake-up before the time would find nothing due");
  at(10.1);
  assert.equal(state.wakes, 1);
  assert.deepEqual(schedule.takeDue(Date.now() / 1000), ["u"]);
});

test("after taking what is due, the timer is set for the next time", (t) => {
  const { schedule, state, at } = mocked(t);
  schedule.add("a", 10);
  schedule.add("b", 20);
  at(10.1);
  assert.equal(state.wakes, 1);
  assert.deepEqual(schedule.takeDue(10.1), ["a"]);
  at(20.1);
  assert.equal(state.wakes, 2, "woken for b without another add");
  assert.deepEqual(schedule.takeDue(20.1), ["b"]);
});

test("an earlier time replaces the timer: one wake-up per time", (t) => {
  const { schedule, state, at } = mocked(t);
  schedule.add("later", 20);
  schedule.add("sooner", 10);
  at(10.1);
  assert.equal(state.wakes, 1);
  assert.deepEqual(schedule.takeDue(10.1), ["sooner"]);
  at(30);
  assert.equal(state.wakes, 2, "the timer first set for 20 was cleared, not left to fire as well");
});

test("stop() forgets what is scheduled and cancels the timer", (t) => {
  const { schedule, state, at } = mocked(t);
  schedule.add("u", 10);
  schedule.stop();
  assert.equal(schedule.size, 0);
  at(60);
  assert.equal(state.wakes, 0);
});

test("a time beyond setTimeout's range waits as long as it can, not overflowing to fire at once", (t) => {
  const { schedule, state, at } = mocked(t);
  schedule.add("far", 30 * 24 * 3600);
  at(1);
  assert.equal(state.wakes, 0);
});
