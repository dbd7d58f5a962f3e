// The periodic OTLP metrics export: every interval (from the start of one
// export to the start of the next), when this replica is the one that pushes,
// the points are read from the stores and the registry in batches, each
// encoded and sent (transport.ts) before the next is read: http/protobuf
// requests are written straight from the stores by our own encoder
// (encode.ts), http/json ones are SDK objects (points.ts) serialized by
// @opentelemetry/otlp-transformer. One export at a time, one request
// in flight, nothing kept between exports: a collector that is down or slow
// costs retries within the export's timeout, then the rest of that export is
// dropped and the next one reads the store again. stop() waits for the export
// in flight and flushes once more.

import { JsonMetricsSerializer } from "@opentelemetry/otlp-transformer";
import type { Resource } from "@opentelemetry/resources";
import type { ResourceMetrics } from "@opentelemetry/sdk-metrics";
import type { Registry } from "@prometheus-io/client";
import type { Logger } from "../log.ts";
import type { SeriesSource } from "../metrics/writer.ts";
import { RequestEncoder } from "./encode.ts";
import { unitOf } from "./mapping.ts";
import type { OtlpMetricsMetrics } from "./metrics.ts";
import { readBatches } from "./points.ts";
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
  /**
   * The longest synchronous stretch of encoding: for http/protobuf reading
   * and writing (the encoder's slices), for http/json one batch's serialization.
   */
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
  /**
   * http/json: most points per request (default 2,000). Within it, a batch
   * holds as many points as serialize in about `serializeMs` (default 8 ms),
   * measured as the export goes: the serializer is synchronous, so this
   * bounds the stall.
   */
  maxPoints?: number;
  serializeMs?: number;
  /** http/protobuf: bytes of points per request (default 1 MiB; an object's points are never split). */
  batchBytes?: number;
  /** Longest synchronous stretch of reading (default 5 ms). */
  sliceMs?: number;
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
  /** Points of the next batch, adapted to the serializer's pace (see maxPoints). */
  #batchPoints = 500;
  #msPerPoint: number | undefined;
  /** The http/protobuf encoder, its buffers kept from one export to the next. */
  readonly #encoder = new RequestEncoder(unitOf);
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
    const o = this.#options;
    const deadline = Date.now() + o.settings.exportTimeoutMs;
    const requests =
      o.settings.target.protocol === "http/json"
        ? this.#jsonRequests(report)
        : this.#protobufRequests(report);
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

  /** The common part of both readers' options. */
  #readOptions() {
    const o = this.#options;
    return {
      sources: o.sources(),
      registry: o.registry,
      resource: o.resource,
      scope: { name: "cr-status-exporter", version: o.version },
      nowMs: this.#now(),
      startMs: o.startMs,
      sliceMs: o.sliceMs ?? 5,
    };
  }

  /** http/protobuf: requests written by the encoder, the longest synchronous stretch reported. */
  async *#protobufRequests(report: ExportReport): AsyncGenerator<Payload> {
    try {
      yield* this.#encoder.requests({
        ...this.#readOptions(),
        batchBytes: this.#options.batchBytes ?? 2 ** 20,
      });
    } finally {
      report.maxSerializeMs = this.#encoder.longestSliceMs;
    }
  }

  /**
   * http/json: each batch serialized by the SDK, the batch itself let go
   * before its request is sent (its points would otherwise live through the
   * request and be promoted to the old generation, each export a major
   * collection).
   */
  async *#jsonRequests(report: ExportReport): AsyncGenerator<Payload> {
    const most = this.#options.maxPoints ?? 2_000;
    const target = this.#options.serializeMs ?? 8;
    const batches = readBatches({
      ...this.#readOptions(),
      maxPoints: () => Math.min(most, this.#batchPoints),
    });
    try {
      for (;;) {
        const next = await this.#serialized(batches, most, target, report);
        if (!next) return;
        yield next;
      }
    } finally {
      await batches.return(undefined);
    }
  }

  async #serialized(
    batches: AsyncGenerator<ResourceMetrics>,
    most: number,
    target: number,
    report: ExportReport,
  ): Promise<Payload | undefined> {
    const next = await batches.next();
    if (next.done) return undefined;
    const t = performance.now();
    const payload = JsonMetricsSerializer.serializeRequest(next.value);
    const took = performance.now() - t;
    report.maxSerializeMs = Math.max(report.maxSerializeMs, took);
    if (!payload) throw new Error("the serializer returned nothing");
    const points = next.value.scopeMetrics[0]?.metrics.reduce((n, m) => n + m.dataPoints.length, 0) ?? 0;
    // The next batch: as many points as serialize in the target time at the slowest recent pace
    // (it rises at once, decays by a tenth per batch: one fast batch does not make the next one long).
    if (points > 0) {
      const pace = took / points;
      this.#msPerPoint = Math.max(pace, (this.#msPerPoint ?? pace) * 0.9);
      this.#batchPoints = Math.max(100, Math.min(most, Math.floor(target / this.#msPerPoint)));
    }
    return { payload, points };
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
