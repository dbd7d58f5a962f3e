// Runs the test command under a watchdog, so nothing left running can hang the
// run: node's --test-timeout fails one test, but a server, timer or child
// process a test never stopped keeps its file's process (and so the whole run)
// alive for ever. Past the limit the watchdog names what is still running —
// every process of the run with its command line, and for each test process
// that preloaded test/support/open-handles.ts its open servers, sockets, child
// processes and timers — then kills the run and fails.
import { spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { OPEN_HANDLES_DIR_ENV, REPORT_SIGNAL } from "../test/support/open-handles.ts";

export const openHandlesPreload = path.resolve(import.meta.dirname, "../test/support/open-handles.ts");

interface ProcessInfo {
  pid: number;
  ppid: number;
  pgrp: number;
  command: string;
}

function listProcesses(): ProcessInfo[] {
  const processes: ProcessInfo[] = [];
  let entries: string[];
  try {
    entries = fs.readdirSync("/proc").filter((name) => /^\d+$/.test(name));
  } catch {
    return processes; // not Linux: the report names only the registered test processes
  }
  for (const name of entries) {
    try {
      const stat = fs.readFileSync(`/proc/${name}/stat`, "utf8");
      // "pid (comm) state ppid pgrp …"; comm may hold spaces and parentheses.
      const [, ppid, pgrp] = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      const command = fs.readFileSync(`/proc/${name}/cmdline`, "utf8").replaceAll("\0", " ").trim();
      processes.push({ pid: Number(name), ppid: Number(ppid), pgrp: Number(pgrp), command });
    } catch {
      // The process ended while we looked.
    }
  }
  return processes;
}

/** The run's processes: descendants of `root` and anything left in its process group. */
export function processesOf(root: number): ProcessInfo[] {
  const all = listProcesses();
  const members = new Set([root]);
  for (let grew = true; grew; ) {
    grew = false;
    for (const p of all) {
      if (!members.has(p.pid) && (members.has(p.ppid) || p.pgrp === root)) {
        members.add(p.pid);
        grew = true;
      }
    }
  }
  return all.filter((p) => members.has(p.pid)).sort((a, b) => a.pid - b.pid);
}

/** Node's test runner starts file processes with every option spelled out: keep the head and the file at the end. */
function shorten(command: string, max = 200): string {
  return command.length <= max ? command : `${command.slice(0, 60)} … ${command.slice(-(max - 63))}`;
}

/** Whether a process with this id still exists. */
export function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** Asks each registered test process for its open handles; waits up to `waitMs` for the answers. */
async function collectHandleReports(dir: string, waitMs: number): Promise<Map<number, string>> {
  const registered = fs
    .readdirSync(dir)
    .filter((f) => f.endsWith(".cmd"))
    .map((f) => Number(f.slice(0, -4)))
    .filter(alive);
  for (const pid of registered) {
    try {
      process.kill(pid, REPORT_SIGNAL);
    } catch {
      // Ended meanwhile.
    }
  }
  const reports = new Map<number, string>();
  const deadline = performance.now() + waitMs;
  while (reports.size < registered.length && performance.now() < deadline) {
    for (const pid of registered) {
      const file = path.join(dir, `${pid}.report`);
      if (!reports.has(pid) && fs.existsSync(file)) reports.set(pid, fs.readFileSync(file, "utf8"));
    }
    if (reports.size < registered.length) await sleep(100);
  }
  return reports;
}

function killAll(processes: ProcessInfo[], group: number): void {
  try {
    process.kill(-group, "SIGKILL");
  } catch {
    // The group is already gone.
  }
  for (const p of processes) {
    try {
      process.kill(p.pid, "SIGKILL");
    } catch {
      // Already gone.
    }
  }
}

export interface WatchdogOptions {
  limitMs: number;
  /** Fires the watchdog before the limit (tests of the watchdog itself). */
  signal?: AbortSignal;
  /** "ignore" keeps a nested run's output out of the caller's (default "inherit"). */
  stdio?: "inherit" | "ignore";
  /** Where the report goes (stderr by default). */
  log?: (line: string) => void;
}

/** Runs `command` with inherited stdio; resolves with its exit code, or 1 when the watchdog fired. */
export async function runWithWatchdog(
  command: string,
  args: string[],
  { limitMs, signal, stdio = "inherit", log = (line) => console.error(line) }: WatchdogOptions,
): Promise<number> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "test-open-handles-"));
  // Its own process group, so the run and everything it started can be ended together.
  const env: NodeJS.ProcessEnv = { ...process.env, [OPEN_HANDLES_DIR_ENV]: dir };
  // Set inside a node:test file process; a nested `node --test` that sees it
  // acts as that file's child and runs nothing of its own.
  delete env.NODE_TEST_CONTEXT;
  const child = spawn(command, args, { stdio, detached: true, env });
  const forward = (signal: NodeJS.Signals): void => {
    try {
      process.kill(-(child.pid ?? 0), signal);
    } catch {
      // Already gone.
    }
  };
  process.on("SIGINT", forward);
  process.on("SIGTERM", forward);
  const exited = new Promise<number>((resolve) =>
    child.once("exit", (code, signal) => resolve(code ?? (signal ? 128 + os.constants.signals[signal] : 1))),
  );
  let timer: NodeJS.Timeout | undefined;
  const limit = new Promise<"limit">((resolve) => {
    timer = setTimeout(() => resolve("limit"), limitMs);
    if (signal?.aborted) resolve("limit");
    signal?.addEventListener("abort", () => resolve("limit"), { once: true });
  });
  try {
    const outcome = await Promise.race([exited, limit]);
    const group = child.pid ?? 0;
    if (outcome !== "limit") {
      const leftovers = processesOf(group).filter((p) => p.pid !== group);
      if (leftovers.length > 0) {
        log(`⚠ processes left running after the tests ended (now stopped):`);
        for (const p of leftovers) log(`  ${p.pid} ${shorten(p.command)}`);
        killAll(leftovers, group);
      }
      return outcome;
    }
    const running = processesOf(group);
    const reports = await collectHandleReports(dir, 3_000);
    log(
      `\n✖ the test run did not finish within ${Math.round(limitMs / 1000)} s (TEST_RUN_LIMIT_SECONDS); still running:`,
    );
    for (const p of running) {
      log(`  ${p.pid} ${shorten(p.command)}`);
      for (const line of reports.get(p.pid)?.split("\n") ?? []) log(`      open: ${line}`);
    }
    for (const [pid, report] of reports) {
      if (running.some((p) => p.pid === pid)) continue;
      log(`  ${pid} (test process)`);
      for (const line of report.split("\n")) log(`      open: ${line}`);
    }
    killAll(processesOf(group), group);
    await exited;
    return 1;
  } finally {
    clearTimeout(timer);
    process.off("SIGINT", forward);
    process.off("SIGTERM", forward);
    fs.rmSync(dir, { recursive: true, force: true });
  }
}
