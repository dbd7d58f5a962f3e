// The test TCP relay itself: it passes bytes both ways, holds connections
// silent without closing them (and resumes them intact), resets them, reverts
// every failure mode on its own, and closes in t.after.
import assert from "node:assert/strict";
import { connect, createServer, type Server, type Socket } from "node:net";
import { after, before, test } from "node:test";
import { startTcpRelay } from "../support/tcp-relay.ts";

let echo: Server;
let echoPort = 0;

before(async () => {
  echo = createServer((socket) => {
    socket.on("error", () => {}); // the relay resets it in the drop test
    socket.pipe(socket);
  });
  await new Promise<void>((resolve) => echo.listen(0, "127.0.0.1", resolve));
  echoPort = (echo.address() as { port: number }).port;
});

after(() => new Promise<void>((resolve) => echo.close(() => resolve())));

interface Client {
  socket: Socket;
  received: () => string;
  closed: Promise<string>;
}

async function dial(port: number): Promise<Client> {
  const socket = connect({ host: "127.0.0.1", port });
  let text = "";
  socket.on("data", (chunk: Buffer) => {
    text += chunk.toString();
  });
  const closed = new Promise<string>((resolve) => {
    socket.on("error", (error: NodeJS.ErrnoException) => resolve(error.code ?? String(error)));
    socket.on("close", () => resolve("closed"));
  });
  await new Promise<void>((resolve, reject) => {
    socket.once("connect", resolve);
    socket.once("error", reject);
  });
  return { socket, received: () => text, closed };
}

async function until(what: string, condition: () => boolean, timeoutMs = 5_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

function within<T>(promise: Promise<T>, what: string, timeoutMs = 5_000): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(
      () => reject(new Error(`timed out after ${timeoutMs} ms waiting for ${what}`)),
      timeoutMs,
    );
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

/** Nothing arrives for `ms`: the one place a window of silence is the thing measured. */
async function silentFor(client: Client, ms: number): Promise<void> {
  const before = client.received();
  await new Promise((resolve) => setTimeout(resolve, ms));
  assert.equal(client.received(), before, "bytes moved through a blackholed relay");
}

test("pass: bytes go both ways", async (t) => {
  const relay = await startTcpRelay(t, { host: "127.0.0.1", port: echoPort });
  const client = await dial(relay.port);
  client.socket.write("hello");
  await until("the echo", () => client.received() === "hello");
  assert.deepEqual([relay.stats.upstreamBytes, relay.stats.downstreamBytes], [5, 5]);
  client.socket.destroy();
});

test("blackhole: the connection stays open and silent, then resumes intact", async (t) => {
  const relay = await startTcpRelay(t, { host: "127.0.0.1", port: echoPort });
  const client = await dial(relay.port);
  client.socket.write("a");
  await until("the first echo", () => client.received() === "a");
  relay.blackhole(60_000);
  client.socket.write("b");
  await silentFor(client, 300);
  assert.equal(relay.stats.open, 1, "nothing was closed");
  assert.equal(client.socket.destroyed, false);
  // A new connection is accepted, and as silent.
  const late = await dial(relay.port);
  late.socket.write("c");
  await silentFor(late, 100);
  relay.pass();
  await until("the held bytes", () => client.received() === "ab" && late.received() === "c");
  client.socket.destroy();
  late.socket.destroy();
});

test("blackhole reverts to pass on its own", async (t) => {
  const relay = await startTcpRelay(t, { host: "127.0.0.1", port: echoPort });
  const client = await dial(relay.port);
  relay.blackhole(200);
  client.socket.write("x");
  await until("the revert", () => client.received() === "x");
  assert.equal(relay.mode, "pass");
  client.socket.destroy();
});

test("freeze: the open connection goes silent while a new one passes; both flow after it reverts", async (t) => {
  const relay = await startTcpRelay(t, { host: "127.0.0.1", port: echoPort });
  const stuck = await dial(relay.port);
  stuck.socket.write("a");
  await until("the first echo", () => stuck.received() === "a");
  relay.freeze(60_000);
  stuck.socket.write("b");
  const fresh = await dial(relay.port);
  fresh.socket.write("c");
  await until("the new connection's echo", () => fresh.received() === "c");
  await silentFor(stuck, 200);
  assert.equal(relay.mode, "pass");
  relay.pass();
  await until("the frozen bytes", () => stuck.received() === "ab");
  stuck.socket.destroy();
  fresh.socket.destroy();
});

test("drop: connections are reset, new ones too, until it reverts", async (t) => {
  const relay = await startTcpRelay(t, { host: "127.0.0.1", port: echoPort });
  const client = await dial(relay.port);
  client.socket.write("a");
  await until("the echo", () => client.received() === "a");
  relay.drop(500);
  assert.equal(await within(client.closed, "the reset"), "ECONNRESET");
  const refused = connect({ host: "127.0.0.1", port: relay.port });
  const outcome = await within(
    new Promise<string>((resolve) => {
      refused.on("error", (error: NodeJS.ErrnoException) => resolve(error.code ?? "error"));
      refused.on("close", () => resolve("closed"));
    }),
    "the reset of a new connection",
  );
  assert.ok(outcome === "ECONNRESET" || outcome === "closed", outcome);
  await until("the revert", () => relay.mode === "pass");
  const again = await dial(relay.port);
  again.socket.write("b");
  await until("the echo after drop", () => again.received() === "b");
  assert.ok(relay.stats.dropped >= 2);
  again.socket.destroy();
});

test("close ends every connection; t.after closes a forgotten relay", async (t) => {
  let relayPort = 0;
  await t.test("a subtest that leaves its relay blackholed", async (sub) => {
    const relay = await startTcpRelay(sub, { host: "127.0.0.1", port: echoPort });
    relayPort = relay.port;
    const client = await dial(relay.port);
    relay.blackhole(60_000);
    sub.after(async () => {
      assert.equal(await within(client.closed, "the close"), "closed");
    });
  });
  const outcome = await new Promise<string>((resolve) => {
    const socket = connect({ host: "127.0.0.1", port: relayPort });
    socket.on("error", (error: NodeJS.ErrnoException) => resolve(error.code ?? "error"));
    socket.on("connect", () => {
      socket.destroy();
      resolve("connected");
    });
  });
  assert.equal(outcome, "ECONNREFUSED", "the relay no longer listens");
});
