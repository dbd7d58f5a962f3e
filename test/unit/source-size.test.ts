// Small files with one concern: no source file grows past 350 lines. A file
// that does has taken on a second concern; split it along that seam.
import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";

const MAX_LINES = 350;
const root = new URL("../../src/", import.meta.url).pathname;
// Mutation testing runs this in a sandbox copy where every file starts with an
// added `// @ts-nocheck` and the mutated file is rewritten: neither is the source.
const instrumented = "stryNS_9fa48";
const sandboxHeader = /^\/\/ @ts-nocheck\n/;

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory()
      ? sourceFiles(join(dir, entry.name))
      : entry.name.endsWith(".ts")
        ? [join(dir, entry.name)]
        : [],
  );
}

test(`no file in src/ is longer than ${MAX_LINES} lines`, () => {
  const files = sourceFiles(root);
  assert.ok(files.length > 50, `found only ${files.length} files under ${root}`);
  const long = files
    .map((file) => ({
      file: file.slice(root.length),
      text: readFileSync(file, "utf8").replace(sandboxHeader, ""),
    }))
    .filter(({ text }) => !text.includes(instrumented))
    .map(({ file, text }) => ({ file, lines: text.split("\n").length - 1 }))
    .filter(({ lines }) => lines > MAX_LINES);
  assert.deepEqual(long, []);
});
