#!/usr/bin/env node
// Entry point of `cr-status-exporter`; cli/ is the command line.
//
// Some runtime flags and one allocator setting only work when given at
// start-up, so a process started without them replaces itself (same pid, same
// file descriptors) with one that has them, before any other source is
// loaded. A flag the operator gave (on the command line or in NODE_OPTIONS)
// or a variable set in the environment, with any value, is left as given.
// Start node with all of them to skip the extra exec (the image does).
//
// - --liftoff-only: Node runs these TypeScript sources by stripping their types
//   in a WebAssembly module, and V8 by default recompiles that module's hot
//   functions with its optimizing compiler and keeps both versions: about
//   10 MiB that an idle sidecar would hold for work done once at start-up.
//   Set later, the module is already tiered. Nothing else here runs WebAssembly.
// - --max-semi-space-size=8, --initial-old-space-size=64,
//   --heap-growing-percent=20 (MiB, MiB, %): the initial list parses every
//   object once, and V8's defaults grew the young generation to 128 MiB for
//   that burst and let the old one fill up with the list's garbage before its
//   first full collection; neither was given back. Equal-information widgets,
//   RSS after sync: 171 MiB instead of 306 (10,000), 336 instead of 544
//   (50,000), flat under churn; at 50,000 the sync took 28 % longer and CPU
//   was 50 % higher. 4 MiB semi-spaces made a scrape of 50,000 objects (about
//   160 MiB of short-lived strings) scavenge about 50 times instead of 3.
// - MALLOC_ARENA_MAX=2: glibc gives a thread that allocates while another
//   holds the lock an arena of its own, up to 8 per core, and memory freed in
//   one is rarely given back to the system. V8's collector threads and
//   libuv's pool (gzip) allocate beside the main thread; with the default the
//   default set's memory outside the heap grew under churn and scrapes
//   (bench/README.md: 83 → 104 MiB, 10,000 widgets; 91 → 81 MiB with 2).
const runtimeFlags = [
  "--liftoff-only",
  "--max-semi-space-size=8",
  "--initial-old-space-size=64",
  "--heap-growing-percent=20",
];

const runtimeEnvironment: Readonly<Record<string, string>> = { MALLOC_ARENA_MAX: "2" };

const flagName = (flag: string): string => flag.split("=")[0] ?? flag;
const given = new Set([...process.execArgv, ...(process.env.NODE_OPTIONS ?? "").split(/\s+/)].map(flagName));
const missing = runtimeFlags.filter((flag) => !given.has(flagName(flag)));
const missingEnvironment = Object.entries(runtimeEnvironment).filter(
  ([name]) => process.env[name] === undefined,
);
if ((missing.length > 0 || missingEnvironment.length > 0) && typeof process.execve === "function") {
  process.execve(
    process.execPath,
    [process.execPath, ...missing, ...process.execArgv, ...process.argv.slice(1)],
    { ...process.env, ...Object.fromEntries(missingEnvironment) },
  );
}
const { runCli } = await import("./cli/exporter.ts");
runCli();
