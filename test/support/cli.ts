// Runs `cr-status-exporter` as a user does (the package binary, as a child
// process) and reads its kubectl-style tables.
import { spawn } from "node:child_process";

const main = new URL("../../src/main.ts", import.meta.url).pathname;

export interface CliRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

export function runCli(args: string[], timeoutMs = 60_000): Promise<CliRun> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [main, ...args], { stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (c: Buffer) => (stdout += c.toString()));
    child.stderr.on("data", (c: Buffer) => (stderr += c.toString()));
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      reject(new Error(`cr-status-exporter ${args.join(" ")} did not finish in ${timeoutMs} ms\n${stderr}`));
    }, timeoutMs);
    child.once("exit", (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

/** Table rows as NAME → the row's cells by header. */
export function table(text: string): Map<string, Record<string, string>> {
  const [header = "", ...lines] = text.trimEnd().split("\n");
  const names = header.split(/\s{3,}/);
  return new Map(
    lines.map((line) => {
      const cells = line.split(/\s{3,}/);
      const row = Object.fromEntries(names.map((n, i) => [n, cells[i] ?? ""]));
      return [row.NAME ?? "", row];
    }),
  );
}
