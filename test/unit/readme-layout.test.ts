// The README's layout table names every folder and top-level file of src/
// (and its nested folders), and nothing that is not there.
import assert from "node:assert/strict";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { test } from "node:test";

const root = join(import.meta.dirname, "..", "..");

function srcEntries(dir = "src"): string[] {
  const entries: string[] = [];
  for (const entry of readdirSync(join(root, dir), { withFileTypes: true })) {
    const path = `${dir}/${entry.name}`;
    if (entry.isDirectory()) entries.push(`${path}/`, ...srcEntries(path).filter((p) => p.endsWith("/")));
    else if (dir === "src") entries.push(path);
  }
  return entries;
}

test("the README layout table matches src/", () => {
  const readme = readFileSync(join(root, "README.md"), "utf8");
  const layout = readme.slice(readme.indexOf("## Layout"), readme.indexOf("## License"));
  const named = [...layout.matchAll(/`(src\/[^`]*)`/g)].map((m) => m[1] as string);
  for (const path of named)
    assert.ok(existsSync(join(root, path)), `${path} is in the README but not in the tree`);
  const missing = srcEntries().filter((path) => !named.includes(path));
  assert.deepEqual(missing, [], "in src/ but not in the README's layout table");
});
