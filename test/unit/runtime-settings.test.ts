// The exporter's runtime settings: what a process lacks of them, so that
// src/main.ts (and the benchmarks that measure the exporter in their own
// process) add only those, and leave what the operator gave as given.
import assert from "node:assert/strict";
import { test } from "node:test";
import { missingRuntimeSettings, runtimeEnvironment, runtimeFlags } from "../../src/runtime-settings.ts";

test("a bare process lacks every flag and the allocator setting", () => {
  const missing = missingRuntimeSettings([], {});
  assert.deepEqual(missing.flags, [...runtimeFlags]);
  assert.deepEqual(missing.environment, Object.entries(runtimeEnvironment));
  assert.ok(runtimeFlags.includes("--max-semi-space-size=8"));
  assert.equal(runtimeEnvironment.MALLOC_ARENA_MAX, "2");
});

test("a flag given with another value, on the command line or in NODE_OPTIONS, counts as given", () => {
  const missing = missingRuntimeSettings(["--max-semi-space-size=16"], {
    NODE_OPTIONS: "--heap-growing-percent=50  --liftoff-only",
    MALLOC_ARENA_MAX: "",
  });
  assert.deepEqual(missing.flags, ["--initial-old-space-size=64"]);
  assert.deepEqual(missing.environment, [], "a variable set, even empty, is the operator's");
});

test("a process started with all of them lacks nothing", () => {
  assert.deepEqual(missingRuntimeSettings([...runtimeFlags], { MALLOC_ARENA_MAX: "4" }), {
    flags: [],
    environment: [],
  });
});
