import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";
import { generatedFiles } from "../../scripts/generated-files.ts";
import { REPO_ROOT } from "../monitoring/metrics-contract.ts";

test("the committed rule files and dashboards are what `npm run generate` writes", () => {
  const files = generatedFiles();
  assert.ok(files.size >= 5, `only ${files.size} generated files`);
  for (const [path, expected] of files) {
    let actual: string;
    try {
      actual = readFileSync(join(REPO_ROOT, path), "utf8");
    } catch {
      assert.fail(`${path} is missing: run npm run generate and commit the result`);
    }
    assert.ok(actual === expected, `${path} is stale: run npm run generate and commit the result`);
  }
});
