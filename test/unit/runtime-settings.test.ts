// The exporter's runtime settings: what a process lacks of them, so that
// src/main.ts (and the benchmarks that measure the exporter in their own
// process) add only those, and leave what the operator gave as given.
import assert from "node:assert/strict";
import { test } from "node:test";
import {
  execWithRuntimeSettings,
  missingRuntimeSettings,
  type RuntimeProcess,
  runtimeEnvironment,
  runtimeFlags,
} from "../../src/runtime-settings.ts";

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

/** A process that records the execve it is asked for instead of replacing itself. */
function fakeProcess(execArgv: string[], env: NodeJS.ProcessEnv) {
  const calls: { file: string; args: string[]; env: NodeJS.ProcessEnv }[] = [];
  const proc: RuntimeProcess = {
    execArgv,
    env,
    execPath: "/usr/bin/node",
    argv: ["/usr/bin/node", "/app/src/main.ts", "--config", "c.yaml"],
    execve: ((file: string, args: string[], environment: NodeJS.ProcessEnv) => {
      calls.push({ file, args, env: environment });
    }) as NodeJS.Process["execve"],
  };
  return { proc, calls };
}

test("a process lacking a flag starts again with the missing flags first, its own flags, then the script and its arguments", () => {
  const { proc, calls } = fakeProcess(["--max-semi-space-size=16"], { MALLOC_ARENA_MAX: "4", HOME: "/root" });
  execWithRuntimeSettings(proc);
  assert.deepEqual(calls, [
    {
      file: "/usr/bin/node",
      args: [
        "/usr/bin/node",
        "--liftoff-only",
        "--initial-old-space-size=64",
        "--heap-growing-percent=20",
        "--max-semi-space-size=16",
        "/app/src/main.ts",
        "--config",
        "c.yaml",
      ],
      env: { MALLOC_ARENA_MAX: "4", HOME: "/root" },
    },
  ]);
});

test("a process lacking only the allocator setting starts again with it added to its environment", () => {
  const { proc, calls } = fakeProcess([...runtimeFlags], { HOME: "/root" });
  execWithRuntimeSettings(proc);
  assert.equal(calls.length, 1);
  assert.deepEqual(calls[0]?.args, [
    "/usr/bin/node",
    ...runtimeFlags,
    "/app/src/main.ts",
    "--config",
    "c.yaml",
  ]);
  assert.deepEqual(calls[0]?.env, { HOME: "/root", MALLOC_ARENA_MAX: "2" });
});

test("a process with every setting, or a runtime without execve, goes on as it is", () => {
  const complete = fakeProcess([...runtimeFlags], { MALLOC_ARENA_MAX: "2" });
  execWithRuntimeSettings(complete.proc);
  assert.deepEqual(complete.calls, []);
  const old = fakeProcess([], {});
  delete old.proc.execve;
  assert.doesNotThrow(() => execWithRuntimeSettings(old.proc));
});
