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
// The flags and the allocator setting, and why each: src/runtime-settings.ts.
import { execWithRuntimeSettings } from "./runtime-settings.ts";

execWithRuntimeSettings();

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
