// The periodic OTLP metrics export: every interval (from the start of one
// export to the start of the next), when this replica is the one that pushes,
// the points are read from the stores and the registry in requests of about
// `batchBytes`, each written and sent (transport.ts) before the next is read,
// straight from the stores by our own encoders: encode.ts for http/protobuf,
// json-encode.ts for http/json (the same reading, requests.ts; no SDK object
// per point in either). One export at a time, one request
// in flight, nothing kept between exports: a collector that is down or slow
// costs retries within the export's timeout, then the rest of that export is
// dropped and the next one reads the store again. stop() waits for the export
// in flight and flushes once more.

import type { Resource } from "@opentelemetry/resources";
import type { Registry } from "@prometheus-io/client";
import type { Logger } from "../log.ts";
import type { SeriesSource } from "../metrics/writer.ts";
import type { TurnShare } from "../net/turns.ts";
import { RequestEncoder } from "./encode.ts";
import { JsonRequestEncoder } from "./json-encode.ts";
import { unitOf } from "./mapping.ts";
import type { OtlpMetricsMetrics } from "./metrics.ts";
import type { OtlpMetricsSettings } from "./settings.ts";
import { type RequestSettings, send } from "./transport.ts";

export interface ExportReport {
  result: "success" | "failure" | "skipped";
  points: number;
  requests: number;
  /** Bytes sent (after compression), retries not counted twice. */
  bytes: number;
  /** Bytes serialized, before compression. */
  rawBytes: number;
  durationMs: number;
  /** The longest synchronous stretch of reading and writing (the encoder's slices). */
  maxSerializeMs: number;
  error?: string;
}

export interface OtlpMetricsExporterOptions {
  settings: OtlpMetricsSettings;
  /** What /metrics writes: read at every export. */
  sources: () => readonly SeriesSource[];
  registry: Registry;
  resource: Resource;
  version: string;
  /** Only the Lease holder pushes (default: always). */
  isLeader?: () => boolean;
  metrics?: OtlpMetricsMetrics;
  logger: Logger;
  /** Epoch milliseconds. */
  nowMs?: () => number;
  /** Epoch milliseconds: the start time of cumulative points. */
  startMs: number;
  /** Bytes of points per request (default 1 MiB; an object's points are never split). */
  batchBytes?: number;
  /** Whose turns of the event loop the reading shares (the process's one share unless a test gives its own). */
  turns?: TurnShare;
}

/** One request's bytes and how many points it carries. */
interface Payload {
  payload: Uint8Array;
  points: number;
}

const contentTypes = { "http/protobuf": "application/x-protobuf", "http/json": "application/json" } as const;

export class OtlpMetricsExporter {
  readonly #options: OtlpMetricsExporterOptions;
  readonly #request: RequestSettings;
  readonly #now: () => number;
  #timer: NodeJS.Timeout | undefined;
  #inFlight: Promise<ExportReport> | undefined;
  #stopping = false;
  #failing = false;
  /** The protocol's encoder, its buffers kept from one export to the next. */
  readonly #encoder: RequestEncoder | JsonRequestEncoder;
  /** The last export's figures (undefined before the first). */
  lastReport: ExportReport | undefined;

  constructor(options: OtlpMetricsExporterOptions) {
    this.#options = options;
    this.#now = options.nowMs ?? Date.now;
    const { target, headers, compression, timeoutMs } = options.settings;
    this.#request = {
      url: target.url,
      contentType: contentTypes[target.protocol],
      headers,
      compression,
      timeoutMs,
    };
    this.#encoder =
      target.protocol === "http/json" ? new JsonRequestEncoder(unitOf) : new RequestEncoder(unitOf);
    options.metrics?.lastSuccess.set(0);
  }

  /** Exports every interval from now on (the first after one interval). */
  start(): void {
    this.#schedule(this.#options.settings.intervalMs);
  }

  #schedule(delayMs: number): void {
    if (this.#stopping) return;
    this.#timer = setTimeout(async () => {
      const started = this.#now();
      await this.exportNow();
      this.#schedule(Math.max(0, this.#options.settings.intervalMs - (this.#now() - started)));
    }, delayMs);
    this.#timer.unref();
  }

  /** One export now; while one runs, that one (never two at once). */
  exportNow(): Promise<ExportReport> {
    this.#inFlight ??= this.#export().finally(() => {
      this.#inFlight = undefined;
    });
    return this.#inFlight;
  }

  /** Stops the schedule, waits for the export in flight, then flushes once. */
  async stop(): Promise<ExportReport | undefined> {
    this.#stopping = true;
    clearTimeout(this.#timer);
    await this.#inFlight;
    return this.exportNow();
  }

  async #export(): Promise<ExportReport> {
    const started = performance.now();
    const report: ExportReport = {
      result: "success",
      points: 0,
      requests: 0,
      bytes: 0,
      rawBytes: 0,
      durationMs: 0,
      maxSerializeMs: 0,
    };
    if (this.#options.isLeader && !this.#options.isLeader()) {
      report.result = "skipped";
      return this.#finish(report, started);
    }
    const deadline = Date.now() + this.#options.settings.exportTimeoutMs;
    const requests = this.#requests(report);
    try {
      for (;;) {
        const next = await requests.next();
        if (next.done) break;
        const sent = await send(this.#request, next.value.payload, deadline);
        report.requests++;
        report.rawBytes += next.value.payload.length;
        report.bytes += sent.bytes;
        if (!sent.ok) {
          // The rest of this export is dropped: the next one reads the store again.
          report.result = "failure";
          report.error = sent.error;
          await requests.return(undefined);
          break;
        }
        report.points += next.value.points - sent.rejectedPoints;
      }
    } catch (error) {
      report.result = "failure";
      report.error = String(error);
    }
    return this.#finish(report, started);
  }

  /** The encoder's requests, the longest synchronous stretch reported. */
  async *#requests(report: ExportReport): AsyncGenerator<Payload> {
    const o = this.#options;
    try {
      yield* this.#encoder.requests({
        sources: o.sources(),
        registry: o.registry,
        resource: o.resource,
        scope: { name: "cr-status-exporter", version: o.version },
        nowMs: this.#now(),
        startMs: o.startMs,
        turns: o.turns,
        batchBytes: o.batchBytes ?? 2 ** 20,
      });
    } finally {
      report.maxSerializeMs = this.#encoder.longestSliceMs;
    }
  }

  #finish(report: ExportReport, started: number): ExportReport {
    report.durationMs = performance.now() - started;
    this.lastReport = report;
    const { metrics, logger, settings } = this.#options;
    metrics?.exports.inc({ result: report.result });
    if (report.result === "success") metrics?.lastSuccess.set(this.#now() / 1000);
    if (report.result === "skipped") return report;
    const failing = report.result === "failure";
    if (failing !== this.#failing) {
      this.#failing = failing;
      if (failing)
        logger.warn("metrics not exported over OTLP", { url: settings.target.url, error: report.error });
      else
        logger.info("metrics exported over OTLP again", { url: settings.target.url, points: report.points });
    }
    logger.debug("OTLP metrics export", { ...report, durationMs: Math.round(report.durationMs) });
    return report;
  }
}
