// A real Jaeger (built from Go modules by build-jaeger.sh) as the trace
// backend of end-to-end tests: OTLP/HTTP in, in-memory storage, the query API
// out, every listener on a free 127.0.0.1 port. Torn down on stop(), on
// process exit, and by a watchdog shell if this process is killed outright.
import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import { closeSync, mkdtempSync, openSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { after, before } from "node:test";
import { setTimeout as sleep } from "node:timers/promises";
import { fileURLToPath } from "node:url";
import { stringify } from "yaml";
import { freePort } from "../cluster/ports.ts";

const here = dirname(fileURLToPath(import.meta.url));

/** The binary: $JAEGER_BINARY, else built (once, then cached) by build-jaeger.sh. */
export function resolveJaegerBinary(): string {
  const explicit = process.env.JAEGER_BINARY;
  if (explicit) return explicit;
  const output = execFileSync("bash", [join(here, "build-jaeger.sh")], {
    stdio: ["ignore", "pipe", "inherit"],
    encoding: "utf8",
  });
  const binary = output.trim().split("\n").at(-1);
  if (!binary) throw new Error("build-jaeger.sh printed no binary path");
  return binary;
}

/** One span as Jaeger's query API (/api/traces/{id}) returns it. */
export interface JaegerSpan {
  traceID: string;
  spanID: string;
  operationName: string;
  references: { refType: "CHILD_OF" | "FOLLOWS_FROM"; traceID: string; spanID: string }[];
  /** Microseconds since the epoch. */
  startTime: number;
  /** Microseconds. */
  duration: number;
  tags: { key: string; type: string; value: unknown }[];
  /** Span events, as Jaeger calls them (timestamp in microseconds since the epoch). */
  logs?: { timestamp: number; fields: { key: string; type: string; value: unknown }[] }[];
  processID: string;
}

export interface JaegerTrace {
  traceID: string;
  spans: JaegerSpan[];
  processes: Record<string, { serviceName: string; tags: { key: string; value: unknown }[] }>;
}

const live = new Set<Jaeger>();
let hooksInstalled = false;

export class Jaeger {
  /** OTLP/HTTP base URL: the SDK appends /v1/traces. */
  readonly otlpEndpoint: string;
  /** Base URL of the query API and UI. */
  readonly queryUrl: string;
  readonly #child: ChildProcess;
  readonly #exited: Promise<number | null>;
  readonly #directory: string;
  readonly #logPath: string;
  #stopping: Promise<void> | undefined;

  private constructor(init: {
    otlpEndpoint: string;
    queryUrl: string;
    child: ChildProcess;
    exited: Promise<number | null>;
    directory: string;
    logPath: string;
  }) {
    this.otlpEndpoint = init.otlpEndpoint;
    this.queryUrl = init.queryUrl;
    this.#child = init.child;
    this.#exited = init.exited;
    this.#directory = init.directory;
    this.#logPath = init.logPath;
  }

  static async start(timeoutMs = 60_000): Promise<Jaeger> {
    installHooks();
    const binary = resolveJaegerBinary();
    let lastError: unknown;
    // A free port can be taken between asking for it and binding it: retry.
    for (let attempt = 1; attempt <= 3; attempt++) {
      try {
        return await Jaeger.#startOnce(binary, timeoutMs);
      } catch (error) {
        lastError = error;
        if (!/address already in use/.test(String(error))) break;
      }
    }
    throw lastError;
  }

  static async #startOnce(binary: string, timeoutMs: number): Promise<Jaeger> {
    const directory = mkdtempSync(join(tmpdir(), "cr-jaeger-"));
    const [otlp, queryHttp, queryGrpc, health] = await Promise.all([
      freePort(),
      freePort(),
      freePort(),
      freePort(),
    ]);
    const host = "127.0.0.1";
    const config = {
      service: {
        extensions: ["jaeger_storage", "jaeger_query", "healthcheckv2"],
        pipelines: {
          traces: { receivers: ["otlp"], processors: [], exporters: ["jaeger_storage_exporter"] },
        },
        // No self-metrics listener (it would take a fixed port).
        telemetry: { metrics: { level: "none" }, logs: { level: "info" } },
      },
      extensions: {
        jaeger_storage: { backends: { memstore: { memory: { max_traces: 10_000 } } } },
        jaeger_query: {
          storage: { traces: "memstore" },
          http: { endpoint: `${host}:${queryHttp}` },
          grpc: { endpoint: `${host}:${queryGrpc}` },
        },
        healthcheckv2: { use_v2: true, http: { endpoint: `${host}:${health}` } },
      },
      receivers: { otlp: { protocols: { http: { endpoint: `${host}:${otlp}` } } } },
      exporters: { jaeger_storage_exporter: { trace_storage: "memstore" } },
    };
    const configPath = join(directory, "jaeger.yaml");
    writeFileSync(configPath, stringify(config));
    const logPath = join(directory, "jaeger.log");
    const fd = openSync(logPath, "a");
    const child = spawn(binary, ["--config", configPath], {
      stdio: ["ignore", fd, fd],
      env: { ...process.env, JAEGER_LISTEN_HOST: host },
    });
    closeSync(fd);
    const exited = new Promise<number | null>((resolve) => {
      child.once("exit", (code) => resolve(code));
      child.once("error", () => resolve(-1));
    });
    const jaeger = new Jaeger({
      otlpEndpoint: `http://${host}:${otlp}`,
      queryUrl: `http://${host}:${queryHttp}`,
      child,
      exited,
      directory,
      logPath,
    });
    live.add(jaeger);
    startWatchdog(child);
    try {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        if (child.exitCode !== null) throw new Error(`jaeger exited with code ${child.exitCode}`);
        const healthy = await fetch(`http://${host}:${health}/status`).then(
          (r) => r.ok,
          () => false,
        );
        const serving =
          healthy &&
          (await fetch(`${jaeger.queryUrl}/api/services`).then(
            (r) => r.ok,
            () => false,
          ));
        if (serving) return jaeger;
        if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for jaeger`);
        await sleep(100);
      }
    } catch (error) {
      const log = jaeger.logTail();
      await jaeger.stop();
      throw new Error(`jaeger failed to start: ${String(error)}\n${log}`);
    }
  }

  /** The trace by id through the query API, or undefined while Jaeger has none (404). */
  async getTrace(traceId: string): Promise<JaegerTrace | undefined> {
    const response = await fetch(`${this.queryUrl}/api/traces/${traceId}`);
    if (response.status === 404) return undefined;
    if (!response.ok)
      throw new Error(`GET /api/traces/${traceId} → ${response.status}: ${await response.text()}`);
    const body = (await response.json()) as { data?: JaegerTrace[] };
    return body.data?.[0];
  }

  /** Polls until the trace holds at least `spans` spans (storage is asynchronous to the OTLP answer). */
  async waitForTrace(traceId: string, spans: number, timeoutMs = 15_000): Promise<JaegerTrace> {
    const deadline = Date.now() + timeoutMs;
    let last: JaegerTrace | undefined;
    while (Date.now() < deadline) {
      last = await this.getTrace(traceId);
      if (last && last.spans.length >= spans) return last;
      await sleep(100);
    }
    throw new Error(
      `trace ${traceId} has ${last?.spans.length ?? 0} of ${spans} spans after ${timeoutMs} ms\n${this.logTail()}`,
    );
  }

  logTail(lines = 40): string {
    try {
      return readFileSync(this.#logPath, "utf8").trimEnd().split("\n").slice(-lines).join("\n");
    } catch {
      return "(no log)";
    }
  }

  stop(): Promise<void> {
    this.#stopping ??= (async () => {
      this.#child.kill("SIGTERM");
      const exited = await Promise.race([this.#exited.then(() => true), sleep(5_000).then(() => false)]);
      if (!exited) {
        this.#child.kill("SIGKILL");
        await this.#exited;
      }
      live.delete(this);
      rmSync(this.#directory, { recursive: true, force: true });
    })();
    return this.#stopping;
  }

  killNow(): void {
    this.#child.kill("SIGKILL");
    rmSync(this.#directory, { recursive: true, force: true });
  }
}

export interface JaegerHandle {
  readonly jaeger: Jaeger;
}

/** Starts Jaeger before the tests of the calling file and stops it after them. */
export function useJaeger(): JaegerHandle {
  let jaeger: Jaeger | undefined;
  before(async () => {
    const started = performance.now();
    jaeger = await Jaeger.start();
    console.error(`# jaeger ready in ${Math.round(performance.now() - started)} ms at ${jaeger.queryUrl}`);
  });
  after(async () => {
    await jaeger?.stop();
  });
  return {
    get jaeger(): Jaeger {
      if (!jaeger) throw new Error("jaeger is not started yet (use it inside a test or hook)");
      return jaeger;
    },
  };
}

function installHooks(): void {
  if (hooksInstalled) return;
  hooksInstalled = true;
  process.on("exit", () => {
    for (const jaeger of live) jaeger.killNow();
  });
}

/** A detached shell that kills Jaeger once this Node process is gone. */
function startWatchdog(child: ChildProcess): void {
  if (child.pid === undefined) return;
  const script = `while kill -0 ${process.pid} 2>/dev/null && kill -0 ${child.pid} 2>/dev/null; do sleep 1; done; kill -9 ${child.pid} 2>/dev/null; exit 0`;
  spawn("sh", ["-c", script], { detached: true, stdio: "ignore" }).unref();
}
