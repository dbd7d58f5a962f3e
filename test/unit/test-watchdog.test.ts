// The run's watchdog (scripts/test-watchdog.ts) on a test file that never
// lets its process end: the run fails and the report names the open server,
// the child process and the timer, and nothing is left running afterwards.
import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { test } from "node:test";
import { setTimeout as sleep } from "node:timers/promises";
import { alive, openHandlesPreload, runWithWatchdog } from "../../scripts/test-watchdog.ts";

const fixture = path.resolve(import.meta.dirname, "../fixtures/hanging/never-stops.test.ts");

test("a test file that never ends fails the run with its open handles named, and is stopped", async (t) => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "watchdog-test-"));
  t.after(() => fs.rmSync(dir, { recursive: true, force: true }));
  const ready = path.join(dir, "ready");
  process.env.HANGING_READY_FILE = ready;
  t.after(() => delete process.env.HANGING_READY_FILE);
  const fire = new AbortController();
  const lines: string[] = [];
  const run = runWithWatchdog(process.execPath, [`--import=${openHandlesPreload}`, "--test", fixture], {
    // The limit is never reached: the test fires the watchdog once the file is hanging.
    limitMs: 600_000,
    signal: fire.signal,
    stdio: "ignore",
    log: (line) => lines.push(line),
  });
  // Whatever happens below, the nested run is ended before this test is.
  t.after(async () => {
    fire.abort();
    await run;
  });
  const deadline = performance.now() + 60_000;
  while (!fs.existsSync(ready) && performance.now() < deadline) await sleep(50);
  assert.ok(fs.existsSync(ready), "the hanging fixture never got its handles open");
  const sleeper = Number(fs.readFileSync(ready, "utf8"));
  fire.abort();
  const status = await run;
  const report = lines.join("\n");
  assert.equal(status, 1, report);
  assert.match(report, /did not finish within 600 s/);
  assert.match(report, /never-stops\.test\.ts/, "names the test file's process");
  assert.match(report, /open: Server listening on 127\.0\.0\.1:\d+/, report);
  assert.match(report, /open: child process \d+: sleep 600/, report);
  assert.match(report, /active resources: .*Timeout/, report);
  for (let i = 0; i < 100 && alive(sleeper); i++) await sleep(50);
  assert.equal(alive(sleeper), false, "the child process the test left behind is killed");
});
