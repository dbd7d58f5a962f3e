// A node:test reporter beside spec: it prints nothing while tests run and
// writes every skipped test (file, name, reason) as JSON lines to the file
// named by TEST_SKIPS_FILE, so scripts/run-tests.ts can list them in its
// summary — and fail the run under CI=true, where nothing may skip.
import { appendFileSync, existsSync, readFileSync } from "node:fs";
import { relative } from "node:path";

interface TestEventData {
  name: string;
  file?: string;
  skip?: string | boolean;
}

export interface SkippedTest {
  file: string;
  name: string;
  reason: string;
}

export default async function* skipReporter(
  source: AsyncIterable<{ type: string; data: TestEventData }>,
): AsyncGenerator<string> {
  const out = process.env.TEST_SKIPS_FILE;
  for await (const event of source) {
    if (event.type !== "test:pass" && event.type !== "test:fail") continue;
    const { name, file, skip } = event.data;
    if (skip === undefined || skip === false || !out) continue;
    const skipped: SkippedTest = {
      file: file ? relative(process.cwd(), file) : "?",
      name,
      reason: typeof skip === "string" ? skip : "(no reason given)",
    };
    appendFileSync(out, `${JSON.stringify(skipped)}\n`);
  }
  yield "";
}

/** The skipped tests a run wrote to `file` (none when it was never written). */
export function readSkipped(file: string): SkippedTest[] {
  if (!existsSync(file)) return [];
  return readFileSync(file, "utf8")
    .trim()
    .split("\n")
    .map((line) => JSON.parse(line) as SkippedTest);
}

/** The end-of-run list of skipped tests, and whether they fail the run (any skip under CI=true). */
export function skipVerdict(skipped: SkippedTest[], ci: boolean): { text: string; failed: boolean } {
  if (skipped.length === 0) return { text: "", failed: false };
  const lines = [
    `ℹ ${skipped.length} skipped:`,
    ...skipped.map((s) => `  - ${s.file}: ${s.name} (${s.reason})`),
  ];
  if (ci)
    lines.push(
      `✖ CI=true: ${skipped.length} tests skipped; nothing may skip in CI (.ci/run installs every tool)`,
    );
  return { text: lines.join("\n"), failed: ci };
}
