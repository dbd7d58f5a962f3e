// Keeps the benchmark harness working: runs `bench/run.ts --quick` (1k widgets,
// short phases, every subject) into a scratch directory and checks that the
// results are complete and well formed. Never asserts on timings: the numbers
// belong in the results, not in a test.
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { test } from "node:test";
import { fileURLToPath } from "node:url";
import { measured, type RunResult, type SubjectResult } from "../../bench/lib/results.ts";
import type { Summary } from "../../bench/lib/summary.ts";

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

function checkSubject(s: SubjectResult | undefined, who: string, objects: number, scrapes: number): void {
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
  assert.equal(s.scrape.scrapes, scrapes);
  assert.equal(s.scrape.gzipScrapes, scrapes);
  for (const key of [
    "p50Ms",
    "p99Ms",
    "gzipP50Ms",
    "gzipP99Ms",
    "bytes",
    "gzipBytes",
    "seriesPerObject",
    "bytesPerSeries",
  ] as const)
    finite(s.scrape[key], `${who}.scrape.${key}`);
  assert.ok(
    s.scrape.p99Ms >= s.scrape.p50Ms && s.scrape.gzipP99Ms >= s.scrape.gzipP50Ms,
    `${who}: percentiles`,
  );
  // Every object has its per-object series (more than one each), and they are counted apart from the rest.
  assert.ok(s.scrape.objectSeries > objects, `${who}: ${s.scrape.objectSeries} object series for ${objects}`);
  assert.ok(s.scrape.series >= s.scrape.objectSeries, `${who}: series`);
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

test("npm run bench -- --quick produces complete results for every subject", {
  timeout: 600_000,
}, async () => {
  const out = mkdtempSync(join(tmpdir(), "bench-quick-"));
  const scrapes = 40;
  try {
    const result = await runBench([
      "--quick",
      "--latency-seconds",
      "4",
      "--churn-seconds",
      "10",
      "--scrapes",
      String(scrapes),
      "--out",
      out,
    ]);
    assert.equal(result.code, 0, `bench exited with ${result.code}:\n${result.stderr.slice(-4000)}`);
    const files = readdirSync(out);
    const json = files.find((f) => f.endsWith("-1000-quick.json"));
    assert.ok(json, `no results file in ${files.join(", ")}`);
    const run = JSON.parse(readFileSync(join(out, json), "utf8")) as RunResult;
    assert.equal(run.schema, 2);
    assert.match(run.ksmVersion, /^v2\.\d+\.\d+$/);
    assert.ok(run.objectBytes > 1000, `objects of ${run.objectBytes} bytes`);
    assert.deepEqual(
      run.subjects.map((s) => s.id),
      ["ksm", "equal", "default"],
    );
    assert.equal(run.sizes.length, 1);
    const [size] = run.sizes;
    assert.equal(size?.objects, 1000);
    checkSubject(measured(size?.subjects.ksm), "ksm", 1000, scrapes);
    checkSubject(measured(size?.subjects.default), "default", 1000, scrapes);
    const ksm = measured(size?.subjects.ksm);
    assert.equal(ksm?.scrape.seriesPerObject, 19, "KSM: 12 condition + 2 generation + 5 phase series");
    // The equal-information subject runs where the exporter has an allow list, and is
    // skipped with the exporter's own words where it has not.
    const equal = size?.subjects.equal;
    assert.ok(equal, "equal: neither measured nor skipped");
    if ("skipped" in equal) {
      assert.match(equal.skipped, /rejected its config \(exit 2\): .*metrics/);
    } else {
      checkSubject(equal, "equal", 1000, scrapes);
      // The allow list took effect: no more series than KSM's for the same information
      // (fewer if a state set exports only the current state), fewer than the default set.
      const deflt = measured(size?.subjects.default);
      assert.ok(
        equal.scrape.seriesPerObject <= (ksm?.scrape.seriesPerObject ?? 0) &&
          equal.scrape.seriesPerObject < (deflt?.scrape.seriesPerObject ?? 0),
        `equal: ${equal.scrape.seriesPerObject} series per object, KSM ${ksm?.scrape.seriesPerObject}, default ${deflt?.scrape.seriesPerObject}`,
      );
    }
    for (const ours of [measured(size?.subjects.default), measured(equal)]) {
      if (!ours) continue;
      assert.ok(ours.scrape.eventLoopMetric, "ours: no event-loop delay metric found");
      finite(ours.scrape.eventLoopMaxDelayMs, "ours: event-loop max delay");
      // The idle control process read once per scrape; it cannot read less than its 10 ms resolution.
      assert.equal(ours.scrape.controlEventLoopMaxDelayPerScrapeMs.length, 2 * (ours.scrape.scrapes ?? 0));
      assert.ok((ours.scrape.controlEventLoopMaxDelayMs ?? 0) >= 10, "ours: the idle process's delay");
    }

    const idle = measured(run.idle);
    assert.ok(idle, "no idle measurement");
    assert.ok(idle.rssSettledBytes > 0 && idle.readySeconds > 0, "idle: /proc samples");
    assert.match(idle.config, /crdDiscovery: false/);

    const micro = run.micro;
    assert.ok(micro, "no micro-benchmarks");
    finite(micro.events.parseOnlyEventsPerCoreSecond, "parse-only events/s");
    finite(micro.events.ingestEventsPerCoreSecond, "ingest events/s");
    assert.ok(micro.write.length >= 1 && micro.write.every((w) => w.series >= w.targetSeries && w.bytes > 0));

    const latest = JSON.parse(readFileSync(join(out, "latest.json"), "utf8")) as {
      summary: Summary;
      targets: { verdict: string }[];
      run: RunResult;
    };
    assert.deepEqual(latest.run, run, "latest.json carries the raw run");
    assert.deepEqual(Object.keys(latest.summary.sizes), ["1000"]);
    assert.equal(
      latest.summary.sizes["1000"]?.default.series_per_object,
      Number(measured(size?.subjects.default)?.scrape.seriesPerObject.toFixed(2)),
    );
    assert.ok((latest.summary.idle_rss_mib ?? 0) > 0, "summary: idle RSS");
    assert.ok(latest.targets.length > 0, "targets judged");

    const table = readFileSync(join(out, "latest.md"), "utf8");
    assert.match(
      table,
      /\| measure \| KSM \| ours, equal information \| equal \/ KSM \| ours, default set \| default \/ KSM \|/,
    );
    assert.match(
      table,
      /\| scrape p99 \(ms, gzip, n=40\) \| [\d.]+ \| (skipped|[\d.]+) \| [\d.]*×? \| [\d.]+ \| [\d.]+× \|/,
    );
    assert.match(table, /\| target +\| +limit \| +1,000 \|/);
    assert.equal(result.stdout, table, "the report is also printed");
    const svg = readFileSync(join(out, "chart.svg"), "utf8");
    assert.match(svg, /^<svg [^>]*xmlns="http:\/\/www.w3.org\/2000\/svg"/);
    const measuredSubjects = Object.values(size?.subjects ?? {}).filter((s) => measured(s)).length;
    assert.equal(
      (svg.match(/<polyline /g) ?? []).length,
      4 * measuredSubjects,
      "2 lines per panel per subject",
    );
    assert.ok(svg.trimEnd().endsWith("</svg>"));
  } finally {
    rmSync(out, { recursive: true, force: true });
  }
});
