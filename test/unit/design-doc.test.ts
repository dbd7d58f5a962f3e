// docs/design.md names files: each must exist, so the walk through one event
// stays true as code moves.
import assert from "node:assert/strict";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";

const repo = join(import.meta.dirname, "..", "..");

test("every path docs/design.md names exists", () => {
  const text = readFileSync(join(repo, "docs", "design.md"), "utf8");
  const paths = [...text.matchAll(/`((?:src|test|docs)\/[^`\s]+)`/g)].map((m) => m[1] as string);
  assert.ok(paths.length >= 30, `found only ${paths.length} paths`);
  const missing = paths.filter((p) => !existsSync(join(repo, p)));
  assert.deepEqual(missing, []);
});
