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
// With apiProxy configured, this process becomes the supervisor of two
// children started from this same file: the API proxy and the exporter, each in
// its own process (src/supervisor/, docs/status-writes.md#process-model). It
// first replaces itself (same pid) with a process that loads only the
// supervisor, not the configuration code it decided with. Without apiProxy,
// the exporter runs here as one process.
const { logLevelVariable, roleOf, roleVariable } = await import("./supervisor/roles.ts");
const role = roleOf(process.env);
const argv = process.argv.slice(2);
if (role === "api-proxy") {
  const { runApiProxyProcess } = await import("./statuswrites/process/proxy-process.ts");
  runApiProxyProcess();
} else if (role === "supervisor") {
  const { runSupervisor } = await import("./supervisor/run-supervisor.ts");
  runSupervisor({ main: import.meta.filename, argv, logLevel: process.env[logLevelVariable] });
} else {
  const logLevel =
    role === undefined ? (await import("./supervisor/decide.ts")).supervisedLogLevel(argv) : undefined;
  if (logLevel && typeof process.execve === "function") {
    process.execve(process.execPath, [process.execPath, ...process.execArgv, import.meta.filename, ...argv], {
      ...process.env,
      [roleVariable]: "supervisor",
      [logLevelVariable]: logLevel,
    });
  } else if (logLevel) {
    const { runSupervisor } = await import("./supervisor/run-supervisor.ts");
    runSupervisor({ main: import.meta.filename, argv, logLevel });
  } else {
    const { runCli } = await import("./cli/exporter.ts");
    runCli();
  }
}
