// Reading audit batches with memory bounded in total, not only per batch. A
// batch is parsed as it arrives (AuditBatchReader), so a request holds only
// the event being read; those bytes, across all requests, come from one
// shared allowance. A request that would overdraw it is answered 429 with
// Retry-After (the apiserver's webhook retries 429); a batch larger than any
// allowed, or an event larger than the allowance, gets 413 (retrying would not
// help). A refused body is drained, never kept.
import type { IncomingMessage } from "node:http";
import { AuditBatchReader, type AuditBatchSummary } from "./audit-batch-reader.ts";
import { AuditPayloadError } from "./audit-events.ts";
import { JsonStreamError } from "./event-list-stream.ts";

/** Bytes held by events being read, across all requests. */
export class InFlightBytes {
  readonly max: number;
  #held = 0;

  constructor(max: number) {
    this.max = max;
  }

  get held(): number {
    return this.#held;
  }

  tryTake(bytes: number): boolean {
    if (this.#held + bytes > this.max) return false;
    this.#held += bytes;
    return true;
  }

  give(bytes: number): void {
    this.#held = Math.max(0, this.#held - bytes);
  }
}

export type BatchResult =
  | { ok: true; batch: AuditBatchSummary }
  | { ok: false; code: 400 | 413 | 429 | 500; message: string; log: string }
  | { ok: false; code: 0 };

export interface BodyLimits {
  maxBodyBytes: number;
  inFlight: InFlightBytes;
}

/** The batch in the request's body, or why it was refused (code 0: the caller went away). */
// biome-ignore lint/complexity/noExcessiveLinesPerFunction: one body read: its size limits, decoding and abort paths settle one promise
export function readAuditBatch(req: IncomingMessage, limits: BodyLimits): Promise<BatchResult> {
  const header = req.headers["content-length"];
  const declared = header === undefined ? undefined : Number(header);
  const refuse = (code: 400 | 413 | 429 | 500, message: string, log = message): BatchResult => ({
    ok: false,
    code,
    message,
    log,
  });
  if (declared !== undefined && (!Number.isSafeInteger(declared) || declared < 0)) {
    return Promise.resolve(refuse(400, "invalid Content-Length"));
  }
  const tooLarge = refuse(
    413,
    `batch larger than ${limits.maxBodyBytes} bytes`,
    "rejected audit batch: too large",
  );
  if (declared !== undefined && declared > limits.maxBodyBytes) return Promise.resolve(tooLarge);

  // An event can never be larger than what all requests may hold together.
  const reader = new AuditBatchReader({ maxItemBytes: limits.inFlight.max, maxMemberBytes: 64 * 1024 });
  return new Promise<BatchResult>((resolve) => {
    let held = 0;
    let size = 0;
    let settled = false;
    const settle = (result: BatchResult): void => {
      if (settled) return;
      settled = true;
      limits.inFlight.give(held);
      held = 0;
      req.off("data", onData);
      // Nothing more of a refused body is wanted: drain it.
      if (!result.ok) req.resume();
      resolve(result);
    };
    /** What refuses the request after this chunk, if anything. */
    const afterChunk = (chunk: Buffer): BatchResult | undefined => {
      size += chunk.length;
      if (size > limits.maxBodyBytes) return tooLarge;
      try {
        reader.write(chunk);
      } catch (error) {
        return streamError(error);
      }
      const now = reader.heldBytes;
      if (now > held && !limits.inFlight.tryTake(now - held)) {
        return refuse(
          429,
          `${limits.inFlight.max} bytes of audit events are already being read; retry shortly`,
          "refused audit batch: too many bytes in flight",
        );
      }
      if (now < held) limits.inFlight.give(held - now);
      held = now;
      return undefined;
    };
    const onData = (chunk: Buffer): void => {
      const refused = afterChunk(chunk);
      if (refused) settle(refused);
    };
    const streamError = (error: unknown): BatchResult => {
      if (error instanceof JsonStreamError) {
        return error.tooLarge
          ? refuse(
              413,
              `an audit event larger than ${limits.inFlight.max} bytes`,
              "rejected audit batch: event too large",
            )
          : refuse(400, "body is not JSON", `rejected audit batch: not JSON: ${error.message}`);
      }
      if (error instanceof AuditPayloadError)
        return refuse(400, error.message, `rejected audit batch: ${error.message}`);
      // A defect must cost one batch (the apiserver retries a 500), never the process.
      return refuse(500, "internal error", `audit batch handling failed: ${String(error)}`);
    };
    req.on("data", onData);
    req.once("end", () => {
      try {
        settle({ ok: true, batch: reader.end() });
      } catch (error) {
        settle(streamError(error));
      }
    });
    req.once("close", () => settle({ ok: false, code: 0 }));
    req.once("error", () => settle({ ok: false, code: 0 }));
  });
}
