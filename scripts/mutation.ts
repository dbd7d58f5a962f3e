// `npm run mutation [-- PATH…]`: mutation testing with Stryker, then the
// committed summary (test/mutation/summary.md). PATH is a folder or a file
// under src/, alerts/src or dashboards/src (default: all three); Stryker's
// `file.ts:10-20` line ranges pass through. Incremental: results of mutants
// whose code and covering tests did not change are reused from a per-scope
// file in the user cache, so a rerun after a small edit tests only what moved.
// `--changed [BASE]` mutates only the source files changed since BASE (default:
// the last commit that wrote the summary), committed or not: a change checked
// in minutes.
//   MUTATION_CONCURRENCY=N  test runner processes (default 1: a 2-core machine is shared)
//   MUTATION_FULL=1         ignore the incremental file and test every mutant
import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import type { PartialStrykerOptions } from "@stryker-mutator/api/core";
import { Stryker } from "@stryker-mutator/core";
import { writeSummary } from "../test/mutation/summarize.ts";

const root = path.resolve(import.meta.dirname, "..");
process.chdir(root);
// The tap runner starts test files with the `node` on PATH: make it this Node.
process.env.PATH = `${path.dirname(process.execPath)}${path.delimiter}${process.env.PATH ?? ""}`;

/** What mutation testing covers by default: every source folder (incremental, so a rerun tests only what moved). */
const measuredFolders = ["src", "alerts/src", "dashboards/src"];

const git = (...args: string[]): string => execFileSync("git", args, { cwd: root, encoding: "utf8" }).trim();

/** TypeScript files under the measured folders changed since `base` (committed, staged or not), that still exist. */
function changedSince(base: string): string[] {
  const names = git("diff", "--name-only", base, "--", ...measuredFolders).split("\n");
  return names.filter((f) => f.endsWith(".ts") && fs.existsSync(path.join(root, f))).sort();
}

function chooseTargets(args: string[]): string[] {
  if (args[0] !== "--changed") return args.length > 0 ? args : measuredFolders;
  const base = args[1] ?? git("log", "-1", "--format=%H", "--", "test/mutation/summary.md");
  const changed = changedSince(base);
  console.log(
    `mutation: ${changed.length} files changed since ${base.slice(0, 12)}: ${changed.join(", ") || "none"}`,
  );
  if (changed.length === 0) process.exit(0);
  return changed;
}

const targets = chooseTargets(process.argv.slice(2));
const mutate = targets.map((target) => {
  const [file] = target.split(":");
  if (!file || !fs.existsSync(file)) {
    console.error(`mutation: ${target}: no such file or folder (expected a path under src/)`);
    process.exit(2);
  }
  return fs.statSync(file).isDirectory() ? `${target.replace(/\/+$/, "")}/**/*.ts` : target;
});

const cacheDir = path.join(
  process.env.XDG_CACHE_HOME ?? path.join(os.homedir(), ".cache"),
  "cr-status-exporter",
  "mutation",
);
fs.mkdirSync(cacheDir, { recursive: true });
const joinedSlug = targets
  .map((t) => t.replace(/[^A-Za-z0-9._-]+/g, "-"))
  .sort()
  .join("+");
// A file name may hold 255 bytes: a long list of files keeps its first part
// readable and ends in a hash of the whole list, so each scope keeps its own file.
const slug =
  joinedSlug.length <= 200
    ? joinedSlug
    : `${joinedSlug.slice(0, 150)}+${createHash("sha256").update(joinedSlug).digest("hex").slice(0, 16)}`;
const reportFile = path.join(root, ".cache", "mutation", `report-${slug}.json`);

const options: PartialStrykerOptions = {
  packageManager: "npm",
  mutate,
  // Each unit test file runs in its own `node --test-reporter=tap` process;
  // per-test coverage then means per file: a mutant runs only the files that reach it.
  testRunner: "tap",
  tap: {
    testFiles: ["test/unit/**/*.test.ts"],
    nodeArgs: ["--test-reporter=tap", "-r", "{{hookFile}}", "{{testFile}}"],
    forceBail: true,
  },
  coverageAnalysis: "perTest",
  // Mutants in module-level constants would need every test file per mutant.
  ignoreStatic: true,
  checkers: ["tsc"],
  plugins: ["@stryker-mutator/tap-runner", "./test/mutation/tsc-checker.ts"],
  // Stryker rewrites the tsconfig in its sandbox through the TypeScript 5/6
  // compiler API, which TypeScript 7 lacks. Ours has no `extends` or
  // `references` to rewrite, so point it at a file that does not exist.
  tsconfigFile: "tsconfig.not-rewritten.json",
  concurrency: Number(process.env.MUTATION_CONCURRENCY ?? 1),
  incremental: true,
  incrementalFile: path.join(cacheDir, `incremental-${slug}.json`),
  force: process.env.MUTATION_FULL === "1",
  reporters: ["json", "clear-text", "progress"],
  jsonReporter: { fileName: reportFile },
  clearTextReporter: { allowColor: false, logTests: false, reportMutants: false },
  tempDirName: ".cache/stryker-tmp",
  ignorePatterns: [".cache", "coverage"],
  // Added to 1.5 × a test file's own time: a mutant that makes a test hang is stopped soon.
  timeoutMS: 5_000,
  // The initial run starts every unit test file once; on a shared, loaded
  // machine it outlasts Stryker's default of 5 minutes.
  dryRunTimeoutMinutes: 20,
  thresholds: { high: 85, low: 75, break: null },
};
const stryker = new Stryker(options);
const started = performance.now();
await stryker.runMutationTest();
const summary = writeSummary(reportFile, root);
console.log(
  `\nmutation: ${mutate.join(", ")} in ${((performance.now() - started) / 1000).toFixed(0)} s; summary in test/mutation/summary.md`,
);
for (const [file, score] of Object.entries(summary)) {
  if (mutate.some((m) => file.startsWith(m.split("*")[0]?.split(":")[0] ?? file))) {
    console.log(`  ${file}: ${score.score ?? "–"} % (${score.survivors.length} surviving)`);
  }
}
