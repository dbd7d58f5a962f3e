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
