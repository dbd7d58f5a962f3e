// The shared socket and body helpers on real loopback servers: host:port
// parsing, listening, closing with a kept-alive connection open, bounded body
// reading and the JSON-or-text reading of answers.
import assert from "node:assert/strict";
import { Agent, createServer, get, type IncomingMessage } from "node:http";
import { createServer as createNetServer } from "node:net";
import { after, test } from "node:test";
import {
  BodyTooLargeError,
  jsonOrText,
  parseJsonOrText,
  readBody,
  readText,
} from "../../../src/net/http-body.ts";
import { closeServer, listenOn, parseHostPort } from "../../../src/net/listen.ts";

test("host:port forms, and errors naming the field and value", () => {
  assert.deepEqual(parseHostPort("127.0.0.1:8001", "f"), { host: "127.0.0.1", port: 8001 });
  assert.deepEqual(parseHostPort("[::1]:0", "f"), { host: "::1", port: 0 });
  assert.deepEqual(parseHostPort("localhost:9", "f"), { host: "localhost", port: 9 });
  assert.deepEqual(parseHostPort(":8443", "f"), { host: "", port: 8443 });
  assert.deepEqual(
    parseHostPort(" 127.0.0.1:8001\n", "f"),
    { host: "127.0.0.1", port: 8001 },
    "spaces around",
  );
  assert.deepEqual(parseHostPort("[::]:65535", "f"), { host: "::", port: 65535 }, "the highest port");
  for (const bad of [
    "127.0.0.1",
    "127.0.0.1:",
    "127.0.0.1:70000",
    "127.0.0.1:65536",
    "127.0.0.1:123456",
    "127.0.0.1:80abc",
    "::1:80",
    "host:port",
    "",
  ]) {
    assert.throws(
      () => parseHostPort(bad, "apiProxy.listen"),
      (error: unknown) =>
        error instanceof Error &&
        error.message.startsWith("apiProxy.listen:") &&
        error.message.includes(JSON.stringify(bad)),
      bad,
    );
  }
});

/** A server answering GET /<n> with n bytes of `body`. */
async function bodyServer(body: (size: number) => string) {
  const server = createServer((req, res) => {
    res.end(body(Number((req.url ?? "/0").slice(1))));
  });
  const bound = await listenOn(server, { host: "127.0.0.1", port: 0 });
  after(() => closeServer(server));
  return { server, base: `http://${bound.host}:${bound.port}` };
}

function fetchMessage(url: string, agent?: Agent): Promise<IncomingMessage> {
  return new Promise((resolve, reject) => get(url, agent ? { agent } : {}, resolve).on("error", reject));
}

test("readBody: the whole body up to the limit, BodyTooLargeError beyond it", async () => {
  const { base } = await bodyServer((size) => "x".repeat(size));
  assert.equal((await readBody(await fetchMessage(`${base}/1000`), 1000)).length, 1000);
  await assert.rejects(readBody(await fetchMessage(`${base}/100000`), 1000), (error: unknown) => {
    return error instanceof BodyTooLargeError && error.limitBytes === 1000;
  });
});

test("readText: the body as text, a character split across chunks intact, BodyTooLargeError beyond the limit", async () => {
  // "é" is two bytes in UTF-8: the server sends them in separate writes.
  const server = createServer((req, res) => {
    const size = Number((req.url ?? "/0").slice(1));
    res.write(Buffer.from([0xc3]));
    setTimeout(() => res.end(Buffer.concat([Buffer.from([0xa9]), Buffer.from("x".repeat(size))])), 5);
  });
  const bound = await listenOn(server, { host: "127.0.0.1", port: 0 });
  after(() => closeServer(server));
  const base = `http://${bound.host}:${bound.port}`;
  assert.equal(await readText(await fetchMessage(`${base}/3`), 100), "éxxx");
  await assert.rejects(readText(await fetchMessage(`${base}/100000`), 1000), (error: unknown) => {
    return error instanceof BodyTooLargeError && error.limitBytes === 1000;
  });
});

test("parseJsonOrText: JSON parsed, other text as it is, empty as undefined", () => {
  assert.deepEqual(parseJsonOrText('{"kind":"Status","code":409}'), { kind: "Status", code: 409 });
  assert.equal(parseJsonOrText("ok\n"), "ok\n");
  assert.equal(parseJsonOrText(""), undefined);
});

test("jsonOrText: JSON parsed, other text as it is, empty as undefined", () => {
  assert.deepEqual(jsonOrText(Buffer.from('{"kind":"Status","code":409}')), { kind: "Status", code: 409 });
  assert.equal(jsonOrText(Buffer.from("ok\n")), "ok\n");
  assert.equal(jsonOrText(Buffer.alloc(0)), undefined);
});

test("closeServer ends kept-alive connections instead of waiting for them", async () => {
  const { server, base } = await bodyServer(() => "hello");
  const agent = new Agent({ keepAlive: true });
  await readBody(await fetchMessage(`${base}/5`, agent), 100);
  assert.equal(await new Promise((resolve) => server.getConnections((_, n) => resolve(n))), 1);
  const started = performance.now();
  await closeServer(server);
  assert.ok(performance.now() - started < 1000, "closed at once, not after the keep-alive timeout");
  agent.destroy();
});

test("listenOn: an IPv6 address comes back in brackets, ready for a URL; an IPv4 one as it is", async () => {
  const six = createNetServer();
  assert.deepEqual((await listenOn(six, { host: "::1", port: 0 })).host, "[::1]");
  await closeServer(six);
  const four = createNetServer();
  assert.deepEqual((await listenOn(four, { host: "127.0.0.1", port: 0 })).host, "127.0.0.1");
  await closeServer(four);
});

test("listenOn: a port in use rejects with the socket's error; a server that listens keeps no error listener of ours", async () => {
  const first = createNetServer();
  const bound = await listenOn(first, { host: "127.0.0.1", port: 0 });
  assert.equal(first.listenerCount("error"), 0, "a later error is the caller's to handle");
  const second = createNetServer();
  await assert.rejects(listenOn(second, { host: "127.0.0.1", port: bound.port }), { code: "EADDRINUSE" });
  await closeServer(first);
});
