// Reading one audit batch body (audit-body.ts) from a stand-in request: what
// Content-Length alone refuses, what the body's bytes refuse as they come,
// the shared allowance taken and given back, and a caller that goes away.
import assert from "node:assert/strict";
import type { IncomingMessage } from "node:http";
import { PassThrough } from "node:stream";
import { test } from "node:test";
import {
  type BatchResult,
  InFlightBytes,
  readAuditBatch,
} from "../../../src/statuswrites/audit/audit-body.ts";

function request(headers: Record<string, string> = {}): PassThrough & IncomingMessage {
  return Object.assign(new PassThrough(), { headers }) as unknown as PassThrough & IncomingMessage;
}

/**
 * Writes `chunk` and waits until it has been read: a body is paused between
 * turns of the event loop once a turn's budget is spent (net/turns.ts).
 */
async function fed(req: PassThrough, chunk: string): Promise<void> {
  req.write(chunk);
  while (req.readableLength > 0 || req.isPaused()) await new Promise((resolve) => setImmediate(resolve));
}

const envelope = '{"kind":"EventList","apiVersion":"audit.k8s.io/v1","items":[';
const okBody = `${envelope}]}`;

async function read(
  body: string | string[],
  options: { headers?: Record<string, string>; maxBodyBytes?: number; inFlight?: InFlightBytes } = {},
): Promise<BatchResult> {
  const req = request(options.headers);
  const result = readAuditBatch(req, {
    maxBodyBytes: options.maxBodyBytes ?? 1024,
    inFlight: options.inFlight ?? new InFlightBytes(1024),
  });
  for (const part of Array.isArray(body) ? body : [body]) req.write(part);
  req.end();
  return result;
}

test("InFlightBytes: a take that fills the allowance exactly is granted, one byte more is not; giving back floors at 0", () => {
  const bytes = new InFlightBytes(10);
  assert.equal(bytes.tryTake(4), true);
  assert.equal(bytes.tryTake(6), true);
  assert.equal(bytes.held, 10);
  assert.equal(bytes.tryTake(1), false);
  assert.equal(bytes.held, 10, "a refused take holds nothing");
  bytes.give(3);
  assert.equal(bytes.held, 7);
  bytes.give(100);
  assert.equal(bytes.held, 0);
  assert.equal(bytes.max, 10);
});

for (const header of ["abc", "-1", "1.5", "1e400"]) {
  test(`Content-Length ${header} is refused with 400 before any byte is read`, async () => {
    const result = await readAuditBatch(request({ "content-length": header }), {
      maxBodyBytes: 1024,
      inFlight: new InFlightBytes(1024),
    });
    assert.deepEqual(result, {
      ok: false,
      code: 400,
      message: "invalid Content-Length",
      log: "invalid Content-Length",
    });
  });
}

test("a Content-Length of exactly the limit is read; one byte more is refused with 413 at once", async () => {
  const body = okBody.padEnd(100, " ");
  const exact = await read(body, { headers: { "content-length": "100" }, maxBodyBytes: 100 });
  assert.equal(exact.ok, true, JSON.stringify(exact));
  const over = await readAuditBatch(request({ "content-length": "101" }), {
    maxBodyBytes: 100,
    inFlight: new InFlightBytes(1024),
  });
  assert.deepEqual(over, {
    ok: false,
    code: 413,
    message: "batch larger than 100 bytes",
    log: "rejected audit batch: too large",
  });
});

test("without a Content-Length, a body is refused with 413 at the byte past the limit, and drained", async () => {
  const exact = await read([okBody, " ".repeat(100 - okBody.length)], { maxBodyBytes: 100 });
  assert.equal(exact.ok, true, JSON.stringify(exact));
  const req = request();
  const result = readAuditBatch(req, { maxBodyBytes: 100, inFlight: new InFlightBytes(1024) });
  req.write(okBody);
  req.write(" ".repeat(101 - okBody.length));
  assert.deepEqual(await result, {
    ok: false,
    code: 413,
    message: "batch larger than 100 bytes",
    log: "rejected audit batch: too large",
  });
  assert.equal(req.readableFlowing, true, "the rest of a refused body is read and dropped");
});

