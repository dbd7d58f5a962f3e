// Sends /metrics' chunks (byte strings, metrics/chunks.ts) to a response,
// as they come and no faster than the client reads them. Memory is given
// back as each chunk is sent, not at the next garbage collection: a plain
// chunk goes to the socket as a string, which copies it into memory of its
// own and frees that when the write completes; a compressed one is copied
// into one of two input buffers the compressor reuses. A Buffer per chunk
// (what a Readable of the chunks makes) lives until a collection finds it:
// about 600 of them per scrape of 40 MiB, and under back-to-back scrapes the
// allocator kept what they had taken (bench/README.md: aborted scrapes at
// 20,000 objects grew RSS by 110 MiB in a minute).
import { once } from "node:events";
import type { ServerResponse } from "node:http";
import { pipeline } from "node:stream/promises";
import { createGzip, type ZlibOptions } from "node:zlib";

/** Resolves once `stream` can take more, or is gone. */
function writable(stream: NodeJS.WritableStream & { destroyed: boolean }): Promise<void> {
  return new Promise((resolve) => {
    const done = (): void => {
      stream.off("drain", done);
      stream.off("close", done);
      resolve();
    };
    stream.on("drain", done);
    stream.on("close", done);
  });
}

/** Writes `chunks` to `res` as they are, and ends it; returns early (ending the chunks) if the client goes away. */
export async function sendPlain(res: ServerResponse, chunks: AsyncIterable<string>): Promise<void> {
  for await (const chunk of chunks) {
    if (res.destroyed) return;
    if (!res.write(chunk, "latin1")) await writable(res);
  }
  if (!res.destroyed) res.end();
}

/**
 * An input buffer of the compressor, reused once the compressor has taken
 * what was written from it (its write callback).
 */
interface InputBuffer {
  bytes: Buffer;
  taken: Promise<void>;
}

/** Compresses `chunks` into `res` and ends it; returns early (ending the chunks) if the client goes away. */
export async function sendGzip(
  res: ServerResponse,
  chunks: AsyncIterable<string>,
  options: ZlibOptions & { chunkBytes: number },
): Promise<void> {
  const gzip = createGzip(options);
  // A client that goes away destroys gzip too (and the writes below stop).
  const sent = pipeline(gzip, res);
  // Twice the chunk size: a chunk ends with the write that filled it, so it can be longer.
  const inputs: InputBuffer[] = [0, 1].map(() => ({
    bytes: Buffer.allocUnsafeSlow(2 * options.chunkBytes),
    taken: Promise.resolve(),
  }));
  // A destroyed compressor may never call back for what it was given.
  const closed = once(gzip, "close").then(() => undefined);
  let turn = 0;
  for await (const chunk of chunks) {
    if (gzip.destroyed) break;
    const input = inputs[turn++ % inputs.length] as InputBuffer;
    await Promise.race([input.taken, closed]);
    if (gzip.destroyed) break;
    // A chunk longer than the buffer (one very long line) gets a buffer of its own, once.
    const bytes = chunk.length <= input.bytes.length ? input.bytes : Buffer.allocUnsafeSlow(chunk.length);
    const length = bytes.write(chunk, 0, "latin1");
    input.taken = new Promise((resolve) => gzip.write(bytes.subarray(0, length), () => resolve()));
    if (gzip.writableNeedDrain) await writable(gzip);
  }
  if (!gzip.destroyed) gzip.end();
  await sent.catch(() => undefined);
}
