// scripts/ensure-deps.sh (run before npm start and npm test): installs when the
// lock is newer than what is installed, never into node_modules linked from
// another checkout. Run on copies of the script with an `npm` stand-in on PATH
// that records its arguments.
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import {
  chmodSync,
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  symlinkSync,
  utimesSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";

/** A checkout with the script, a lock newer than node_modules' copy, and an npm that records calls. */
function checkout(linked: boolean): { root: string; calls: string; run(): ReturnType<typeof spawnSync> } {
  const base = mkdtempSync(join(tmpdir(), "ensure-deps-"));
  const root = join(base, "tree");
  mkdirSync(join(root, "scripts"), { recursive: true });
  copyFileSync(
    new URL("../../scripts/ensure-deps.sh", import.meta.url),
    join(root, "scripts/ensure-deps.sh"),
  );
  const modules = linked ? join(base, "other-checkout-node_modules") : join(root, "node_modules");
  mkdirSync(join(modules, ".bin"), { recursive: true });
  writeFileSync(join(modules, ".bin/node"), "#!/bin/sh\n");
  chmodSync(join(modules, ".bin/node"), 0o755);
  writeFileSync(join(modules, ".package-lock.json"), "{}");
  if (linked) symlinkSync(modules, join(root, "node_modules"));
  utimesSync(join(modules, ".package-lock.json"), new Date(2026, 0, 1), new Date(2026, 0, 1));
  writeFileSync(join(root, "package-lock.json"), "{}");
  const bin = join(base, "bin");
  const calls = join(base, "npm-calls");
  mkdirSync(bin);
  writeFileSync(join(bin, "npm"), `#!/bin/sh\necho "$@" >> ${calls}\n`);
  chmodSync(join(bin, "npm"), 0o755);
  return {
    root,
    calls,
    run: () =>
      spawnSync("sh", [join(root, "scripts/ensure-deps.sh")], {
        encoding: "utf8",
        env: { ...process.env, PATH: `${bin}:${process.env.PATH}` },
      }),
  };
}

test("a lock newer than node_modules' copy runs npm ci", () => {
  const c = checkout(false);
  const result = c.run();
  assert.equal(result.status, 0);
  assert.match(readFileSync(c.calls, "utf8"), /^ci /);
});

test("node_modules linked from another checkout is never installed into: a warning, exit 0", () => {
  const c = checkout(true);
  const result = c.run();
  assert.equal(result.status, 0);
  assert.equal(existsSync(c.calls), false, "npm was not run");
  assert.match(String(result.stderr), /link to another checkout/);
});
