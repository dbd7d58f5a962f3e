// What hostile API-proxy callers do, for the unit and end-to-end tests: send a
// body as fast as the connection takes it, and time how long the other end
// keeps a connection open.
import type { ClientRequest } from "node:http";

/** Writes `bytes` of filler to `req` (honouring backpressure), then ends it. */
export function sendBody(req: ClientRequest, bytes: number, chunkBytes = 256 * 1024): void {
  const chunk = Buffer.alloc(chunkBytes, "x");
  let sent = 0;
  const write = (): void => {
    while (sent < bytes) {
      sent += chunk.length;
      if (!req.write(chunk)) {
        req.once("drain", write);
        return;
      }
    }
    req.end();
  };
  write();
}

/** Milliseconds from `started` until `socket` is closed (an error counts as closed); Infinity past `deadlineMs`. */
export function closedAfter(
  socket: NodeJS.EventEmitter,
  started: number,
  deadlineMs: number,
): Promise<number> {
  return new Promise((resolve) => {
    const deadline = setTimeout(() => resolve(Number.POSITIVE_INFINITY), deadlineMs);
    socket.once("close", () => {
      clearTimeout(deadline);
      resolve(performance.now() - started);
    });
    socket.once("error", () => {});
  });
}
