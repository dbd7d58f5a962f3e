// A real OpenTelemetry Collector (core modules, built from Go modules by
// build-otelcol.sh) between the exporter and a backend in end-to-end tests:
// the otlp receiver (HTTP) on a free 127.0.0.1 port, the batch processor, and
// the otlphttp exporter to the given metrics URL (plus the debug exporter, for
// the log). It can be stopped and started again on the same port (a collector
// outage). Torn down on stop(), on process exit, and by a watchdog shell if
// this process is killed outright.
import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import { closeSync, mkdtempSync, openSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { connect } from "node:net";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { fileURLToPath } from "node:url";
import { stringify } from "yaml";
import { freePort } from "../cluster/ports.ts";

const here = dirname(fileURLToPath(import.meta.url));

/** The binary: $OTELCOL_BINARY, else built (once, then cached) by build-otelcol.sh. */
export function resolveOtelcolBinary(): string {
  const explicit = process.env.OTELCOL_BINARY;
  if (explicit) return explicit;
  const output = execFileSync("bash", [join(here, "build-otelcol.sh")], {
    stdio: ["ignore", "pipe", "inherit"],
    encoding: "utf8",
  });
  const binary = output.trim().split("\n").at(-1);
  if (!binary) throw new Error("build-otelcol.sh printed no binary path");
  return binary;
}

const live = new Set<Collector>();
let hooksInstalled = false;

function listening(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, "127.0.0.1");
    socket.once("connect", () => {
      socket.destroy();
      resolve(true);
    });
    socket.once("error", () => resolve(false));
  });
}

export class Collector {
  /** OTLP/HTTP base URL of its receiver: exporters append /v1/metrics. */
  readonly otlpEndpoint: string;
  readonly #binary: string;
  readonly #port: number;
  readonly #directory: string;
  readonly #configPath: string;
  readonly #logPath: string;
  #child: ChildProcess | undefined;
  #exited: Promise<number | null> = Promise.resolve(null);

  private constructor(binary: string, port: number, metricsUrl: string) {
    this.#binary = binary;
    this.#port = port;
    this.otlpEndpoint = `http://127.0.0.1:${port}`;
    this.#directory = mkdtempSync(join(tmpdir(), "cr-otelcol-"));
    this.#configPath = join(this.#directory, "otelcol.yaml");
    this.#logPath = join(this.#directory, "otelcol.log");
    const config = {
      receivers: { otlp: { protocols: { http: { endpoint: `127.0.0.1:${port}` } } } },
      processors: { batch: { timeout: "200ms" } },
      exporters: {
        otlphttp: { metrics_endpoint: metricsUrl, compression: "gzip" },
        debug: { verbosity: "basic" },
      },
      service: {
        pipelines: {
          metrics: { receivers: ["otlp"], processors: ["batch"], exporters: ["otlphttp", "debug"] },
        },
        // No self-metrics listener (it would take a fixed port).
        telemetry: { metrics: { level: "none" }, logs: { level: "info" } },
      },
    };
    writeFileSync(this.#configPath, stringify(config));
  }

  /** A collector forwarding metrics to `metricsUrl` (used as given), started. */
  static async start(metricsUrl: string, timeoutMs = 60_000): Promise<Collector> {
    installHooks();
    const collector = new Collector(resolveOtelcolBinary(), await freePort(), metricsUrl);
    live.add(collector);
    await collector.resume(timeoutMs);
    return collector;
  }

  /** Starts the process (again), on the same port; resolves once its receiver listens. A no-op while it runs. */
  async resume(timeoutMs = 60_000): Promise<void> {
    if (this.#child && this.#child.exitCode === null && this.#child.signalCode === null) return;
    const fd = openSync(this.#logPath, "a");
    const child = spawn(this.#binary, ["--config", this.#configPath], { stdio: ["ignore", fd, fd] });
    closeSync(fd);
    this.#child = child;
    this.#exited = new Promise<number | null>((resolve) => {
      child.once("exit", (code) => resolve(code));
      child.once("error", () => resolve(-1));
    });
    startWatchdog(child);
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      if (child.exitCode !== null) {
        throw new Error(`otelcol exited with code ${child.exitCode}\n${this.logTail()}`);
      }
      if (await listening(this.#port)) return;
      if (Date.now() > deadline)
        throw new Error(`otelcol not listening after ${timeoutMs} ms\n${this.logTail()}`);
      await sleep(100);
    }
  }

  /** Stops the process (SIGTERM, then SIGKILL after 5 s); resume() starts it again. */
  async pause(): Promise<void> {
    const child = this.#child;
    if (!child || child.exitCode !== null) return;
    child.kill("SIGTERM");
    const exited = await Promise.race([this.#exited.then(() => true), sleep(5_000).then(() => false)]);
    if (!exited) {
      child.kill("SIGKILL");
      await this.#exited;
    }
  }

  logTail(lines = 40): string {
    try {
      return readFileSync(this.#logPath, "utf8").trimEnd().split("\n").slice(-lines).join("\n");
    } catch {
      return "(no log)";
    }
  }

  async stop(): Promise<void> {
    await this.pause();
    live.delete(this);
    rmSync(this.#directory, { recursive: true, force: true });
  }

  killNow(): void {
    this.#child?.kill("SIGKILL");
    rmSync(this.#directory, { recursive: true, force: true });
  }
}

function installHooks(): void {
  if (hooksInstalled) return;
  hooksInstalled = true;
  process.on("exit", () => {
    for (const collector of live) collector.killNow();
  });
}

/** A detached shell that kills the collector once this Node process is gone. */
function startWatchdog(child: ChildProcess): void {
  if (child.pid === undefined) return;
  const script = `while kill -0 ${process.pid} 2>/dev/null && kill -0 ${child.pid} 2>/dev/null; do sleep 1; done; kill -9 ${child.pid} 2>/dev/null; exit 0`;
  spawn("sh", ["-c", script], { detached: true, stdio: "ignore" }).unref();
}
