// Runs `promtool check metrics` (Debian package prometheus) over exposition
// text. Missing promtool is an error, not a skip: CI installs it.
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";

/**
 * Drops the client library's own Node.js families (nodejs_*), whose names
 * predate promtool's lint rules and are not ours to change.
 */
export function withoutLibraryFamilies(text: string): string {
  return text
    .split("\n")
    .filter((line) => !/^(# (HELP|TYPE) )?nodejs_/.test(line))
    .join("\n");
}

/** Parse errors and lint findings in our families both fail. */
export function promtoolCheckMetrics(text: string): void {
  const result = spawnSync("promtool", ["check", "metrics"], {
    input: withoutLibraryFamilies(text),
    encoding: "utf8",
  });
  if (result.error) {
    throw new Error(`promtool is required (apt-get install prometheus): ${result.error.message}`);
  }
  assert.equal(result.status, 0, `promtool check metrics failed:\n${result.stdout}${result.stderr}`);
}
