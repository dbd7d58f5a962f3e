// sendPlain and sendGzip (src/server/send-exposition.ts) against in-memory
// streams: the listeners a wait for drain adds are gone after it, a response
// destroyed during the wait is not ended, and the compressor's two input
// buffers are reused, a buffer of its own made only for a chunk longer than
// they are.
import assert from "node:assert/strict";
import type { ServerResponse } from "node:http";
import { Writable } from "node:stream";
import { test } from "node:test";
import { gunzipSync } from "node:zlib";
import { sendGzip, sendPlain } from "../../src/server/send-exposition.ts";

async function* each(texts: readonly string[]): AsyncIterable<string> {
  yield* texts;
}

/** A response that takes one byte before it needs a drain, and drains a turn later. */
function slowSink(): { res: Writable; received: () => Buffer } {
  const parts: Buffer[] = [];
  const res = new Writable({
    highWaterMark: 1,
    write(chunk: Buffer, _encoding, callback) {
      parts.push(chunk);
      setImmediate(callback);
    },
  });
  return { res, received: () => Buffer.concat(parts) };
}

test("sendPlain: waiting for drain leaves no drain or close listener behind", async () => {
  const { res, received } = slowSink();
  const before = [res.listenerCount("drain"), res.listenerCount("close")];
  const texts = Array.from({ length: 20 }, (_, i) => `line ${i}\n`);
  await sendPlain(res as unknown as ServerResponse, each(texts));
  assert.equal(received().toString(), texts.join(""));
  assert.deepEqual([res.listenerCount("drain"), res.listenerCount("close")], before);
});

test("sendPlain: a response destroyed while its last chunk waits is not ended", async () => {
  let ended = 0;
  const res = new Writable({
    highWaterMark: 1,
    write(_chunk, _encoding, _callback) {
      // Never written: the client is gone.
      setImmediate(() => res.destroy());
    },
  });
  const end = res.end.bind(res);
  res.end = ((...args: Parameters<Writable["end"]>) => {
    ended++;
    return end(...args);
  }) as Writable["end"];
  await sendPlain(res as unknown as ServerResponse, each(["only chunk\n"]));
  assert.equal(res.destroyed, true);
  assert.equal(ended, 0);
});

test("sendGzip: two input buffers of twice chunkBytes serve every chunk not longer than that", async (t) => {
  const chunkBytes = 16;
  const texts = [
    "a".repeat(5),
    "b".repeat(2 * chunkBytes),
    "c".repeat(2 * chunkBytes + 1),
    "d".repeat(7),
    "e",
  ];
  const allocated = t.mock.method(Buffer, "allocUnsafeSlow");
  const { res, received } = slowSink();
  await sendGzip(res as unknown as ServerResponse, each(texts), { level: 1, chunkBytes });
  assert.deepEqual(
    allocated.mock.calls.map((c) => c.arguments[0]),
    [2 * chunkBytes, 2 * chunkBytes, 2 * chunkBytes + 1],
    "the two input buffers, then one for the chunk longer than them",
  );
  assert.equal(gunzipSync(received()).toString(), texts.join(""));
});
