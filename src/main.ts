#!/usr/bin/env node
// Entry point of `cr-status-exporter`; cli/ is the command line.
//
// Node runs these TypeScript sources by stripping their types in a
// WebAssembly module, and V8 by default recompiles that module's hot functions
// with its optimizing compiler and keeps both versions: about 10 MiB that an
// idle sidecar would hold for work done once at start-up. The flag that keeps
// WebAssembly on the baseline compiler only works when given at start-up (set
// later, the module is already tiered), so a process started without it
// replaces itself (same pid, same file descriptors) with one that has it,
// before any other source is loaded. Nothing else in this program runs
// WebAssembly. Start node with --liftoff-only to skip the extra exec.
const runtimeFlags = ["--liftoff-only"];

const missing = runtimeFlags.filter((flag) => !process.execArgv.includes(flag));
if (missing.length > 0 && typeof process.execve === "function") {
  process.execve(process.execPath, [
    process.execPath,
    ...missing,
    ...process.execArgv,
    ...process.argv.slice(1),
  ]);
}
const { runCli } = await import("./cli/exporter.ts");
runCli();
