// Reading audit batches with memory bounded in total, not only per batch. A
// batch is parsed as it arrives (AuditBatchReader), so a request holds only
// the event being read; those bytes, across all requests, come from one
// shared allowance. A request that would overdraw it is answered 429 with
// Retry-After (the apiserver's webhook retries 429); a batch larger than any
// allowed, or an event larger than the allowance, gets 413 (retrying would not
// help). A refused body is drained, never kept.
import type { IncomingMessage } from "node:http";
import { sharedTurns } from "../../net/turns.ts";
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

function refuse(code: 400 | 413 | 429 | 500, message: string, log = message): BatchResult {
  return { ok: false, code, message, log };
}

function batchTooLarge(limits: BodyLimits): BatchResult {
  return refuse(413, `batch larger than ${limits.maxBodyBytes} bytes`, "rejected audit batch: too large");
}

/** The refusal a Content-Length header alone decides, if any. */
function declaredLengthRefusal(req: IncomingMessage, limits: BodyLimits): BatchResult | undefined {
  const header = req.headers["content-length"];
  const declared = header === undefined ? undefined : Number(header);
  if (declared !== undefined && (!Number.isSafeInteger(declared) || declared < 0)) {
    return refuse(400, "invalid Content-Length");
  }
  if (declared !== undefined && declared > limits.maxBodyBytes) return batchTooLarge(limits);
  return undefined;
}

/** One body being read: what it holds of the shared allowance, and the promise it settles once. */
interface BodyRead {
  readonly req: IncomingMessage;
  readonly limits: BodyLimits;
  readonly reader: AuditBatchReader;
  readonly resolve: (result: BatchResult) => void;
  readonly onData: (chunk: Buffer) => void;
  /** Bytes of limits.inFlight taken for this body. */
  held: number;
  /** Bytes of the body received so far. */
  size: number;
  settled: boolean;
}

/** The batch in the request's body, or why it was refused (code 0: the caller went away). */
export function readAuditBatch(req: IncomingMessage, limits: BodyLimits): Promise<BatchResult> {
  const refused = declaredLengthRefusal(req, limits);
  if (refused) return Promise.resolve(refused);
  // An event can never be larger than what all requests may hold together.
  const reader = new AuditBatchReader({ maxItemBytes: limits.inFlight.max, maxMemberBytes: 64 * 1024 });
  return new Promise<BatchResult>((resolve) => listenToBody(req, limits, reader, resolve));
}

/** The body as it arrives; the first of its end, a refusal, its close or an error settles the promise. */
function listenToBody(
  req: IncomingMessage,
  limits: BodyLimits,
  reader: AuditBatchReader,
  resolve: (result: BatchResult) => void,
): void {
  const read: BodyRead = {
    req,
    limits,
    reader,
    resolve,
    onData: (chunk) => onChunk(read, chunk),
    held: 0,
    size: 0,
    settled: false,
  };
  req.on("data", read.onData);
  req.once("end", () => onEnd(read));
  req.once("close", () => settle(read, { ok: false, code: 0 }));
  req.once("error", () => settle(read, { ok: false, code: 0 }));
}

function onChunk(read: BodyRead, chunk: Buffer): void {
  const refused = afterChunk(read, chunk);
  if (refused) settle(read, refused);
  else if (!sharedTurns.open()) pauseForATurn(read);
}

/**
 * A body read as fast as the socket has it would hold the event loop for a
 * whole batch (libuv reads up to 32 × 64 KiB per socket and turn; four 31 MB
 * batches held /healthz for 300 ms): past the turn's budget (net/turns.ts,
 * shared with scrapes and the status API), the request is paused — its socket
 * no longer read — until a turn of its own.
 */
function pauseForATurn(read: BodyRead): void {
  read.req.pause();
  void sharedTurns.next("first").then(() => {
    if (!read.settled) read.req.resume();
  });
}

function onEnd(read: BodyRead): void {
  try {
    settle(read, { ok: true, batch: read.reader.end() });
  } catch (error) {
    settle(read, streamError(error, read.limits));
  }
}

function settle(read: BodyRead, result: BatchResult): void {
  if (read.settled) return;
  read.settled = true;
  read.limits.inFlight.give(read.held);
  read.held = 0;
  read.req.off("data", read.onData);
  // Nothing more of a refused body is wanted: drain it.
  if (!result.ok) read.req.resume();
  read.resolve(result);
}

/** What refuses the request after this chunk, if anything. */
function afterChunk(read: BodyRead, chunk: Buffer): BatchResult | undefined {
  read.size += chunk.length;
  if (read.size > read.limits.maxBodyBytes) return batchTooLarge(read.limits);
  try {
    read.reader.write(chunk);
  } catch (error) {
    return streamError(error, read.limits);
  }
  return followHeldBytes(read);
}

/** The allowance taken or given back as the event being read grows or is done; 429 when it runs out. */
function followHeldBytes(read: BodyRead): BatchResult | undefined {
  const { inFlight } = read.limits;
  const now = read.reader.heldBytes;
  if (now > read.held && !inFlight.tryTake(now - read.held)) {
    return refuse(
      429,
      `${inFlight.max} bytes of audit events are already being read; retry shortly`,
      "refused audit batch: too many bytes in flight",
    );
  }
  if (now < read.held) inFlight.give(read.held - now);
  read.held = now;
  return undefined;
}

function streamError(error: unknown, limits: BodyLimits): BatchResult {
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
}
