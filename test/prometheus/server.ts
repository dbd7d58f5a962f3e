// A real Prometheus (Debian's 2.x, or 3.x: options.major) for end-to-end tests: loopback only, a
// free port, a temporary storage directory, short scrape and evaluation
// intervals, and the given rule files. Stopped (and its directory removed) by stop().
import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { stringify } from "yaml";
import { freePort } from "../cluster/ports.ts";
import { type PrometheusMajor, prometheusPath } from "./binaries.ts";

export interface ScrapeTarget {
  readonly job: string;
  /** host:port, on 127.0.0.1. */
  readonly targets: readonly string[];
  readonly metricsPath?: string;
  /** Keep the target's own labels (namespace, …) over Prometheus' target labels, as the shipped monitors do. */
  readonly honorLabels?: boolean;
  readonly scheme?: "http" | "https";
  /** Prometheus' tls_config: the CA to trust, and a client certificate to present. */
  readonly tls?: { readonly caFile: string; readonly certFile?: string; readonly keyFile?: string };
  /** Sent as `Authorization: Bearer <file content>`. */
  readonly bearerTokenFile?: string;
  /** Labels of the static target (`__meta_*` ones are only seen by relabelConfigs). */
  readonly labels?: Readonly<Record<string, string>>;
  readonly relabelConfigs?: readonly Readonly<Record<string, unknown>>[];
}

export interface PrometheusOptions {
  readonly scrape?: readonly ScrapeTarget[];
  /** Absolute paths of rule files to load. */
  readonly ruleFiles?: readonly string[];
  readonly scrapeInterval?: string;
  readonly evaluationInterval?: string;
  readonly startTimeoutMs?: number;
  /** Which Prometheus (binaries.ts); default 2, Debian's. */
  readonly major?: PrometheusMajor;
  /**
   * Prometheus 3's OTLP receiver (`--web.enable-otlp-receiver`, POST
   * /api/v1/otlp/v1/metrics) with this `otlp:` configuration section ({}: the defaults).
   */
  readonly otlp?: Readonly<Record<string, unknown>>;
}

export interface PromSample {
  readonly metric: Readonly<Record<string, string>>;
  readonly value?: readonly [number, string];
  readonly values?: readonly (readonly [number, string])[];
}

export interface PromAlert {
  readonly labels: Readonly<Record<string, string>>;
  readonly annotations: Readonly<Record<string, string>>;
  readonly state: "pending" | "firing";
  readonly activeAt: string;
  readonly value: string;
}

export interface PromTarget {
  readonly labels: Record<string, string>;
  readonly scrapeUrl: string;
  readonly health: "up" | "down" | "unknown";
  readonly lastError: string;
  /** RFC 3339. */
  readonly lastScrape: string;
}

interface ApiResponse<T> {
  readonly status: "success" | "error";
  readonly data: T;
  readonly errorType?: string;
  readonly error?: string;
}

export class PrometheusServer {
  readonly url: string;
  readonly #child: ChildProcess;
  readonly #dir: string;
  readonly #log: string[];
  #exited = false;

  private constructor(url: string, child: ChildProcess, dir: string, log: string[]) {
    this.url = url;
    this.#child = child;
    this.#dir = dir;
    this.#log = log;
    child.once("exit", () => {
      this.#exited = true;
    });
  }

  static async start(options: PrometheusOptions = {}): Promise<PrometheusServer> {
    let lastError: unknown;
    // A free port can be taken by another process before Prometheus binds it: retry the whole start.
    for (let attempt = 1; attempt <= 3; attempt++) {
      try {
        return await PrometheusServer.#startOnce(options);
      } catch (error) {
        lastError = error;
        if (!(error instanceof Error && /address already in use/.test(error.message))) throw error;
      }
    }
    throw lastError;
  }

