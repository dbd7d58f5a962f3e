// Runs `promtool check metrics` (Debian package prometheus) over exposition
// text. Missing promtool is an error, not a skip: CI installs it.

import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";

export function promtoolCheckMetrics(text: string): void {
  const result = spawnSync("promtool", ["check", "metrics"], { input: text, encoding: "utf8" });
  if (result.error) {
    throw new Error(`promtool is required (apt-get install prometheus): ${result.error.message}`);
  }
  // Lint findings (e.g. counters without _total) are printed but only errors fail.
  assert.equal(result.status, 0, `promtool check metrics failed:\n${result.stdout}${result.stderr}`);
}
