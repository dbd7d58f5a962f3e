// `npm run mutation [-- PATH…]`: mutation testing with Stryker, then the
// committed summary (test/mutation/summary.md). PATH is a folder or a file
// under src/ (default: src/core src/kube src/collectors); Stryker's
// `file.ts:10-20` line ranges pass through. Incremental: results of mutants
// whose code and covering tests did not change are reused from a per-scope
// file in the user cache, so a rerun after a small edit tests only what moved.
//   MUTATION_CONCURRENCY=N  test runner processes (default 1: a 2-core machine is shared)
//   MUTATION_FULL=1         ignore the incremental file and test every mutant
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

const scopes = process.argv.slice(2);
const targets = scopes.length > 0 ? scopes : ["src/core", "src/kube", "src/collectors"];
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
