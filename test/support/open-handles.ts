// Preloaded (`node --import`) into every test process by scripts/run-tests.ts.
// When the run's watchdog fires, it sends SIGWINCH to the test processes that
// registered here; each writes what still keeps its event loop alive (servers
// with their addresses, sockets, child processes with their command lines,
// timers) to a file the watchdog prints. A process that never registered, or
// is stuck in synchronous code, is still named by its command line.
import fs from "node:fs";
import path from "node:path";

/** The environment variable naming the folder where test processes register. */
export const OPEN_HANDLES_DIR_ENV = "TEST_OPEN_HANDLES_DIR";
/** The signal that asks a registered test process for its report. */
export const REPORT_SIGNAL = "SIGWINCH";

interface HandleLike {
  constructor?: { name?: string };
  address?: () => unknown;
  remoteAddress?: string;
  remotePort?: number;
  spawnargs?: string[];
  pid?: number;
  fd?: number;
}

/** One line per live handle and a count per resource type, for this process. */
export function describeOpenHandles(): string[] {
  const lines: string[] = [];
  // Undocumented but long-standing: the handle objects themselves, which carry
  // the addresses and command lines that make a report useful.
  const getHandles = (process as unknown as { _getActiveHandles?: () => HandleLike[] })._getActiveHandles;
  for (const handle of getHandles?.call(process) ?? []) {
    const kind = handle.constructor?.name ?? "handle";
    if (handle.spawnargs) lines.push(`child process ${handle.pid}: ${handle.spawnargs.join(" ")}`);
    else if (handle.remoteAddress) lines.push(`${kind} to ${handle.remoteAddress}:${handle.remotePort}`);
    else if (typeof handle.address === "function") {
      let address: unknown;
      try {
        address = handle.address();
      } catch {
        address = undefined;
      }
      if (address && typeof address === "object" && "port" in address) {
        const { address: host, port } = address as { address: string; port: number };
        lines.push(`${kind} listening on ${host}:${port}`);
      } else if (typeof address === "string") lines.push(`${kind} listening on ${address}`);
      else if (handle.fd !== undefined && handle.fd <= 2)
        continue; // stdio
      else lines.push(kind);
    } else if (handle.fd !== undefined && handle.fd <= 2) continue;
    else lines.push(kind);
  }
  const counts = new Map<string, number>();
  for (const type of process.getActiveResourcesInfo()) counts.set(type, (counts.get(type) ?? 0) + 1);
  lines.push(`active resources: ${[...counts].map(([type, n]) => `${type} ×${n}`).join(", ") || "none"}`);
  return lines;
}

const dir = process.env[OPEN_HANDLES_DIR_ENV];
if (dir && fs.existsSync(dir)) {
  const self = path.join(dir, String(process.pid));
  fs.writeFileSync(`${self}.cmd`, process.argv.slice(1).join(" "));
  // SIGWINCH, not SIGUSR2: node's test runner starts file processes with a
  // diagnostic report on SIGUSR2, and a process without this listener ignores
  // SIGWINCH instead of dying. A signal listener does not keep the process alive.
  process.on(REPORT_SIGNAL, () => {
    fs.writeFileSync(`${self}.report`, describeOpenHandles().join("\n"));
  });
}
