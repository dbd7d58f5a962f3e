// What a caller gets when Node.js's parser refuses its request, on the
// exporter's server (listen()): 414 for a URL past the header limit, 431 for
// headers past it, 400 for garbage — each answer read by a caller that is
// still sending (no connection reset), and the connection then closed.
import assert from "node:assert/strict";
import { maxHeaderSize } from "node:http";
import { connect } from "node:net";
import { after, before, test } from "node:test";
import Koa from "koa";
import { refusalStatus } from "../../src/server/client-errors.ts";
import { type Listening, listen } from "../../src/server/http.ts";

let server: Listening;
before(async () => {
  const app = new Koa();
  app.use((ctx) => {
    ctx.body = "ok";
  });
  server = await listen(app, "127.0.0.1:0");
});
after(() => server.close());

/**
 * Sends `request` in 64 KB pieces 5 ms apart (a caller on a real network is
 * still sending when the refusal comes), then reads until the server closes;
 * a reset, while sending or reading, fails.
 */
function exchange(request: string, end = true): Promise<string> {
  const { port } = new URL(server.url);
  return new Promise((resolve, reject) => {
    let answer = "";
    // Half-open, as curl is: the server's FIN does not stop this side sending.
    const socket = connect({ port: Number(port), host: "127.0.0.1", allowHalfOpen: true }, async () => {
      for (let at = 0; at < request.length && !socket.destroyed; at += 65_536) {
        socket.write(request.slice(at, at + 65_536));
        await new Promise((paced) => setTimeout(paced, 5));
      }
      if (end) socket.end();
    });
    socket.on("data", (data: Buffer) => {
      answer += data.toString();
    });
    socket.on("error", (error) =>
      reject(new Error(`${error.message} after reading ${JSON.stringify(answer)}`)),
    );
    socket.on("close", () => resolve(answer));
  });
}

const filler = (n: number) => "a".repeat(n);

test("a URL past the header limit is 414, read to the end by a caller still sending 1 MB", async () => {
  const answer = await exchange(`GET /?q=${filler(1_000_000)} HTTP/1.1\r\nHost: x\r\n\r\n`);
  assert.match(answer, /^HTTP\/1\.1 414 URI Too Long\r\n/);
  assert.match(answer, /\r\nConnection: close\r\n/);
  assert.match(answer, /\r\n\r\nURI Too Long\n$/);
});

test("headers past the limit are 431, a URL just under it with them too", async () => {
  assert.match(
    await exchange(`GET / HTTP/1.1\r\nHost: x\r\nX-Big: ${filler(200_000)}\r\n\r\n`),
    /^HTTP\/1\.1 431 Request Header Fields Too Large\r\n/,
  );
  const half = maxHeaderSize / 2;
  assert.match(
    await exchange(`GET /?q=${filler(half)} HTTP/1.1\r\nHost: x\r\nX-Big: ${filler(half)}\r\n\r\n`),
    /^HTTP\/1\.1 431 /,
  );
});

test("a request within the limit is served; garbage is 400", async () => {
  assert.match(
    await exchange(`GET /?q=${filler(maxHeaderSize / 2)} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`),
    /^HTTP\/1\.1 200 /,
  );
  assert.match(await exchange("NOT HTTP AT ALL\r\n\r\n"), /^HTTP\/1\.1 400 Bad Request\r\n/);
});

test("refusalStatus: 408 for a timeout, 414/431 by the request line's length against the limit", () => {
  const overflow = (raw: string) =>
    Object.assign(new Error("overflow"), { code: "HPE_HEADER_OVERFLOW", rawPacket: Buffer.from(raw) });
  assert.equal(
    refusalStatus(Object.assign(new Error("t"), { code: "ERR_HTTP_REQUEST_TIMEOUT" })),
    "408 Request Timeout",
  );
  assert.equal(refusalStatus(overflow(`GET /${filler(99)}`), 100), "414 URI Too Long");
  assert.equal(refusalStatus(overflow(`GET /${filler(95)}\r\nX: y`), 100), "414 URI Too Long");
  assert.equal(
    refusalStatus(overflow(`GET /${filler(94)}\r\nX: y`), 100),
    "431 Request Header Fields Too Large",
  );
  assert.equal(
    refusalStatus(Object.assign(new Error("x"), { code: "HPE_INVALID_METHOD" })),
    "400 Bad Request",
  );
});
