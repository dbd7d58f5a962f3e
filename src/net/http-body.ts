// Reading a whole HTTP message body (a response of the Kubernetes API, a
// request of the audit webhook, and the same in tests), with a bound on what is
// held in memory, and the JSON-or-text reading of Kubernetes answers.
import type { IncomingMessage } from "node:http";

export class BodyTooLargeError extends Error {
  readonly limitBytes: number;
  constructor(limitBytes: number) {
    super(`body larger than ${limitBytes} bytes`);
    this.limitBytes = limitBytes;
  }
}

/**
 * The body, once it has ended. Beyond `limitBytes` it rejects with
 * BodyTooLargeError and discards the rest as it arrives; whether to answer
 * (a server) or destroy the message (a client) is the caller's choice.
 */
export function readBody(message: IncomingMessage, limitBytes: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let settled = false;
    const fail = (error: Error): void => {
      if (settled) return;
      settled = true;
      chunks.length = 0;
      reject(error);
    };
    message.on("data", (chunk: Buffer) => {
      if (settled) return;
      size += chunk.length;
      if (size > limitBytes) fail(new BodyTooLargeError(limitBytes));
      else chunks.push(chunk);
    });
    message.once("end", () => {
      if (settled) return;
      settled = true;
      resolve(Buffer.concat(chunks, size));
    });
    message.once("error", fail);
    message.once("aborted", () => fail(new Error("the body was cut off")));
  });
}

/** A body parsed as JSON; text that is not JSON (e.g. /readyz, /metrics) as the text, an empty body as undefined. */
export function jsonOrText(body: Buffer): unknown {
  const text = body.toString("utf8");
  if (text === "") return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}
