// Reading audit batches with memory bounded in total, not only per batch:
// every body in flight holds bytes taken from one shared allowance, and a
// batch that would overdraw it is refused with 429 and Retry-After before its
// body is read (the apiserver's webhook retries 429), while a batch larger
// than any allowed is refused with 413 (retrying would not help). The bytes
// are given back when the batch has been handled.
import type { IncomingMessage } from "node:http";

/** Bytes held by bodies being read or handled, across all requests. */
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

export type BodyResult =
  | {
      ok: true;
      body: Buffer /** Gives the body's bytes back to the allowance; call once handled. */;
      release(): void;
    }
  | { ok: false; code: 400 | 413 | 429; message: string }
  | { ok: false; code: 0; message: string };

export interface BodyLimits {
  maxBodyBytes: number;
  inFlight: InFlightBytes;
}

/**
 * The whole body, or why it was refused. With Content-Length (what the
 * apiserver sends) the decision is made before any byte is read and the body
 * is read straight into one buffer of that size; a chunked body takes from the
 * allowance as it arrives. code 0: the caller went away.
 */
export function readAuditBody(req: IncomingMessage, limits: BodyLimits): Promise<BodyResult> {
  const header = req.headers["content-length"];
  const declared = header === undefined ? undefined : Number(header);
  if (declared !== undefined && (!Number.isSafeInteger(declared) || declared < 0)) {
    return Promise.resolve({ ok: false, code: 400, message: "invalid Content-Length" });
  }
  const tooLarge = {
    ok: false,
    code: 413,
    message: `batch larger than ${limits.maxBodyBytes} bytes`,
  } as const;
  const busy = {
    ok: false,
    code: 429,
    message: `${limits.inFlight.max} bytes of audit batches are already being handled; retry shortly`,
  } as const;
  if (declared !== undefined && declared > limits.maxBodyBytes) return Promise.resolve(tooLarge);
  if (declared !== undefined && !limits.inFlight.tryTake(declared)) return Promise.resolve(busy);

  return new Promise<BodyResult>((resolve) => {
    let taken = declared ?? 0;
    let settled = false;
    const chunks: Buffer[] = [];
    const buffer = declared !== undefined ? Buffer.allocUnsafe(declared) : undefined;
    let size = 0;
    const giveBack = (): void => {
      limits.inFlight.give(taken);
      taken = 0;
    };
    const settle = (result: BodyResult): void => {
      if (settled) return;
      settled = true;
      req.off("data", onData);
      if (!result.ok) {
        giveBack();
        chunks.length = 0;
        // Nothing more of this body is wanted: stop reading it.
        req.resume();
      }
      resolve(result);
    };
    const onData = (chunk: Buffer): void => {
      if (buffer) {
        chunk.copy(buffer, size);
        size += chunk.length;
        return;
      }
      if (size + chunk.length > limits.maxBodyBytes) {
        settle(tooLarge);
        return;
      }
      if (!limits.inFlight.tryTake(chunk.length)) {
        settle(busy);
        return;
      }
      taken += chunk.length;
      chunks.push(chunk);
      size += chunk.length;
    };
    req.on("data", onData);
    req.once("end", () => {
      const body = buffer ?? Buffer.concat(chunks, size);
      chunks.length = 0;
      settle({ ok: true, body: buffer ? body.subarray(0, size) : body, release: giveBack });
    });
    req.once("close", () => settle({ ok: false, code: 0, message: "the caller went away" }));
    req.once("error", () => settle({ ok: false, code: 0, message: "the request failed" }));
  });
}
