// A TCP relay for reliability tests: put it between a client and a server
// (an exporter and its apiserver) and make the path fail on demand.
//
//   pass       bytes flow both ways (the default)
//   blackhole  connections stay open and accepted, but no byte moves in either
//              direction: reading stops, so the kernel buffers fill and the
//              peers see a live, silent connection (a half-open TCP
//              connection, a stuck load balancer). New connections are
//              accepted and held without reaching the server.
//   drop       every connection is reset (RST), and new ones are reset on arrival
//   freeze     the connections open now go silent as in blackhole, while new ones
//              pass: one stuck connection (a dead load-balancer entry) among
//              working ones
//
// Changing back to pass resumes held connections where they stopped. Every
// failure mode is bounded in time (`forMs` reverts it, and the relay itself
// closes after `lifetimeMs`), and `startTcpRelay(t, …)` closes it in t.after,
// so nothing left behind can hang a test run.
import { connect, createServer, type Server, type Socket } from "node:net";
import type { TestContext } from "node:test";

export type RelayMode = "pass" | "blackhole" | "drop";

export interface RelayStats {
  /** Connections accepted so far. */
  accepted: number;
  /** Connections currently open. */
  open: number;
  /** Bytes forwarded client → server and server → client. */
  upstreamBytes: number;
  downstreamBytes: number;
  /** Connections reset by drop(). */
  dropped: number;
}

export interface TcpRelay {
  readonly host: string;
  readonly port: number;
  readonly mode: RelayMode;
  readonly stats: RelayStats;
  /** Forward bytes again; held connections resume. */
  pass(): void;
  /** Stop moving bytes without closing anything; back to pass after `forMs`. */
  blackhole(forMs: number): void;
  /** Reset every connection, and new ones, for `forMs` (then pass). */
  drop(forMs: number): void;
  /** Silence the connections open now (new ones pass); they resume after `forMs` or pass(). */
  freeze(forMs: number): void;
  close(): Promise<void>;
}

export interface TcpRelayOptions {
  /** The relay closes itself after this long whatever happens (default 10 minutes). */
  lifetimeMs?: number;
}

interface Pair {
  client: Socket;
  server: Socket | undefined;
  /** Silenced by freeze(): no byte moves until pass(). */
  frozen: boolean;
}

export async function startTcpRelay(
  t: Pick<TestContext, "after"> | undefined,
  target: { host: string; port: number },
  options: TcpRelayOptions = {},
): Promise<TcpRelay> {
  const pairs = new Set<Pair>();
  const stats: RelayStats = { accepted: 0, open: 0, upstreamBytes: 0, downstreamBytes: 0, dropped: 0 };
  let mode: RelayMode = "pass";
  let revert: NodeJS.Timeout | undefined;

  const end = (pair: Pair): void => {
    if (!pairs.delete(pair)) return;
    stats.open--;
    pair.client.destroy();
    pair.server?.destroy();
  };

  const reset = (pair: Pair): void => {
    pair.client.resetAndDestroy();
    pair.server?.resetAndDestroy();
    stats.dropped++;
    end(pair);
  };

  const wire = (pair: Pair): void => {
    const server = connect({ host: target.host, port: target.port });
    pair.server = server;
    pair.client.on("data", (chunk: Buffer) => {
      stats.upstreamBytes += chunk.length;
      if (!server.write(chunk)) pair.client.pause();
    });
    server.on("drain", () => mode === "pass" && !pair.frozen && pair.client.resume());
    server.on("data", (chunk: Buffer) => {
      stats.downstreamBytes += chunk.length;
      if (!pair.client.write(chunk)) server.pause();
    });
    pair.client.on("drain", () => mode === "pass" && !pair.frozen && server.resume());
    server.on("error", () => end(pair));
    server.on("close", () => end(pair));
    if (mode === "pass") pair.client.resume();
    else server.pause();
  };

  const relay: Server = createServer((client) => {
    stats.accepted++;
    const pair: Pair = { client, server: undefined, frozen: false };
    client.on("error", () => end(pair));
    client.on("close", () => end(pair));
    if (mode === "drop") {
      stats.dropped++;
      client.resetAndDestroy();
      return;
    }
    pairs.add(pair);
    stats.open++;
    if (mode === "blackhole") {
      // Accepted, and silent: not even connected to the server until pass().
      client.pause();
      return;
    }
    wire(pair);
  });

  const setMode = (next: RelayMode, forMs?: number): void => {
    clearTimeout(revert);
    revert = undefined;
    mode = next;
    if (next !== "blackhole") for (const pair of pairs) pair.frozen = false;
    if (next !== "pass" && forMs !== undefined) {
      revert = setTimeout(() => setMode("pass"), forMs);
      revert.unref();
    }
    for (const pair of [...pairs]) {
      if (next === "drop") reset(pair);
      else if (next === "blackhole") {
        pair.client.pause();
        pair.server?.pause();
      } else if (!pair.server) wire(pair);
      else {
        pair.client.resume();
        pair.server.resume();
      }
    }
  };

  await new Promise<void>((resolve, reject) => {
    relay.once("error", reject);
    relay.listen(0, "127.0.0.1", () => resolve());
  });
  const port = (relay.address() as { port: number }).port;
  let closing: Promise<void> | undefined;
  const close = (): Promise<void> => {
    closing ??= new Promise<void>((resolve) => {
      clearTimeout(revert);
      clearTimeout(lifetime);
      for (const pair of [...pairs]) end(pair);
      relay.close(() => resolve());
    });
    return closing;
  };
  const lifetime = setTimeout(() => void close(), options.lifetimeMs ?? 10 * 60_000);
  lifetime.unref();
  t?.after(close);

  return {
    host: "127.0.0.1",
    port,
    get mode() {
      return mode;
    },
    stats,
    pass: () => setMode("pass"),
    blackhole: (forMs) => setMode("blackhole", forMs),
    drop: (forMs) => setMode("drop", forMs),
    freeze: (forMs) => {
      setMode("pass");
      for (const pair of pairs) {
        pair.frozen = true;
        pair.client.pause();
        pair.server?.pause();
      }
      revert = setTimeout(() => setMode("pass"), forMs);
      revert.unref();
    },
    close,
  };
}
