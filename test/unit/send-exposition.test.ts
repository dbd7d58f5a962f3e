// Sending /metrics' chunks over a real socket: the bytes arrive as written,
// plain and compressed (the compressor's two reused input buffers never
// overwrite what it has not taken yet), the writer is pulled only as fast as
// the client reads, and a client that goes away ends the chunks and the
// sending, plain and compressed.
import assert from "node:assert/strict";
import { once } from "node:events";
import { createServer, get, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { test } from "node:test";
import { gunzipSync } from "node:zlib";
import { sendGzip, sendPlain } from "../../src/server/send-exposition.ts";

const chunkBytes = 1024;

/** Distinct chunks, a few longer than the input buffers, some with bytes over 0x7f. */
function chunkTexts(count: number): string[] {
  return Array.from({ length: count }, (_, i) => {
    const size = i % 17 === 5 ? 5 * chunkBytes : chunkBytes + (i % 7);
    return `${i}:${String.fromCharCode(0xc3, 0xbc)}`.padEnd(size, String.fromCharCode(97 + (i % 26)));
  });
}

interface Tracked {
  pulled: number;
  ended: boolean;
  chunks: AsyncIterable<string>;
}

function tracked(texts: readonly string[]): Tracked {
  const state: Tracked = { pulled: 0, ended: false, chunks: undefined as unknown as AsyncIterable<string> };
  state.chunks = (async function* () {
    try {
      for (const text of texts) {
        state.pulled++;
        yield text;
      }
    } finally {
      state.ended = true;
    }
  })();
  return state;
}

async function serve(
  send: (res: ServerResponse) => Promise<void>,
): Promise<{ url: string; sent: Promise<void>; close: () => void }> {
  let resolveSent: (p: Promise<void>) => void = () => {};
  const sent = new Promise<Promise<void>>((resolve) => {
    resolveSent = resolve;
  });
  const server = createServer((_req, res) => resolveSent(send(res)));
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/`,
    sent: sent.then((p) => p),
    close: () => server.close(),
  };
}

const request = (url: string): Promise<IncomingMessage> =>
  new Promise((resolve, reject) => get(url, resolve).once("error", reject));

async function body(res: IncomingMessage): Promise<Buffer> {
  const parts: Buffer[] = [];
  for await (const part of res) parts.push(part as Buffer);
  return Buffer.concat(parts);
}

test("plain: the bytes of every chunk arrive in order, and the response ends", async () => {
  const texts = chunkTexts(300);
  const chunks = tracked(texts);
  const server = await serve((res) => sendPlain(res, chunks.chunks));
  try {
    const received = await body(await request(server.url));
    await server.sent;
    assert.ok(received.equals(Buffer.from(texts.join(""), "latin1")));
    assert.equal(chunks.ended, true);
  } finally {
    server.close();
  }
});

test("gzip: the text compresses and decompresses to every chunk in order, long chunks included", async () => {
  const texts = chunkTexts(300);
  const chunks = tracked(texts);
  const server = await serve((res) => sendGzip(res, chunks.chunks, { level: 1, chunkBytes }));
  try {
    const received = gunzipSync(await body(await request(server.url)));
    await server.sent;
    assert.ok(received.equals(Buffer.from(texts.join(""), "latin1")));
  } finally {
    server.close();
  }
});

for (const mode of ["plain", "gzip"] as const) {
  test(`${mode}: chunks are pulled only as the client reads, and a client that goes away ends them`, async () => {
    // 64 MiB in all: far more than the socket buffers hold.
    const texts = Array.from({ length: 1024 }, (_, i) => String(i).padEnd(64 * 1024, "x"));
    const chunks = tracked(texts);
    const server = await serve((res) =>
      mode === "plain"
        ? sendPlain(res, chunks.chunks)
        : sendGzip(res, chunks.chunks, { level: 0, chunkBytes: 64 * 1024 }),
    );
    try {
      const res = await request(server.url);
      res.pause();
      // Give the sender every chance to run ahead while nothing is read.
      for (let i = 0; i < 20; i++) await new Promise((r) => setImmediate(r));
      await new Promise((r) => setTimeout(r, 200));
      assert.ok(chunks.pulled < 200, `${chunks.pulled} of 1024 chunks pulled with nothing read`);
      res.destroy();
      await server.sent;
      assert.equal(chunks.ended, true, "the chunks were ended");
      assert.ok(chunks.pulled < 1024, `${chunks.pulled} chunks pulled for a client that left`);
    } finally {
      server.close();
    }
  });
}
