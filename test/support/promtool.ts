// Runs `promtool check metrics` (Debian package prometheus) over exposition
// text: parse errors and lint findings both fail, for every family of the
// scrape (the process and runtime families included). Missing promtool is an
// error, not a skip: CI installs it.
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";

export function promtoolCheckMetrics(text: string): void {
  const result = spawnSync("promtool", ["check", "metrics"], { input: text, encoding: "utf8" });
  if (result.error) {
    throw new Error(`promtool is required (apt-get install prometheus): ${result.error.message}`);
  }
  assert.equal(result.status, 0, `promtool check metrics failed:\n${result.stdout}${result.stderr}`);
}
