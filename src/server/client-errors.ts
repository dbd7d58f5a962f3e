// The answer to a request Node.js's HTTP parser refused (server "clientError"),
// shared by the exporter's server and the API proxy. Node's own handler
// answers and destroys the socket at once; when the caller is still sending
// (a 100 KB query string, say) the unread bytes make the kernel reset the
// connection and the caller sees a reset instead of the answer. So the answer
// is written, the socket half-closed, and what the caller still sends is
// read and dropped for a short while before the socket is destroyed.
import { maxHeaderSize } from "node:http";
import type { Duplex } from "node:stream";

/** How long a refused caller's remaining bytes are read and dropped before the socket is destroyed. */
const lingerAfterRefusalMs = 2_000;

/**
 * Status line of the answer to a parser error: 408, 414, 431 or 400. Node
 * counts the request line with the headers against one limit (`headerLimit`,
 * the server's maxHeaderSize): a request line that alone reaches it is a URL
 * too long (414), else the headers are too large (431).
 */
export function refusalStatus(
  error: NodeJS.ErrnoException & { rawPacket?: Buffer },
  headerLimit = maxHeaderSize,
): string {
  if (error.code === "ERR_HTTP_REQUEST_TIMEOUT") return "408 Request Timeout";
  if (error.code !== "HPE_HEADER_OVERFLOW") return "400 Bad Request";
  const raw = error.rawPacket ?? Buffer.alloc(0);
  const lineEnd = raw.indexOf("\r\n");
  const lineLength = lineEnd === -1 ? raw.length : lineEnd;
  return lineLength >= headerLimit ? "414 URI Too Long" : "431 Request Header Fields Too Large";
}

const refused = new WeakSet<Duplex>();

/**
 * Answers a refused request with `status` and closes. A timed-out caller
 * (408) is cut off once the answer is written: it is trickling on purpose.
 * Any other is read to its end and dropped for at most lingerAfterRefusalMs first.
 */
export function refuseClient(socket: Duplex, status: string): void {
  // The parser fails again on every later chunk of a refused request: one answer per socket.
  if (refused.has(socket)) return;
  refused.add(socket);
  if (!socket.writable) {
    socket.destroy();
    return;
  }
  const body = `${status.slice(4)}\n`;
  const answer = `HTTP/1.1 ${status}\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Length: ${body.length}\r\nConnection: close\r\n\r\n${body}`;
  if (status.startsWith("408")) {
    socket.end(answer, () => socket.destroy());
    return;
  }
  socket.end(answer);
  socket.on("data", () => {});
  socket.on("end", () => socket.destroy());
  setTimeout(() => socket.destroy(), lingerAfterRefusalMs).unref();
}
