// `npm pack` (prepack): the npm package's JavaScript, built from src/ into
// dist/ with the same layout. Node.js strips TypeScript types itself, but not
// under node_modules (ERR_UNSUPPORTED_NODE_MODULES_TYPE_STRIPPING), so an
// installed package must carry JavaScript. The sources use erasable syntax
// only, so stripping the types (Node's own stripTypeScriptTypes, positions
// kept) and pointing relative `.ts` specifiers at `.js` is the whole build.
// `postpack` removes dist/ again: in a clone, bin/ runs the sources.
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { stripTypeScriptTypes } from "node:module";
import { dirname, join, relative } from "node:path";

const root = join(import.meta.dirname, "..");
const source = join(root, "src");
const target = join(root, "dist");

/** "./x.ts" and "../y/z.ts" in quotes (imports, dynamic imports, new URL(...)) → .js. */
export function rewriteSpecifiers(code: string): string {
  return code.replace(/(["'])(\.\.?\/[^"'\s]*?)\.ts\1/g, "$1$2.js$1");
}

export function buildFile(code: string): string {
  return rewriteSpecifiers(stripTypeScriptTypes(code, { mode: "strip" }));
}

function* sources(dir: string): Generator<string> {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) yield* sources(path);
    else if (entry.name.endsWith(".ts")) yield path;
  }
}

export function buildPackage(): number {
  rmSync(target, { recursive: true, force: true });
  let files = 0;
  for (const path of sources(source)) {
    const out = join(target, relative(source, path)).replace(/\.ts$/, ".js");
    mkdirSync(dirname(out), { recursive: true });
    writeFileSync(out, buildFile(readFileSync(path, "utf8")));
    files++;
  }
  return files;
}

if (import.meta.main) {
  if (process.argv.includes("--clean")) rmSync(target, { recursive: true, force: true });
  else process.stderr.write(`build-package: ${buildPackage()} files from src/ to dist/\n`);
}