  static async #startOnce(options: PrometheusOptions): Promise<PrometheusServer> {
    const binary = prometheusPath(options.major);
    const dir = mkdtempSync(join(tmpdir(), "prometheus-test-"));
    const port = await freePort();
    const config = {
      global: {
        scrape_interval: options.scrapeInterval ?? "1s",
        scrape_timeout: options.scrapeInterval ?? "1s",
        evaluation_interval: options.evaluationInterval ?? "1s",
      },
      rule_files: options.ruleFiles ?? [],
      ...(options.otlp && Object.keys(options.otlp).length > 0 && { otlp: options.otlp }),
      scrape_configs: (options.scrape ?? []).map((s) => ({
        job_name: s.job,
        metrics_path: s.metricsPath ?? "/metrics",
        honor_labels: s.honorLabels ?? true,
        ...(s.scheme && { scheme: s.scheme }),
        ...(s.tls && {
          tls_config: {
            ca_file: s.tls.caFile,
            ...(s.tls.certFile && { cert_file: s.tls.certFile, key_file: s.tls.keyFile }),
          },
        }),
        ...(s.bearerTokenFile && { authorization: { type: "Bearer", credentials_file: s.bearerTokenFile } }),
        ...(s.relabelConfigs && { relabel_configs: s.relabelConfigs }),
        static_configs: [{ targets: s.targets, ...(s.labels && { labels: s.labels }) }],
      })),
    };
    const configFile = join(dir, "prometheus.yml");
    writeFileSync(configFile, stringify(config));
    const log: string[] = [];
    const child = spawn(
      binary,
      [
        `--config.file=${configFile}`,
        `--storage.tsdb.path=${join(dir, "data")}`,
        `--web.listen-address=127.0.0.1:${port}`,
        "--web.enable-lifecycle",
        "--log.level=info",
        ...(options.otlp ? ["--web.enable-otlp-receiver"] : []),
      ],
      { stdio: ["ignore", "pipe", "pipe"] },
    );
    const keep = (chunk: Buffer) => {
      log.push(...chunk.toString("utf8").split("\n").filter(Boolean));
      if (log.length > 400) log.splice(0, log.length - 400);
    };
    child.stdout?.on("data", keep);
    child.stderr?.on("data", keep);
    const server = new PrometheusServer(`http://127.0.0.1:${port}`, child, dir, log);
    try {
      await server.#waitReady(options.startTimeoutMs ?? 30_000);
    } catch (error) {
      await server.stop();
      throw new Error(`${(error as Error).message}\n--- prometheus log ---\n${log.slice(-30).join("\n")}`);
    }
    return server;
  }

  async #waitReady(timeoutMs: number): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (Date.now() < deadline) {
      if (this.#exited) {
        const bindError = this.#log.some((l) => /address already in use/.test(l));
        throw new Error(`prometheus exited during start-up${bindError ? " (address already in use)" : ""}`);
      }
      try {
        const response = await fetch(`${this.url}/-/ready`, { signal: AbortSignal.timeout(1000) });
        if (response.ok) return;
      } catch {
        // not listening yet
      }
      await sleep(100);
    }
    throw new Error(`prometheus not ready within ${timeoutMs} ms`);
  }

  async #api<T>(path: string, params: Record<string, string> = {}): Promise<T> {
    const response = await fetch(`${this.url}/api/v1/${path}`, {
      method: "POST",
      body: new URLSearchParams(params),
      signal: AbortSignal.timeout(10_000),
    });
    const body = (await response.json()) as ApiResponse<T>;
    if (body.status !== "success") throw new Error(`prometheus ${path}: ${body.errorType}: ${body.error}`);
    return body.data;
  }

  /** Where an OTLP/HTTP exporter posts metrics (options.otlp). */
  get otlpMetricsUrl(): string {
    return `${this.url}/api/v1/otlp/v1/metrics`;
  }

  /** Instant query; throws with Prometheus' error text on a bad query. */
  async query(expr: string, time?: number): Promise<PromSample[]> {
    const data = await this.#api<{ resultType: string; result: PromSample[] | [number, string] }>("query", {
      query: expr,
      ...(time !== undefined ? { time: String(time) } : {}),
    });
    if (data.resultType === "scalar" || data.resultType === "string") {
      return [{ metric: {}, value: data.result as [number, string] }];
    }
    return data.result as PromSample[];
  }

  async queryRange(expr: string, start: number, end: number, step: number): Promise<PromSample[]> {
    const data = await this.#api<{ result: PromSample[] }>("query_range", {
      query: expr,
      start: String(start),
      end: String(end),
      step: String(step),
    });
    return data.result;
  }

  async alerts(): Promise<PromAlert[]> {
    const response = await fetch(`${this.url}/api/v1/alerts`, { signal: AbortSignal.timeout(10_000) });
    const body = (await response.json()) as ApiResponse<{ alerts: PromAlert[] }>;
    return body.data.alerts;
  }

  async rules(): Promise<{ name: string; rules: { name: string; health: string; lastError?: string }[] }[]> {
    const response = await fetch(`${this.url}/api/v1/rules`, { signal: AbortSignal.timeout(10_000) });
    const body = (await response.json()) as ApiResponse<{
      groups: { name: string; rules: { name: string; health: string; lastError?: string }[] }[];
    }>;
    return body.data.groups;
  }

  async targets(): Promise<PromTarget[]> {
    const response = await fetch(`${this.url}/api/v1/targets`, { signal: AbortSignal.timeout(10_000) });
    const body = (await response.json()) as ApiResponse<{ activeTargets: PromTarget[] }>;
    return body.data.activeTargets;
  }

  /** Polls `probe` until it returns a value other than undefined, or fails after `timeoutMs`. */
  async waitFor<T>(what: string, probe: () => Promise<T | undefined>, timeoutMs = 30_000): Promise<T> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const value = await probe();
      if (value !== undefined) return value;
      if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
      await sleep(200);
    }
  }

  /** The last lines Prometheus logged, for failure messages. */
  logTail(lines = 30): string {
    return this.#log.slice(-lines).join("\n");
  }

  async stop(): Promise<void> {
    if (!this.#exited) {
      const exited = new Promise<void>((resolve) => this.#child.once("exit", () => resolve()));
      this.#child.kill("SIGTERM");
      const killed = await Promise.race([exited.then(() => true), sleep(10_000).then(() => false)]);
      if (!killed) {
        this.#child.kill("SIGKILL");
        await exited;
      }
    }
    rmSync(this.#dir, { recursive: true, force: true });
  }
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
