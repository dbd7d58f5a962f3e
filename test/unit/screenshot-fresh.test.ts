// The README's screenshot of the status page (docs/status-page.png) is made
// by the demo-page end-to-end test (STATUS_PAGE_SCREENSHOT=docs/status-page.png
// node --test test/e2e/status-demo-page.test.ts); it must not be older than
// the page it shows: a commit that changes the page's HTML or style without a
// new screenshot fails here.
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { test } from "node:test";

const root = new URL("../../", import.meta.url).pathname;
const lastCommitTime = (...paths: string[]): number =>
  Number(
    execFileSync("git", ["log", "-1", "--format=%ct", "--", ...paths], {
      cwd: root,
      encoding: "utf8",
    }).trim(),
  );

/** Whether this tree is the repository's own checkout (a copy, such as a mutation sandbox, has no history). */
const tracked = (path: string): boolean => {
  try {
    return (
      execFileSync("git", ["ls-files", "--", path], {
        cwd: root,
        encoding: "utf8",
        stdio: ["ignore", "pipe", "ignore"],
      }).trim() !== ""
    );
  } catch {
    return false;
  }
};

test("docs/status-page.png is not older than the page's HTML and style", (t) => {
  if (!tracked("docs/status-page.png")) {
    t.skip("not a git checkout of the repository (the screenshot's age is read from its history)");
    return;
  }
  const page = lastCommitTime("src/status/page/");
  const shot = lastCommitTime("docs/status-page.png");
  assert.ok(page > 0 && shot > 0, "both are in the history");
  assert.ok(
    shot >= page,
    "src/status/page/ changed after the screenshot: STATUS_PAGE_SCREENSHOT=docs/status-page.png node --test test/e2e/status-demo-page.test.ts",
  );
});
