// The benchmark's memory breakdown read from a real Node process: the report
// written on the signal is found, parsed into the heap by space, and removed;
// a process that writes none is a clear error, not a hang.
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { readMemory, reportFlags } from "../../bench/lib/heap-report.ts";

test("a process started with reportFlags tells its heap by space on the signal", async (t) => {
  const dir = mkdtempSync(join(tmpdir(), "heap-report-"));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  // Holds about 8 MiB of strings in the old generation until killed.
  const child = spawn(
    process.execPath,
    [
      ...reportFlags(dir),
      "-e",
      "globalThis.kept = Array.from({ length: 1e5 }, (_, i) => 'x'.repeat(64) + i); process.stdout.write('ready\\n'); setInterval(() => {}, 1000);",
    ],
    { stdio: ["ignore", "pipe", "inherit"] },
  );
  t.after(() => child.kill("SIGKILL"));
  await new Promise<void>((resolve) => child.stdout.once("data", () => resolve()));
  const memory = await readMemory(child.pid as number, dir);
  assert.ok(memory.rssBytes > memory.heap.used, "RSS holds the heap and the runtime");
  assert.ok(memory.oldSpace.used > 8e6, `old generation used ${memory.oldSpace.used} B for 8 MiB of strings`);
  assert.ok(memory.heap.committed >= memory.oldSpace.committed + memory.newSpace.committed);
  const parts =
    memory.oldSpace.committed +
    memory.newSpace.committed +
    memory.largeObjects.committed +
    memory.otherSpaces.committed;
  assert.equal(parts, memory.heap.committed, "the spaces add up to the heap");
  assert.deepEqual(readdirSync(dir), [], "the report is removed once read");
});

test("a process that writes no report is an error naming it", async (t) => {
  const dir = mkdtempSync(join(tmpdir(), "heap-report-"));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  // Ignores the signal: no report ever comes.
  const child = spawn(
    process.execPath,
    ["-e", "process.on('SIGUSR2', () => {}); process.stdout.write('ready\\n'); setInterval(() => {}, 1000);"],
    {
      stdio: ["ignore", "pipe", "inherit"],
    },
  );
  t.after(() => child.kill("SIGKILL"));
  await new Promise<void>((resolve) => child.stdout.once("data", () => resolve()));
  await assert.rejects(readMemory(child.pid as number, dir, "SIGUSR2", 300), /wrote no diagnostic report/);
});
