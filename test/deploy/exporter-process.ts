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

/** Resolves with "timeout" after `ms`; never settles once `signal` aborts (and then holds no timer). */
function deadline(ms: number, signal: AbortSignal): Promise<"timeout"> {
  return sleep(ms, "timeout" as const, { signal }).catch(() => new Promise<never>(() => {}));
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
  const exited = new Promise<number | null>((resolve) =>
    child.once("exit", (code) => {
      // A grandchild may hold the pipe open after the process is gone (podman's
      // conmon does): stop reading, so nothing keeps the test process alive.
      setImmediate(() => child.stderr?.destroy());
      resolve(code);
    }),
  );
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
  // The deadline timers are cancelled once the race is decided, so none keeps the test process alive.
  const startDeadline = new AbortController();
  const base = await Promise.race([
    serving,
    deadline(timeout, startDeadline.signal).then(() => {
      throw new Error(`exporter did not log "serving metrics" within ${timeout} ms:\n${lines.join("\n")}`);
    }),
  ])
    .catch((error: unknown) => {
      child.kill("SIGKILL");
      throw error;
    })
    .finally(() => startDeadline.abort());
  return {
    base,
    child,
    lines,
    async stop(timeoutMs = 15_000) {
      if (child.exitCode !== null) return child.exitCode;
      child.kill("SIGTERM");
      const stopDeadline = new AbortController();
      const code = await Promise.race([exited, deadline(timeoutMs, stopDeadline.signal)]).finally(() =>
        stopDeadline.abort(),
      );
      if (code === "timeout") {
        child.kill("SIGKILL");
        await exited;
        throw new Error(`exporter did not exit within ${timeoutMs} ms of SIGTERM`);
      }
      return code;
    },
  };
}

export interface ImageConfig {
  workdir: string;
  entrypoint: string[];
  cmd: string[];
  /** USER, e.g. "1000:1000". */
  user: string | undefined;
  env: Record<string, string>;
  expose: string[];
  /** LABEL keys and values as written (build arguments not substituted). */
  labels: Record<string, string>;
}

/** Instructions of a Dockerfile or Containerfile, continuation lines joined, comments dropped. */
function instructions(text: string): string[] {
  return text
    .split("\n")
    .filter((l) => !/^\s*#/.test(l))
    .join("\n")
    .replace(/\\\n/g, " ")
    .split("\n")
    .map((l) => l.trim())
    .filter((l) => l !== "");
}

/** `key=value` pairs, values optionally double-quoted (LABEL, ENV). */
function pairs(text: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const match of text.matchAll(/([A-Za-z0-9_.-]+)=("(?:[^"\\]|\\.)*"|\S+)/g)) {
    const [, key, raw] = match;
    if (key && raw) out[key] = raw.startsWith('"') ? (JSON.parse(raw) as string) : raw;
  }
  return out;
}

/** The image configuration the final stage of a Dockerfile (or Containerfile) sets. */
export function imageCommand(dockerfile: string): ImageConfig {
  const lines = instructions(dockerfile);
  const finalStage = lines.slice(lines.findLastIndex((l) => /^FROM\s/i.test(l)));
  const all = (instruction: string): string[] =>
    finalStage
      .filter((l) => l.toUpperCase().startsWith(`${instruction} `))
      .map((l) => l.slice(instruction.length + 1).trim());
  const json = (instruction: string): string[] => {
    const value = all(instruction).at(-1);
    if (!value?.startsWith("[")) throw new Error(`${instruction} must be in JSON (exec) form, got ${value}`);
    return JSON.parse(value) as string[];
  };
  const workdir = all("WORKDIR").at(-1);
  if (!workdir) throw new Error("the final stage has no WORKDIR");
  return {
    workdir,
    entrypoint: json("ENTRYPOINT"),
    cmd: json("CMD"),
    user: all("USER").at(-1),
    env: Object.assign({}, ...all("ENV").map(pairs)) as Record<string, string>,
    expose: all("EXPOSE").flatMap((e) => e.split(/\s+/)),
    labels: Object.assign({}, ...all("LABEL").map(pairs)) as Record<string, string>,
  };
}
