// A real OCI distribution registry for the chart's `helm push`/`helm pull`
// test: Debian's docker-registry (the CNCF distribution registry), on a free
// loopback port, plain HTTP, with its storage in a temporary directory that
// stop() removes.
import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { stringify } from "yaml";
import { freePort } from "../cluster/ports.ts";

const binary = "/usr/bin/docker-registry";

export interface Registry {
  /** host:port on 127.0.0.1, for `oci://<host>/…` with `--plain-http`. */
  readonly host: string;
  readonly log: readonly string[];
  stop(): Promise<void>;
}

function requireBinary(): void {
  try {
    execFileSync(binary, ["--version"], { stdio: "ignore" });
  } catch {
    throw new Error(`${binary} not found: install the Debian package docker-registry (.ci/run installs it)`);
  }
}

async function answers(url: string): Promise<boolean> {
  try {
    return (await fetch(url, { signal: AbortSignal.timeout(1_000) })).status === 200;
  } catch {
    return false;
  }
}

async function startOnce(dir: string): Promise<Registry> {
  const port = await freePort();
  const config = join(dir, "config.yml");
  writeFileSync(
    config,
    stringify({
      version: 0.1,
      log: { level: "warn", accesslog: { disabled: true } },
      storage: { filesystem: { rootdirectory: join(dir, "data") } },
      http: { addr: `127.0.0.1:${port}` },
    }),
  );
  const log: string[] = [];
  const child: ChildProcess = spawn(binary, ["serve", config], { stdio: ["ignore", "pipe", "pipe"] });
  const keep = (chunk: Buffer) => log.push(...chunk.toString("utf8").split("\n").filter(Boolean));
  child.stdout?.on("data", keep);
  child.stderr?.on("data", keep);
  let exited = false;
  const exit = new Promise<void>((resolve) =>
    child.once("exit", () => {
      exited = true;
      resolve();
    }),
  );
  const stop = async (): Promise<void> => {
    if (!exited) child.kill("SIGTERM");
    await exit;
  };
  const deadline = Date.now() + 20_000;
  while (!(await answers(`http://127.0.0.1:${port}/v2/`))) {
    if (exited || Date.now() > deadline) {
      await stop();
      throw new Error(`docker-registry did not answer on 127.0.0.1:${port}:\n${log.join("\n")}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return { host: `127.0.0.1:${port}`, log, stop };
}

export async function startRegistry(): Promise<Registry> {
  requireBinary();
  const dir = mkdtempSync(join(tmpdir(), "cr-registry-"));
  let lastError: unknown;
  // A free port can be taken before the registry binds it: retry the whole start.
  for (let attempt = 1; attempt <= 3; attempt++) {
    try {
      const registry = await startOnce(dir);
      return {
        ...registry,
        stop: async () => {
          await registry.stop();
          rmSync(dir, { recursive: true, force: true });
        },
      };
    } catch (error) {
      lastError = error;
      if (!(error instanceof Error && /address already in use/.test(error.message))) break;
    }
  }
  rmSync(dir, { recursive: true, force: true });
  throw lastError;
}
