// The programs under test as child processes, and what /proc says about
// them: resident memory and CPU seconds are read for the exact pid, so each
// number belongs to one program only.
import { type ChildProcess, spawn } from "node:child_process";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { freePort } from "../../test/cluster/ports.ts";
import { conditionFamily, type SubjectId } from "./subjects.ts";

const clockTicks = 100; // USER_HZ on Linux
const pageBytes = 4096;

export interface ProcSample {
  rssBytes: number;
  cpuSeconds: number;
}

/** RSS (bytes) and user+system CPU seconds of one process. */
export function sampleProc(pid: number): ProcSample {
  const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
  // Fields after the command name, which is in parentheses and may hold spaces.
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  const utime = Number(fields[11]);
  const stime = Number(fields[12]);
  const statm = readFileSync(`/proc/${pid}/statm`, "utf8").split(" ");
  return { rssBytes: Number(statm[1]) * pageBytes, cpuSeconds: (utime + stime) / clockTicks };
}

/** Bytes the process has read (sockets and files: the apiserver's answers, its own modules), from /proc/<pid>/io. */
export function bytesRead(pid: number): number {
  const line = readFileSync(`/proc/${pid}/io`, "utf8")
    .split("\n")
    .find((l) => l.startsWith("rchar:"));
  return Number(line?.slice("rchar:".length).trim() ?? 0);
}

export interface Subject {
  /** A subject of the comparison, or the idle sidecar. */
  id: SubjectId | "idle";
  pid: number;
  metricsUrl: string;
  /** Milliseconds since the harness spawned it (performance.now() origin). */
  spawnedAt: number;
  /** Line prefix of the per-object condition family, e.g. `cr_condition{`. */
  conditionLine: string;
  stop(): Promise<void>;
  logTail(): string;
}

/** The exporter refused its config (exit 2 before serving); `message` is what it printed. */
export class ConfigRejectedError extends Error {
  readonly exitCode: number;
  constructor(message: string, exitCode: number) {
    super(message);
    this.exitCode = exitCode;
  }
}

function tailOf(path: string, lines = 20): string {
  try {
    return readFileSync(path, "utf8").trimEnd().split("\n").slice(-lines).join("\n");
  } catch {
    return "(no log)";
  }
}

function stopper(child: ChildProcess): () => Promise<void> {
  const exited = new Promise<void>((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) resolve();
    else child.once("exit", () => resolve());
  });
  return async () => {
    child.kill("SIGTERM");
    const done = await Promise.race([exited.then(() => true), sleep(10_000).then(() => false)]);
    if (!done) {
      child.kill("SIGKILL");
      await exited;
    }
  };
}

const live = new Set<ChildProcess>();
process.on("exit", () => {
  for (const child of live) child.kill("SIGKILL");
});

/** Kills `child` when this process exits, however it exits. */
export function track(child: ChildProcess): void {
  live.add(child);
  child.once("exit", () => live.delete(child));
}

/** Our exporter: `node src/main.ts` with `config` (YAML text) as its config file. */
export async function startOurs(
  id: SubjectId | "idle",
  repo: string,
  kubeconfig: string,
  dir: string,
  config: string,
  extraNodeArgs: string[] = [],
): Promise<Subject> {
  mkdirSync(dir, { recursive: true });
  const configPath = join(dir, "ours.yaml");
  writeFileSync(configPath, config);
  const logPath = join(dir, "ours.log");
  const spawnedAt = performance.now();
  const child = spawn(
    process.execPath,
    [
      ...extraNodeArgs,
      join(repo, "src/main.ts"),
      "--kubeconfig",
      kubeconfig,
      "--config",
      configPath,
      "--listen",
      "127.0.0.1:0",
    ],
    { cwd: repo, stdio: ["ignore", "ignore", "pipe"] },
  );
  track(child);
  const url = await new Promise<string>((resolve, reject) => {
    let buffered = "";
    const log: string[] = [];
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      reject(new Error(`exporter did not report its URL:\n${log.join("")}`));
    }, 60_000);
    // "close", not "exit": by then everything it printed has been read.
    child.once("close", (code) => {
      clearTimeout(timer);
      const printed = log.join("").trim();
      // Exit 2 is the exporter's "invalid configuration" (src/main.ts).
      reject(
        code === 2
          ? new ConfigRejectedError(printed, code)
          : new Error(`exporter exited (${code}):\n${printed}`),
      );
    });
    child.stderr?.on("data", (chunk: Buffer) => {
      const text = chunk.toString("utf8");
      if (log.length < 200) log.push(text);
      writeFileSync(logPath, text, { flag: "a" });
      buffered += text;
      let newline = buffered.indexOf("\n");
      while (newline >= 0) {
        const line = buffered.slice(0, newline);
        buffered = buffered.slice(newline + 1);
        newline = buffered.indexOf("\n");
        try {
          const entry = JSON.parse(line) as { msg?: string; message?: string; url?: string };
          if ((entry.msg ?? entry.message) === "serving metrics" && entry.url) {
            clearTimeout(timer);
            resolve(entry.url);
          }
        } catch {
          // not a JSON log line
        }
      }
    });
  });
  return {
    id,
    pid: child.pid as number,
    metricsUrl: url,
    spawnedAt,
    conditionLine: `${conditionFamily.ours}{`,
    stop: stopper(child),
    logTail: () => tailOf(logPath),
  };
}

/** kube-state-metrics in custom-resource-state-only mode with `config` (YAML text). */
export async function startKsm(
  binary: string,
  kubeconfig: string,
  dir: string,
  config: string,
): Promise<Subject> {
  mkdirSync(dir, { recursive: true });
  const configPath = join(dir, "ksm-crs.yaml");
  writeFileSync(configPath, config);
  const [port, telemetryPort] = [await freePort(), await freePort()];
  const logPath = join(dir, "ksm.log");
  const spawnedAt = performance.now();
  const child = spawn(
    binary,
    [
      `--kubeconfig=${kubeconfig}`,
      "--custom-resource-state-only=true",
      `--custom-resource-state-config-file=${configPath}`,
      "--host=127.0.0.1",
      `--port=${port}`,
      "--telemetry-host=127.0.0.1",
      `--telemetry-port=${telemetryPort}`,
      "--enable-gzip-encoding=true",
    ],
    { stdio: ["ignore", "ignore", "pipe"] },
  );
  track(child);
  child.stderr?.on("data", (chunk: Buffer) => writeFileSync(logPath, chunk, { flag: "a" }));
  const early = new Promise<never>((_, reject) =>
    child.once("exit", (code) =>
      reject(new Error(`kube-state-metrics exited (${code}):\n${tailOf(logPath)}`)),
    ),
  );
  early.catch(() => undefined);
  const metricsUrl = `http://127.0.0.1:${port}/metrics`;
  const deadline = Date.now() + 60_000;
  for (;;) {
    const ok = await Promise.race([
      fetch(`http://127.0.0.1:${port}/healthz`).then(
        (r) => r.ok,
        () => false,
      ),
      early,
    ]);
    if (ok) break;
    if (Date.now() > deadline)
      throw new Error(`kube-state-metrics did not answer /healthz:\n${tailOf(logPath)}`);
    await sleep(50);
  }
  return {
    id: "ksm",
    pid: child.pid as number,
    metricsUrl,
    spawnedAt,
    conditionLine: `${conditionFamily.ksm}{`,
    stop: stopper(child),
    logTail: () => tailOf(logPath),
  };
}
