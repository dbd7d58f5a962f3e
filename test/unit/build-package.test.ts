// The npm package's build: types stripped with positions kept, relative .ts
// specifiers (static and dynamic imports, new URL) turned into .js, nothing else.
import assert from "node:assert/strict";
import { test } from "node:test";
import { buildFile, rewriteSpecifiers } from "../../scripts/build-package.ts";

test("relative .ts specifiers become .js; other strings stay", () => {
  assert.equal(
    rewriteSpecifiers(
      `import { a } from "./a.ts";\nconst b = await import('../b/c.ts');\nnew URL("./d.ts", import.meta.url);`,
    ),
    `import { a } from "./a.js";\nconst b = await import('../b/c.js');\nnew URL("./d.js", import.meta.url);`,
  );
  for (const kept of [`"src/kube/kubeconfig.ts"`, `"./a.tsx"`, `"node:fs"`, `"./notes.ts.md"`, "`./x.ts`"]) {
    assert.equal(rewriteSpecifiers(kept), kept);
  }
});

test("types are stripped in place: the JavaScript runs and keeps its line numbers", async () => {
  const js = buildFile(
    `import type { X } from "./x.ts";\nexport const n: number = 1;\nexport function f(a: string): string {\n  return a;\n}\n`,
  );
  assert.doesNotMatch(js, /: number|: string|import type/);
  assert.equal(js.split("\n").length, 6);
  const module = (await import(`data:text/javascript,${encodeURIComponent(js)}`)) as {
    n: number;
    f: (a: string) => string;
  };
  assert.equal(module.n, 1);
  assert.equal(module.f("ok"), "ok");
});
