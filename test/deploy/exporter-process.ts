// Runs the exporter as its own process (the way the image runs it) and reads
// the address it serves on from its "serving metrics" log line.
import { type ChildProcess, spawn } from "node:child_process";
import { createInterface } from "node:readline";
import { setTimeout as sleep } from "node:timers/promises";

export interface ExporterProcess {
  /** http://host:port, without a path. */
  base: string;
  child: ChildProcess;
  /** stderr lines so far (JSON log lines and plain errors). */
  lines: string[];
  /** Sends SIGTERM and resolves with the exit code (SIGKILL after timeoutMs). */
  stop(timeoutMs?: number): Promise<number | null>;
}

export async function startExporterProcess(
  command: string[],
  options: { cwd: string; env: NodeJS.ProcessEnv; startTimeoutMs?: number },
): Promise<ExporterProcess> {
  const [program, ...args] = command;
  if (!program) throw new Error("empty command");
  // `node` in the image is the Node 24 running this test.
  const child = spawn(program === "node" ? process.execPath : program, args, {
    cwd: options.cwd,
    env: options.env,
    stdio: ["ignore", "ignore", "pipe"],
  });
  const lines: string[] = [];
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
  const stderr = child.stderr;
  if (!stderr) throw new Error("no stderr pipe");
  const serving = new Promise<string>((resolve, reject) => {
    createInterface({ input: stderr }).on("line", (line) => {
      lines.push(line);
      try {
        const record = JSON.parse(line) as { msg?: string; url?: string };
        if (record.msg === "serving metrics" && record.url) resolve(record.url.replace(/\/metrics$/, ""));
      } catch {
        // not a log line (e.g. a fatal error message)
      }
    });
    void exited.then((code) =>
      reject(new Error(`exporter exited with code ${code} before serving:\n${lines.join("\n")}`)),
    );
  });
  const timeout = options.startTimeoutMs ?? 30_000;
  const base = await Promise.race([
    serving,
    sleep(timeout).then(() => {
      throw new Error(`exporter did not log "serving metrics" within ${timeout} ms:\n${lines.join("\n")}`);
    }),
  ]).catch((error: unknown) => {
    child.kill("SIGKILL");
    throw error;
  });
  return {
    base,
    child,
    lines,
    async stop(timeoutMs = 15_000) {
      if (child.exitCode !== null) return child.exitCode;
      child.kill("SIGTERM");
      const code = await Promise.race([exited, sleep(timeoutMs).then(() => "timeout" as const)]);
      if (code === "timeout") {
        child.kill("SIGKILL");
        await exited;
        throw new Error(`exporter did not exit within ${timeoutMs} ms of SIGTERM`);
      }
      return code;
    },
  };
}

/** ENTRYPOINT and CMD (JSON form) and WORKDIR of the final stage of a Dockerfile. */
export function imageCommand(dockerfile: string): { workdir: string; entrypoint: string[]; cmd: string[] } {
  const lines = dockerfile.split("\n").map((l) => l.trim());
  const finalStage = lines.slice(lines.findLastIndex((l) => /^FROM\s/i.test(l)));
  const last = (instruction: string): string | undefined =>
    finalStage
      .filter((l) => l.toUpperCase().startsWith(`${instruction} `))
      .at(-1)
      ?.slice(instruction.length + 1)
      .trim();
  const json = (instruction: string): string[] => {
    const value = last(instruction);
    if (!value?.startsWith("[")) throw new Error(`${instruction} must be in JSON (exec) form, got ${value}`);
    return JSON.parse(value) as string[];
  };
  const workdir = last("WORKDIR");
  if (!workdir) throw new Error("the final stage has no WORKDIR");
  return { workdir, entrypoint: json("ENTRYPOINT"), cmd: json("CMD") };
}
