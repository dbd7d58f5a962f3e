// The runtime flags and allocator setting the exporter runs with, in one
// place: src/main.ts applies them at start-up, and benchmarks that measure
// the exporter's code in their own process apply them too, so they measure a
// heap configured as the exporter's is. Why each one:
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
export const runtimeFlags: readonly string[] = [
  "--liftoff-only",
  "--max-semi-space-size=8",
  "--initial-old-space-size=64",
  "--heap-growing-percent=20",
];

export const runtimeEnvironment: Readonly<Record<string, string>> = { MALLOC_ARENA_MAX: "2" };

const flagName = (flag: string): string => flag.split("=")[0] ?? flag;

/**
 * What this process lacks of the settings: a flag the operator gave (on the
 * command line or in NODE_OPTIONS), or a variable set with any value, counts
 * as given.
 */
export function missingRuntimeSettings(
  execArgv: readonly string[],
  env: NodeJS.ProcessEnv,
): { flags: string[]; environment: [string, string][] } {
  const given = new Set([...execArgv, ...(env.NODE_OPTIONS ?? "").split(/\s+/)].map(flagName));
  return {
    flags: runtimeFlags.filter((flag) => !given.has(flagName(flag))),
    environment: Object.entries(runtimeEnvironment).filter(([name]) => env[name] === undefined),
  };
}

/** What execWithRuntimeSettings reads of the process (a test passes its own). */
export type RuntimeProcess = Pick<NodeJS.Process, "execArgv" | "env" | "execPath" | "argv"> & {
  execve?: NodeJS.Process["execve"];
};

/**
 * Replaces this process (same pid, same file descriptors) with one that has
 * the settings, when it lacks any and the runtime can (process.execve);
 * returns otherwise. The missing flags go first, then the process's own, then
 * the script and its arguments.
 */
export function execWithRuntimeSettings(proc: RuntimeProcess = process): void {
  const { flags, environment } = missingRuntimeSettings(proc.execArgv, proc.env);
  if ((flags.length > 0 || environment.length > 0) && typeof proc.execve === "function") {
    proc.execve(proc.execPath, [proc.execPath, ...flags, ...proc.execArgv, ...proc.argv.slice(1)], {
      ...proc.env,
      ...Object.fromEntries(environment),
    });
  }
}
