// Keeps bench/proxy-latency.ts working: a small run (50 widgets, 20 rounds,
// 1 MB audit batches, the exporter killed every second, processes pinned) into a scratch
// directory, its results complete and well formed: every phase measured on
// both paths, the loads counted as done, /healthz judged where it should be.
// Never asserts on timings: they belong in the results.
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";

const repo = join(import.meta.dirname, "..", "..");

interface Stats {
  p50: number;
  p99: number;
  max: number;
}
interface Phase {
  phase: string;
  paths: { direct: Stats; proxy: Stats };
  healthz: Stats | null;
  background: Record<string, number>;
}

function run(args: string[]): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [join(repo, "bench", "proxy-latency.ts"), ...args], { cwd: repo });
    let output = "";
    child.stdout.on("data", (c: Buffer) => {
      output += c.toString();
    });
    child.stderr.on("data", (c: Buffer) => {
      output += c.toString();
    });
    child.on("exit", (code) => resolve({ code, output }));
  });
}

test("proxy-latency: every phase measured on both paths, loads done, results written", async () => {
  const out = mkdtempSync(join(tmpdir(), "cr-bench-proxy-"));
  try {
    const { code, output } = await run([
      ...[
        "--objects",
        "50",
        "--requests",
        "20",
        "--batch-mb",
        "1",
        "--kill-every-s",
        "1",
        "--pin",
        "--out",
        out,
      ],
    ]);
    assert.equal(code, 0, output.slice(-3000));
    const results = JSON.parse(readFileSync(join(out, "latest.json"), "utf8")) as {
      objects: number;
      pinned: boolean;
      results: Phase[];
      verdicts: Record<string, { measured: number; limit: number; met: boolean }>;
    };
    assert.equal(results.objects, 50);
    assert.equal(results.pinned, true);
    assert.match(output, /# pinned: client \d+ and proxy \d+ on CPU 0/);
    assert.deepEqual(
      results.results.map((r) => r.phase),
      ["idle", "scrapes and summaries", "audit batches", "loaded", "killed"],
    );
    for (const r of results.results) {
      for (const path of [r.paths.direct, r.paths.proxy])
        for (const v of [path.p50, path.p99, path.max])
          assert.ok(Number.isFinite(v) && v > 0, `${r.phase}: ${v}`);
      assert.equal(r.healthz === null, r.phase === "killed", `${r.phase}: /healthz judged unless killed`);
    }
    const done = (phase: string) => results.results.find((r) => r.phase === phase)?.background ?? {};
    assert.ok(
      (done("scrapes and summaries").scrapes ?? 0) > 0,
      JSON.stringify(done("scrapes and summaries")),
    );
    assert.ok((done("audit batches")["audit batches"] ?? 0) > 0, JSON.stringify(done("audit batches")));
    assert.ok((done("killed").exporter_kills ?? 0) > 0, JSON.stringify(done("killed")));
    assert.deepEqual(Object.keys(results.verdicts), [
      "added_p99_idle_ms",
      "added_p99_loaded_ms",
      "added_p99_killed_ms",
      "healthz_p99_loaded_ms",
    ]);
    assert.match(output, /\| healthz_p99_loaded_ms \| ≤ 100 \| [\d.]+ (met|\*\*missed\*\*) \|/);
  } finally {
    rmSync(out, { recursive: true, force: true });
  }
});
