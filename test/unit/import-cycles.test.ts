// No import cycle in src/, type-only imports included: each module's types
// live below the modules that use them (core/state.ts, core/entry.ts), so a
// stage can be read, tested and moved without the ones that import it.
import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { test } from "node:test";

const repo = join(import.meta.dirname, "..", "..");

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return entry.name.endsWith(".ts") ? [path] : [];
  });
}

/** The relative modules a file imports or re-exports (static, dynamic and type-only alike). */
export function relativeImports(file: string, text: string): string[] {
  const specifiers = [
    ...text.matchAll(/^\s*(?:import|export)\b[^;]*?\bfrom\s+"(\.{1,2}\/[^"]+)"/gms),
    ...text.matchAll(/^\s*import\s+"(\.{1,2}\/[^"]+)"/gm),
    ...text.matchAll(/\bimport\(\s*"(\.{1,2}\/[^"]+)"\s*\)/g),
  ].map((m) => m[1] as string);
  return specifiers.map((s) => resolve(dirname(file), s));
}

/** The strongly connected groups of more than one module, or one that imports itself (Tarjan). */
export function importCycles(graph: ReadonlyMap<string, readonly string[]>): string[][] {
  let counter = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const cycles: string[][] = [];
  const visit = (v: string): void => {
    index.set(v, counter);
    low.set(v, counter);
    counter++;
    stack.push(v);
    onStack.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!graph.has(w)) continue;
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v) as number, low.get(w) as number));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v) as number, index.get(w) as number));
    }
    if (low.get(v) !== index.get(v)) return;
    const group: string[] = [];
    let w: string | undefined;
    do {
      w = stack.pop() as string;
      onStack.delete(w);
      group.push(w);
    } while (w !== v);
    if (group.length > 1 || graph.get(v)?.includes(v)) cycles.push(group.sort());
  };
  for (const v of graph.keys()) if (!index.has(v)) visit(v);
  return cycles;
}

test("the cycle finder finds a cycle through type imports, and none in a chain", () => {
  const text =
    'import type { A } from "./a.ts";\nexport { B } from "../x/b.ts";\nconst c = await import("./c.ts");\n';
  assert.deepEqual(relativeImports("/r/src/m.ts", text), ["/r/src/a.ts", "/r/x/b.ts", "/r/src/c.ts"]);
  const chain = new Map([
    ["a", ["b"]],
    ["b", ["c"]],
    ["c", []],
  ]);
  assert.deepEqual(importCycles(chain), []);
  assert.deepEqual(importCycles(new Map([...chain, ["c", ["a"]]])), [["a", "b", "c"]]);
  assert.deepEqual(importCycles(new Map([["a", ["a"]]])), [["a"]]);
});

test("src/ has no import cycle", () => {
  const files = sourceFiles(join(repo, "src"));
  const graph = new Map(files.map((f) => [f, relativeImports(f, readFileSync(f, "utf8"))] as const));
  const cycles = importCycles(graph).map((group) => group.map((f) => relative(repo, f)).join(" → "));
  assert.deepEqual(cycles, [], "modules that import each other, directly or around a circle");
});
