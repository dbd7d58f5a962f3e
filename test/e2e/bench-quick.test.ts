// Keeps the benchmark harness working: runs `bench/run.ts --quick` (1k widgets,
// short phases, both programs) into a scratch directory and checks that the
// results are complete and well formed. Never asserts on timings: the numbers
// belong in the results, not in a test.
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { test } from "node:test";
import { fileURLToPath } from "node:url";
import type { RunResult, SubjectResult } from "../../bench/lib/report.ts";

const repo = join(dirname(fileURLToPath(import.meta.url)), "..", "..");

function runBench(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [join(repo, "bench", "run.ts"), ...args], { cwd: repo });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (c: Buffer) => {
      stdout += c.toString();
    });
    child.stderr.on("data", (c: Buffer) => {
      stderr += c.toString();
    });
    child.on("exit", (code) => resolve({ code, stdout, stderr }));
  });
}

const finite = (value: unknown, what: string): void =>
  assert.ok(typeof value === "number" && Number.isFinite(value) && value >= 0, `${what} = ${String(value)}`);

function checkSubject(s: SubjectResult | undefined, who: string, objects: number): void {
  assert.ok(s, `${who}: no results`);
  for (const key of [
    "syncSeconds",
    "rssAfterSyncBytes",
    "rssAfterChurnBytes",
    "cpuAfterSyncSeconds",
    "cpuTotalSeconds",
  ] as const) {
    finite(s[key], `${who}.${key}`);
  }
  assert.ok(s.rssAfterSyncBytes > 0 && s.cpuTotalSeconds >= s.cpuAfterSyncSeconds, `${who}: /proc samples`);
  assert.equal(s.scrape.scrapes, 30);
  for (const key of ["p50Ms", "p99Ms", "bytes", "gzipBytes", "gzipP50Ms"] as const)
    finite(s.scrape[key], `${who}.scrape.${key}`);
  // Every object has a series in the one-per-object generation family, and more.
  assert.ok(s.scrape.series > objects, `${who}: ${s.scrape.series} series for ${objects} objects`);
  assert.ok(s.scrape.gzipBytes < s.scrape.bytes, `${who}: gzip response is not smaller`);
  assert.deepEqual(
    s.latency.map((l) => l.targetRate),
    [100, 500],
  );
  for (const l of s.latency) {
    assert.ok(
      l.patches > 0 && l.samples > 0,
      `${who} @ ${l.targetRate}/s: ${l.patches} patches, ${l.samples} samples`,
    );
    finite(l.p50Ms, `${who}.latency.p50Ms`);
    finite(l.p99Ms, `${who}.latency.p99Ms`);
  }
  assert.ok(s.churn.patches > 0, `${who}: no churn`);
}

test("npm run bench -- --quick produces complete results for both programs", {
  timeout: 600_000,
}, async () => {
  const out = mkdtempSync(join(tmpdir(), "bench-quick-"));
  try {
    const result = await runBench([
      "--quick",
      "--latency-seconds",
      "4",
      "--churn-seconds",
      "10",
      "--out",
      out,
    ]);
    assert.equal(result.code, 0, `bench exited with ${result.code}:\n${result.stderr.slice(-4000)}`);
    const files = readdirSync(out);
    const json = files.find((f) => f.endsWith("-1000-quick.json"));
    assert.ok(json, `no results file in ${files.join(", ")}`);
    const run = JSON.parse(readFileSync(join(out, json), "utf8")) as RunResult;
    assert.equal(run.schema, 1);
    assert.match(run.ksmVersion, /^v2\.\d+\.\d+$/);
    assert.ok(run.objectBytes > 1000, `objects of ${run.objectBytes} bytes`);
    assert.equal(run.sizes.length, 1);
    const [size] = run.sizes;
    assert.equal(size?.objects, 1000);
    checkSubject(size?.subjects.ours, "ours", 1000);
    checkSubject(size?.subjects.ksm, "ksm", 1000);
    assert.ok(size?.subjects.ours?.scrape.eventLoopMaxDelayMs !== null, "ours: no event-loop delay read");

    const micro = run.micro;
    assert.ok(micro, "no micro-benchmarks");
    finite(micro.events.parseOnlyEventsPerCoreSecond, "parse-only events/s");
    finite(micro.events.ingestEventsPerCoreSecond, "ingest events/s");
    assert.ok(micro.write.length >= 1 && micro.write.every((w) => w.series >= w.targetSeries && w.bytes > 0));

    const table = readFileSync(join(out, "latest.md"), "utf8");
    assert.match(table, /\| measure \| ours \| KSM \| ours \/ KSM \|/);
    assert.match(table, /\| scrape p99 \(ms\) \| [\d.]+ \| [\d.]+ \| [\d.]+× \|/);
    assert.equal(result.stdout, table, "the table is also printed");
    const svg = readFileSync(join(out, "chart.svg"), "utf8");
    assert.match(svg, /^<svg [^>]*xmlns="http:\/\/www.w3.org\/2000\/svg"/);
    assert.equal((svg.match(/<polyline /g) ?? []).length, 8, "4 lines per panel");
    assert.ok(svg.trimEnd().endsWith("</svg>"));
  } finally {
    rmSync(out, { recursive: true, force: true });
  }
});
