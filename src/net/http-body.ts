// Reading a whole HTTP message body (a response of the Kubernetes API, a
// request of the audit webhook, and the same in tests), with a bound on what is
// held in memory, and the JSON-or-text reading of Kubernetes answers.
import type { IncomingMessage } from "node:http";
import { StringDecoder } from "node:string_decoder";

export class BodyTooLargeError extends Error {
  readonly limitBytes: number;
  constructor(limitBytes: number) {
    super(`body larger than ${limitBytes} bytes`);
    this.limitBytes = limitBytes;
  }
}

/** What a body's chunks go into: kept as they arrive, then made into the result. */
export interface BodySink<T> {
  add(chunk: Buffer): void;
  finish(): T;
  /** Lets go of what was kept (the body failed). */
  drop(): void;
}

/**
 * Feeds a message's chunks to `sink` until it ends. Beyond `limitBytes` it
 * rejects with BodyTooLargeError and discards the rest as it arrives; whether
 * to answer (a server) or destroy the message (a client) is the caller's choice.
 */
export function readInto<T>(message: IncomingMessage, limitBytes: number, sink: BodySink<T>): Promise<T> {
  return new Promise((resolve, reject) => {
    let size = 0;
    let settled = false;
    const fail = (error: Error): void => {
      if (settled) return;
      settled = true;
      sink.drop();
      reject(error);
    };
    message.on("data", (chunk: Buffer) => {
      // Stryker disable next-line ConditionalExpression: data after settling only follows a too-large body (a stream sends none after end, error or aborted); its size only grows, so it fails again, and fail returns at once
      if (settled) return;
      size += chunk.length;
      if (size > limitBytes) fail(new BodyTooLargeError(limitBytes));
      else sink.add(chunk);
    });
    message.once("end", () => {
      if (settled) return;
      settled = true;
      resolve(sink.finish());
    });
    message.once("error", fail);
    message.once("aborted", () => fail(new Error("the body was cut off")));
  });
}

/** The body as one Buffer, once it has ended (see readInto for the limit). */
export function readBody(message: IncomingMessage, limitBytes: number): Promise<Buffer> {
  let chunks: Buffer[] = [];
  let size = 0;
  return readInto(message, limitBytes, {
    add: (chunk) => {
      chunks.push(chunk);
      size += chunk.length;
    },
    finish: () => Buffer.concat(chunks, size),
    // Stryker disable next-line BlockStatement: drop only lets the memory go early; the promise is rejected and nothing reads chunks after it
    drop: () => {
      chunks = [];
    },
  });
}

/**
 * The body as UTF-8 text, decoded chunk by chunk as it arrives (a character
 * split across chunks is kept whole by the decoder). Unlike readBody() +
 * toString(), no Buffer of the whole body and no copy of it outside the
 * JavaScript heap is made: Node keeps a large ASCII text decoded from one
 * Buffer as an external string, and that malloc'd memory (like the Buffer's)
 * goes back to the allocator only after a full garbage collection, which then
 * keeps it. A list page of 500 objects is about 1.7 MB, and every page of a
 * list left two such copies behind.
 */
export function readText(message: IncomingMessage, limitBytes: number): Promise<string> {
  const decoder = new StringDecoder("utf8");
  let parts: string[] = [];
  return readInto(message, limitBytes, {
    add: (chunk) => {
      parts.push(decoder.write(chunk));
    },
    finish: () => parts.join("") + decoder.end(),
    // Stryker disable next-line BlockStatement: drop only lets the memory go early; the promise is rejected and nothing reads parts after it
    drop: () => {
      // Stryker disable next-line ArrayDeclaration: as above, parts is never read after drop
      parts = [];
    },
  });
}

/** Text parsed as JSON; text that is not JSON as the text, empty text as undefined. */
export function parseJsonOrText(text: string): unknown {
  if (text === "") return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

/** A body parsed as JSON; text that is not JSON (e.g. /readyz, /metrics) as the text, an empty body as undefined. */
export function jsonOrText(body: Buffer): unknown {
  return parseJsonOrText(body.toString("utf8"));
}
