// An audit body is parsed only while a turn's budget lasts: a body whose bytes
// are all there at once (as a fast sender's are, libuv reading up to 32 × 64 KiB
// per socket and turn) is paused past the budget, so other callbacks run
// between its slices, and it is still read whole.
import assert from "node:assert/strict";
import type { IncomingMessage } from "node:http";
import { Readable } from "node:stream";
import { test } from "node:test";
import { InFlightBytes, readAuditBatch } from "../../../src/statuswrites/audit/audit-body.ts";
import { bigAuditBatch } from "../../support/audit-batch.ts";

test("a 16 MB body available at once is read in slices, other callbacks running between them, and whole", async () => {
  const { body, events } = bigAuditBatch(16 * 1024 * 1024, "shop");
  const chunks: Buffer[] = [];
  for (let i = 0; i < body.length; i += 64 * 1024) chunks.push(body.subarray(i, i + 64 * 1024));
  const req = Object.assign(Readable.from(chunks, { objectMode: false, highWaterMark: body.length }), {
    headers: { "content-length": String(body.length) },
  }) as unknown as IncomingMessage;
  let readChunks = 0;
  req.on("data", () => readChunks++);
  // Timers fire between slices only if the reading yields: count the chunks read between two of them.
  const readBetweenTicks: number[] = [];
  let last = 0;
  const ticker = setInterval(() => {
    readBetweenTicks.push(readChunks - last);
    last = readChunks;
  }, 0);
  const started = performance.now();
  let result: Awaited<ReturnType<typeof readAuditBatch>>;
  try {
    result = await readAuditBatch(req, {
      maxBodyBytes: 32 * 1024 * 1024,
      inFlight: new InFlightBytes(64 * 1024 * 1024),
    });
  } finally {
    clearInterval(ticker);
  }
  const tookMs = performance.now() - started;
  assert.ok(result.ok, JSON.stringify(result));
  assert.equal(result.batch.events, events);
  assert.equal(result.batch.writes, events);
  assert.equal(readChunks, chunks.length);
  // About 2 ms of parsing per 64 KiB chunk, 5 ms of budget a turn: a few chunks between ticks, never the body.
  const most = Math.max(...readBetweenTicks);
  assert.ok(readBetweenTicks.length >= 10, `${readBetweenTicks.length} ticks in ${tookMs.toFixed(0)} ms`);
  assert.ok(most <= chunks.length / 4, `up to ${most} of ${chunks.length} chunks read between two ticks`);
});
