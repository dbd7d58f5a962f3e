// readInto's promise to the sinks of readBody and readText: a body settles
// once. A body that fails lets go of what it kept (drop, once) and is never
// made into a result; a body that ended is not dropped by an error after it.
// The message is a bare event emitter, so the order of events is the test's.
import assert from "node:assert/strict";
import { EventEmitter } from "node:events";
import type { IncomingMessage } from "node:http";
import { test } from "node:test";
import { type BodySink, BodyTooLargeError, readBody, readInto } from "../../../src/net/http-body.ts";

/** A sink that records each call made to it. */
function recordingSink() {
  const calls: string[] = [];
  const sink: BodySink<string> = {
    add: (chunk) => {
      calls.push(`add ${chunk.toString()}`);
    },
    finish: () => {
      calls.push("finish");
      return "result";
    },
    drop: () => {
      calls.push("drop");
    },
  };
  return { sink, calls };
}

function fakeMessage(): EventEmitter & IncomingMessage {
  return new EventEmitter() as EventEmitter & IncomingMessage;
}

test("a body past the limit is dropped once and never finished, whatever follows (the rest, its end, an abort)", async () => {
  const message = fakeMessage();
  const { sink, calls } = recordingSink();
  const body = readInto(message, 4, sink);
  message.emit("data", Buffer.from("abc"));
  message.emit("data", Buffer.from("de"));
  await assert.rejects(body, BodyTooLargeError);
  message.emit("data", Buffer.from("f"));
  message.emit("aborted");
  message.emit("end");
  assert.deepEqual(calls, ["add abc", "drop"]);
});

test("a body that ended is the result; an error or abort after it drops nothing", async () => {
  const message = fakeMessage();
  const { sink, calls } = recordingSink();
  const body = readInto(message, 100, sink);
  message.emit("data", Buffer.from("abc"));
  message.emit("end");
  assert.equal(await body, "result");
  message.emit("error", new Error("late"));
  message.emit("aborted");
  assert.deepEqual(calls, ["add abc", "finish"]);
});

test("an error on the message rejects the body with that error and drops what was kept", async () => {
  const message = fakeMessage();
  const { sink, calls } = recordingSink();
  const body = readInto(message, 100, sink);
  message.emit("data", Buffer.from("abc"));
  const failure = new Error("ECONNRESET");
  message.emit("error", failure);
  await assert.rejects(body, (error) => error === failure);
  assert.deepEqual(calls, ["add abc", "drop"]);

  const plain = fakeMessage();
  const read = readBody(plain, 100);
  plain.emit("error", failure);
  await assert.rejects(read, (error) => error === failure, "readBody too");
});

test("a message cut off (aborted) rejects the body", async () => {
  const message = fakeMessage();
  const { sink, calls } = recordingSink();
  const body = readInto(message, 100, sink);
  message.emit("aborted");
  await assert.rejects(body, /the body was cut off/);
  assert.deepEqual(calls, ["drop"]);
});
