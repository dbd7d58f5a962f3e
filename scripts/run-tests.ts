// `npm test`: type check, lint, then every unit and end-to-end test in one
// `node --test` run (one summary at the end). The control-plane binaries are
// resolved (and built, the first time) before any test starts, so parallel
// test files never race to build them.
import { spawnSync } from "node:child_process";
import { resolveBinaries } from "../test/cluster/binaries.ts";

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
step("tests", process.execPath, [
  "--test",
  "--test-reporter=spec",
  `--test-concurrency=${process.env.TEST_CONCURRENCY ?? "2"}`,
  "--test-timeout=600000",
  ...(files.length > 0 ? files : ["test/unit/**/*.test.ts", "test/e2e/**/*.test.ts"]),
]);
