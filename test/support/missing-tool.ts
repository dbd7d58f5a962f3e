// What a test does when a tool or file it needs is missing: locally it skips
// with the reason (scripts/run-tests.ts lists every skip at the end); under
// CI=true, where .ci/run installs everything, the missing tool is an error
// that names it, so a run never passes with tests quietly left out.

/** `reason` to skip with (undefined: nothing missing); throws under CI=true. */
export function skipUnlessCi(reason: string | undefined): string | undefined {
  if (reason !== undefined && process.env.CI === "true") {
    throw new Error(`CI=true and ${reason}: nothing may skip in CI (.ci/run installs every tool)`);
  }
  return reason;
}
