// Runs `promtool check metrics` over exposition text, with both Prometheus
// 2.x's promtool (Debian) and 3.x's (built from the Go module proxy), whose
// lint rules differ: parse errors and lint findings both fail, for every
// family of the scrape (the process and runtime families included). A
// missing promtool is an error, not a skip: CI installs and builds both.
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { type PrometheusMajor, promtoolPath } from "../prometheus/binaries.ts";

export function promtoolCheckMetrics(text: string): void {
  for (const major of ["2", "3"] as const satisfies PrometheusMajor[]) {
    const result = spawnSync(promtoolPath(major), ["check", "metrics"], { input: text, encoding: "utf8" });
    if (result.error) throw new Error(`promtool ${major}.x: ${result.error.message}`);
    assert.equal(
      result.status,
      0,
      `promtool ${major}.x check metrics failed:\n${result.stdout}${result.stderr}`,
    );
  }
}
