// `npm test`: type check, lint, then every unit and end-to-end test in one
// `node --test` run (one summary at the end). The control-plane binaries are
// resolved (and built, the first time) before any test starts, so parallel
// test files never race to build them. The tests run under a watchdog
// (scripts/test-watchdog.ts): past TEST_RUN_LIMIT_SECONDS (default 3600) the run
// fails and names what was still running, instead of hanging.
import { spawnSync } from "node:child_process";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { resolveBinaries } from "../test/cluster/binaries.ts";
import { readSkipped, skipVerdict } from "./skip-reporter.ts";
import { openHandlesPreload, runWithWatchdog } from "./test-watchdog.ts";

function step(title: string, command: string, args: string[]): void {
  const started = performance.now();
  console.log(`\n▶ ${title}: ${command} ${args.join(" ")}`);
  const result = spawnSync(command, args, { stdio: "inherit" });
  const seconds = ((performance.now() - started) / 1000).toFixed(1);
  if (result.status !== 0) {
    console.error(`✖ ${title} failed after ${seconds}s (exit ${result.status ?? result.signal})`);
    process.exit(result.status ?? 1);
  }
  console.log(`✔ ${title} (${seconds}s)`);
}

console.log(`node ${process.version} (${process.execPath})`);
step("type check", "tsc", ["--noEmit"]);
step("lint", "biome", ["check", "."]);

const started = performance.now();
const binaries = resolveBinaries();
console.log(
  `control-plane binaries from ${binaries.source} (${((performance.now() - started) / 1000).toFixed(1)}s)`,
);

const files = process.argv.slice(2);
const limitSeconds = Number(process.env.TEST_RUN_LIMIT_SECONDS ?? 3600);
if (!(limitSeconds > 0)) {
  console.error(
    `TEST_RUN_LIMIT_SECONDS=${process.env.TEST_RUN_LIMIT_SECONDS}: expected a positive number of seconds`,
  );
  process.exit(2);
}
// Skipped tests are collected beside the spec output and listed at the end.
const skipsFile = join(mkdtempSync(join(tmpdir(), "cr-test-skips-")), "skips.jsonl");
process.env.TEST_SKIPS_FILE = skipsFile;
const args = [
  `--import=${openHandlesPreload}`,
  "--test",
  "--test-reporter=spec",
  "--test-reporter-destination=stdout",
  `--test-reporter=${join(import.meta.dirname, "skip-reporter.ts")}`,
  "--test-reporter-destination=stdout",
  `--test-concurrency=${process.env.TEST_CONCURRENCY ?? "2"}`,
  "--test-timeout=600000",
  ...(files.length > 0 ? files : ["test/unit/**/*.test.ts", "test/e2e/**/*.test.ts"]),
];
const testsStarted = performance.now();
console.log(`\n▶ tests: ${process.execPath} ${args.join(" ")} (limit ${limitSeconds}s)`);
const status = await runWithWatchdog(process.execPath, args, { limitMs: limitSeconds * 1000 });
const seconds = ((performance.now() - testsStarted) / 1000).toFixed(1);
const skips = skipVerdict(readSkipped(skipsFile), process.env.CI === "true");
if (skips.text) console.log(`\n${skips.text}`);
if (skips.failed) process.exit(1);
if (status !== 0) {
  console.error(`✖ tests failed after ${seconds}s (exit ${status})`);
  process.exit(status);
}
console.log(`✔ tests (${seconds}s)`);