test("a body that is not JSON, or ends early, is 400 with the parser's reason in the log", async () => {
  const garbage = await read("<html>");
  assert.equal(garbage.ok, false);
  assert.equal(garbage.code, 400);
  assert.ok(!garbage.ok && garbage.code === 400);
  assert.equal(garbage.message, "body is not JSON");
  assert.match(garbage.log, /^rejected audit batch: not JSON: expected '\{' \(near byte 0\)$/);
  const early = await read(envelope);
  assert.ok(!early.ok && early.code === 400);
  assert.equal(early.message, "body is not JSON");
  assert.match(early.log, /^rejected audit batch: not JSON: the body ended before the object did/);
});

test("a body that is JSON but not an EventList is 400 naming what is wrong", async () => {
  const result = await read('{"kind":"Event","apiVersion":"audit.k8s.io/v1","items":[]}');
  assert.deepEqual(result, {
    ok: false,
    code: 400,
    message: 'audit payload: kind must be EventList, got "Event"',
    log: 'rejected audit batch: audit payload: kind must be EventList, got "Event"',
  });
});

test("an event larger than the whole allowance is 413, not 429: retrying would not help", async () => {
  const inFlight = new InFlightBytes(50);
  const result = await read(`${envelope}{"pad":"${"x".repeat(100)}"}]}`, { inFlight });
  assert.deepEqual(result, {
    ok: false,
    code: 413,
    message: "an audit event larger than 50 bytes",
    log: "rejected audit batch: event too large",
  });
  assert.equal(inFlight.held, 0, "its bytes given back");
});

test("an event that would overdraw what other requests hold is 429, and takes nothing", async () => {
  const inFlight = new InFlightBytes(100);
  assert.equal(inFlight.tryTake(90), true);
  const refused = await read([envelope, `{"pad":"${"x".repeat(20)}`, '"}]}'], { inFlight });
  assert.deepEqual(refused, {
    ok: false,
    code: 429,
    message: "100 bytes of audit events are already being read; retry shortly",
    log: "refused audit batch: too many bytes in flight",
  });
  assert.equal(inFlight.held, 90, "only what the others hold");
});

test("the allowance follows the event being read: taken as it grows, given back when it is done", async () => {
  const inFlight = new InFlightBytes(1000);
  const req = request();
  const result = readAuditBatch(req, { maxBodyBytes: 10_000, inFlight });
  await fed(req, envelope);
  assert.equal(inFlight.held, 0);
  await fed(req, '{"pad":"xxxxxxxxxx');
  const partial = inFlight.held;
  assert.ok(partial >= 18, `${partial} bytes held for the event being read`);
  await fed(req, 'xxxxxxxxxx"');
  assert.ok(inFlight.held > partial, "more as it grows");
  await fed(req, "},");
  assert.equal(inFlight.held, 0, "none once it is done");
  await fed(req, '{"a":1}');
  req.end("]}");
  const done = await result;
  assert.ok(done.ok, JSON.stringify(done));
  assert.equal(done.batch.events, 2);
  assert.equal(inFlight.held, 0);
});

test("a caller that goes away mid-body settles with code 0 and gives its bytes back", async () => {
  for (const how of ["close", "error"] as const) {
    const inFlight = new InFlightBytes(1000);
    const req = request();
    const result = readAuditBatch(req, { maxBodyBytes: 10_000, inFlight });
    req.write(`${envelope}{"pad":"xxxxxxxx`);
    assert.ok(inFlight.held > 0);
    if (how === "close") req.emit("close");
    else req.emit("error", new Error("ECONNRESET"));
    assert.deepEqual(await result, { ok: false, code: 0 }, how);
    assert.equal(inFlight.held, 0, how);
  }
});

test("a settled read ignores what comes after: the first of end, refusal, close or error wins", async () => {
  const inFlight = new InFlightBytes(1000);
  const req = request();
  const result = readAuditBatch(req, { maxBodyBytes: 10_000, inFlight });
  req.end(okBody);
  const done = await result;
  assert.equal(done.ok, true);
  req.emit("close");
  req.emit("data", Buffer.from("more"));
  assert.equal(inFlight.held, 0);
  assert.equal(req.listenerCount("data"), 0, "no longer listening to the body");
});
