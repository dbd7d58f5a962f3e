// The benchmark's memory breakdown read from a real Node process: the report
// written on the signal is found, parsed into the heap by space, and removed;
// a process that writes none is a clear error, not a hang.
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { mappingBytes, readMemory, reportFlags } from "../../bench/lib/heap-report.ts";

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
  const mappings = memory.mappings;
  assert.ok(mappings, "RSS by mapping, read from /proc");
  assert.ok(mappings.files > 0 && mappings.anonymous > 8e6, "node's own file and the heap's anonymous pages");
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

test("smaps text sums into RSS by kind of mapping: glibc's main heap, anonymous, code, files, the rest", () => {
  const mapping = (header: string, rssKb: number): string =>
    `${header}\nSize:               1024 kB\nRss:              ${rssKb} kB\nPss:                 ${rssKb} kB\n`;
  const smaps = [
    mapping("00400000-03200000 r-xp 00000000 fd:01 1234  /usr/bin/node", 30_000),
    mapping("03201000-06a00000 r--p 02e00000 fd:01 1234  /usr/bin/node", 2_000),
    mapping("21c8c000-2382e000 rw-p 00000000 00:00 0  [heap]", 18_000),
    mapping("7f9f34000000-7f9f54000000 rwxp 00000000 00:00 0 ", 3_000),
    mapping("993e800000-993e840000 rw-p 00000000 00:00 0 ", 256),
    mapping("7f9f60000000-7f9f64000000 rw-p 00000000 00:00 0", 4_096),
    mapping("7ffd1c6e1000-7ffd1c702000 rw-p 00000000 00:00 0  [stack]", 132),
  ].join("");
  assert.deepEqual(mappingBytes(smaps), {
    mallocMainHeap: 18_000 * 1024,
    anonymous: (256 + 4_096) * 1024,
    code: 3_000 * 1024,
    files: 32_000 * 1024,
    other: 132 * 1024,
  });
});
