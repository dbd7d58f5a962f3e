// How refuseClient (src/server/client-errors.ts) closes a refused caller's
// socket, on an in-memory socket and a fake clock: at once when nothing can
// be written, once the answer is out for a timed-out caller, at the end of
// what the caller sends for the others, and after 2 s at the latest.
import assert from "node:assert/strict";
import { Duplex } from "node:stream";
import { test } from "node:test";
import { refuseClient } from "../../src/server/client-errors.ts";

/**
 * A socket whose written bytes are kept; the caller's side is pushed by the
 * test. A stalled one never finishes a write (a caller that does not read).
 */
function fakeSocket(stalled = false): { socket: Duplex; written: () => string } {
  const parts: Buffer[] = [];
  const socket = new Duplex({
    read() {},
    write(chunk: Buffer, _encoding, callback) {
      parts.push(chunk);
      if (!stalled) callback();
    },
  });
  return { socket, written: () => Buffer.concat(parts).toString() };
}

const turns = async (n = 5): Promise<void> => {
  for (let i = 0; i < n; i++) await new Promise((resolve) => setImmediate(resolve));
};

test("a socket that can no longer be written is destroyed without an answer", () => {
  const { socket, written } = fakeSocket();
  socket.end();
  refuseClient(socket, "400 Bad Request");
  assert.equal(socket.destroyed, true);
  assert.equal(written(), "");
});

test("a timed-out caller (408) is cut off once the answer is written, without waiting for its end", async () => {
  const { socket, written } = fakeSocket();
  refuseClient(socket, "408 Request Timeout");
  await turns();
  assert.equal(socket.destroyed, true);
  assert.match(written(), /^HTTP\/1\.1 408 Request Timeout\r\n[\s\S]*\r\n\r\nRequest Timeout\n$/);
});

test("another refused caller is read to its end and dropped, then its socket destroyed", async () => {
  const { socket, written } = fakeSocket();
  refuseClient(socket, "400 Bad Request");
  await turns();
  assert.match(written(), /^HTTP\/1\.1 400 Bad Request\r\n/);
  assert.equal(socket.destroyed, false, "the caller may still be sending");
  socket.push("the rest of a long request");
  await turns();
  assert.equal(socket.destroyed, false);
  socket.push(null);
  await turns();
  assert.equal(socket.destroyed, true, "destroyed at the end of what the caller sent");
});

test("a refused caller that ends its request without reading the answer is not waited for", async () => {
  const { socket, written } = fakeSocket(true);
  refuseClient(socket, "414 URI Too Long");
  await turns();
  assert.match(written(), /^HTTP\/1\.1 414 URI Too Long\r\n/);
  socket.push(null);
  await turns();
  assert.equal(socket.destroyed, true);
});

test("a refused caller that never stops sending is cut off after 2 s", (t) => {
  t.mock.timers.enable({ apis: ["setTimeout"] });
  const { socket } = fakeSocket();
  refuseClient(socket, "431 Request Header Fields Too Large");
  t.mock.timers.tick(1_999);
  assert.equal(socket.destroyed, false);
  t.mock.timers.tick(1);
  assert.equal(socket.destroyed, true);
});

test("one answer per socket: a second refusal writes nothing more", async () => {
  const { socket, written } = fakeSocket();
  refuseClient(socket, "400 Bad Request");
  refuseClient(socket, "400 Bad Request");
  await turns();
  assert.equal(written().match(/HTTP\/1\.1/g)?.length, 1);
});
