// Watch streams over HTTP/2 with the connection's own liveness check, the
// way client-go guards its watches (its HTTP/2 transport's read-idle PING).
// A connection through a dead load-balancer entry or a half-open path looks
// alive to TCP (the kernel may still ACK) and a silent watch looks like an
// idle one; only the application can tell. So every session sends a PING
// once it has received nothing for pingAfterQuietMs, and is destroyed when
// the PING goes unanswered for pingAnswerMs: its streams fail, and their
// list/watch loops reopen them on a new session. An idle apiserver sees one
// PING frame per session every pingAfterQuietMs and no extra request.
//
// Sessions are shared by every watch to one server with one TLS identity
// (the key holds the CA, client certificate and key, server name and
// verification, so a rotated client certificate opens a new session), up to
// a stream limit per session. Only watches come here: lists, gets and
// patches stay on HTTP/1.1 (client.ts), where a list of many megabytes does
// not share a connection's flow-control window with every watch.
//
// A server whose TLS handshake does not choose h2 (ALPN), or that resets a
// watch's stream with HTTP_1_1_REQUIRED, speaks HTTP/1.1 only: the origin is
// remembered and its watches go the HTTP/1.1 way.
import { createHash } from "node:crypto";
import http2 from "node:http2";
import { isIP } from "node:net";
import type { Readable } from "node:stream";
import tls from "node:tls";
import type { Logger } from "../log.ts";

/**
 * Nothing received on a session for this long: it sends a PING. client-go's
 * default is 30 s; 15 s here puts quiet + answer within the 30 s in which a
 * dead watch connection must be found (list-watch.ts).
 */
export const pingAfterQuietMs = 15_000;
/**
 * A PING unanswered for this long: the connection is dead. A live server
 * answers a PING from its connection's read loop, without queueing behind
 * requests, so 10 s is ample on a loaded apiserver (client-go waits 15 s).
 */
export const pingAnswerMs = 10_000;
/** TCP, TLS and ALPN: a blackholed path would hold a handshake forever. */
export const connectTimeoutMs = 10_000;
/**
 * Streams per session at most, below the server's own limit if it says a
 * smaller one (SETTINGS_MAX_CONCURRENT_STREAMS). 100 is the least RFC 9113
 * asks servers to allow, so it never waits for a slot on one that follows
 * it (kube-apiserver allows 1000, Go's default is 250); and it bounds what
 * one dead connection takes down at once.
 */
export const maxStreamsPerSession = 100;
/** A session without streams is closed after this long (a watch reopens within milliseconds of its end). */
export const idleSessionMs = 60_000;
/** Streams that heard nothing themselves are told their connection is alive at most this often. */
export const aliveNoticeMs = 5_000;

export interface H2Tuning {
  pingAfterQuietMs: number;
  pingAnswerMs: number;
  connectTimeoutMs: number;
  maxStreamsPerSession: number;
  idleSessionMs: number;
  aliveNoticeMs: number;
}

export const defaultH2Tuning: H2Tuning = {
  pingAfterQuietMs,
  pingAnswerMs,
  connectTimeoutMs,
  maxStreamsPerSession,
  idleSessionMs,
  aliveNoticeMs,
};

/** The longest a dead connection goes unnoticed: quiet until the PING, then the wait for its answer. */
export function livenessCheckMs(tuning: Pick<H2Tuning, "pingAfterQuietMs" | "pingAnswerMs">): number {
  return tuning.pingAfterQuietMs + tuning.pingAnswerMs;
}

/** The TLS material of a request, as KubeConfig.applyToHTTPSOptions sets it. */
export interface TlsMaterial {
  ca?: string | Buffer | (string | Buffer)[] | undefined;
  cert?: string | Buffer | (string | Buffer)[] | undefined;
  key?: unknown;
  pfx?: unknown;
  passphrase?: string | undefined;
  servername?: string | undefined;
  rejectUnauthorized?: boolean | undefined;
}

/** A stream's answer: status, then the body to read (a watch's lines). */
export interface H2Response {
  status: number;
  body: Readable;
  /** Called whenever the stream's connection is heard from, though not by this stream. */
  onAlive(listener: () => void): void;
}

/** A session destroyed because its PING went unanswered. */
export class PingTimeoutError extends Error {
  readonly silentMs: number;
  constructor(origin: string, answerMs: number, silentMs: number) {
    super(
      `no answer to a PING from ${origin} within ${answerMs} ms (nothing received for ${silentMs} ms); reconnecting`,
    );
    this.silentMs = silentMs;
  }
}

/** Which sessions may carry the same streams: same origin and TLS identity. */
export function sessionKey(origin: string, material: TlsMaterial): string {
  const hash = createHash("sha256");
  const part = (value: unknown): void => {
    const items = Array.isArray(value) ? value : [value];
    for (const item of items)
      hash.update(
        Buffer.isBuffer(item) ? item : typeof item === "string" ? item : JSON.stringify(item ?? null),
      );
    hash.update("\0");
  };
  for (const value of [
    material.ca,
    material.cert,
    material.key,
    material.pfx,
    material.passphrase,
    material.servername,
    material.rejectUnauthorized,
  ])
    part(value);
  return `${origin} ${hash.digest("hex")}`;
}

function tlsOptions(url: URL, material: TlsMaterial): tls.ConnectionOptions {
  const host = url.hostname.replace(/^\[|\]$/g, "");
  const options: tls.ConnectionOptions = {
    host,
    port: Number(url.port || 443),
    // No SNI for an address (RFC 6066); the certificate is still checked against it.
    servername: material.servername || (isIP(host) ? "" : host),
    ALPNProtocols: ["h2", "http/1.1"],
    ca: material.ca,
    cert: material.cert,
    key: material.key as tls.ConnectionOptions["key"],
    pfx: material.pfx as tls.ConnectionOptions["pfx"],
    passphrase: material.passphrase,
  };
  if (material.rejectUnauthorized !== undefined) options.rejectUnauthorized = material.rejectUnauthorized;
  return options;
}

/** The TLS connection, or "http/1.1" when the server did not choose h2. */
function connectTls(url: URL, material: TlsMaterial, timeoutMs: number): Promise<tls.TLSSocket | "http/1.1"> {
  return new Promise((resolve, reject) => {
    const socket = tls.connect(tlsOptions(url, material));
    const timer = setTimeout(
      () => socket.destroy(new Error(`connecting to ${url.origin} timed out after ${timeoutMs} ms`)),
      timeoutMs,
    );
    socket.once("error", (error) => {
      clearTimeout(timer);
      reject(error);
    });
    socket.once("secureConnect", () => {
      clearTimeout(timer);
      if (socket.alpnProtocol === "h2") return resolve(socket);
      socket.destroy();
      resolve("http/1.1");
    });
  });
}

interface OpenStream {
  stream: http2.ClientHttp2Stream;
  alive: Set<() => void>;
}

/** One HTTP/2 connection and its streams, with the PING that proves it alive. */
class WatchSession {
  readonly key: string;
  readonly #origin: string;
  readonly #tuning: H2Tuning;
  readonly #pool: H2WatchPool;
  readonly #ready: Promise<http2.ClientHttp2Session | "http/1.1">;
  #session: http2.ClientHttp2Session | undefined;
  readonly #streams = new Set<OpenStream>();
  /** Streams reserved while the connection is made, or open. */
  #reserved = 0;
  #closed = false;
  #lastHeardMs = performance.now();
  #lastAliveNoticeMs = 0;
  #pingTimer: NodeJS.Timeout | undefined;
  #idleTimer: NodeJS.Timeout | undefined;

  constructor(pool: H2WatchPool, key: string, url: URL, material: TlsMaterial, tuning: H2Tuning) {
    this.#pool = pool;
    this.key = key;
    this.#origin = url.origin;
    this.#tuning = tuning;
    this.#ready = this.#connect(url, material);
    // A failed connection is reported to each stream waiting for it (open()).
    this.#ready.catch(() => {});
  }

  async #connect(url: URL, material: TlsMaterial): Promise<http2.ClientHttp2Session | "http/1.1"> {
    try {
      const socket = await connectTls(url, material, this.#tuning.connectTimeoutMs);
      if (socket === "http/1.1") {
        this.#close();
        return socket;
      }
      return this.#start(url, socket);
    } catch (error) {
      this.#close();
      throw error;
    }
  }

  #start(url: URL, socket: tls.TLSSocket): http2.ClientHttp2Session {
    const session = http2.connect(url.origin, {
      createConnection: () => socket,
      // A watch event of a large object should not wait on 64 KiB windows.
      settings: { initialWindowSize: 1024 * 1024, enablePush: false },
    });
    this.#session = session;
    // The handshake was just heard: the first PING is due after a quiet stretch from here.
    this.#lastHeardMs = performance.now();
    session.setLocalWindowSize(16 * 1024 * 1024);
    // Errors reach the streams (and the loops that own them); the session only goes.
    session.on("error", () => {});
    session.on("remoteSettings", () => this.#heard());
    session.once("goaway", () => this.#pool.forget(this));
    session.once("close", () => this.#close());
    this.#schedulePing(this.#tuning.pingAfterQuietMs);
    this.#idleUnlessUsed();
    return session;
  }

  /** Room for one more stream: below the cap and below what the server allows. */
  hasRoom(): boolean {
    const serverMax = this.#session?.remoteSettings.maxConcurrentStreams ?? Number.POSITIVE_INFINITY;
    return !this.#closed && this.#reserved < Math.min(this.#tuning.maxStreamsPerSession, serverMax);
  }

  reserve(): void {
    this.#reserved++;
    clearTimeout(this.#idleTimer);
    this.#session?.ref();
  }

  #release(): void {
    this.#reserved--;
    this.#idleUnlessUsed();
  }

  /** No stream: the process may exit without it, and it closes unless one comes. */
  #idleUnlessUsed(): void {
    if (this.#reserved > 0 || !this.#session) return;
    this.#session.unref();
    clearTimeout(this.#idleTimer);
    this.#idleTimer = setTimeout(() => {
      // Taken from the pool first: no stream may start on a closing session.
      this.#close();
      this.#session?.close();
    }, this.#tuning.idleSessionMs);
    this.#idleTimer.unref();
  }

  /** Something came over the connection: it is alive; idle streams hear so now and then. */
  #heard(): void {
    const now = performance.now();
    this.#lastHeardMs = now;
    if (now - this.#lastAliveNoticeMs < this.#tuning.aliveNoticeMs) return;
    this.#lastAliveNoticeMs = now;
    for (const open of this.#streams) for (const listener of open.alive) listener();
  }

  #schedulePing(inMs: number): void {
    clearTimeout(this.#pingTimer);
    this.#pingTimer = setTimeout(() => this.#checkQuiet(), inMs);
    this.#pingTimer.unref();
  }

  /** Heard from lately: look again when it would have been quiet long enough; else a PING. */
  #checkQuiet(): void {
    const quietMs = performance.now() - this.#lastHeardMs;
    if (quietMs < this.#tuning.pingAfterQuietMs) this.#schedulePing(this.#tuning.pingAfterQuietMs - quietMs);
    else this.#ping();
  }

  #ping(): void {
    const session = this.#session;
    if (!session || this.#closed) return;
    // Destroyed, its 'close' not yet emitted: ping() would throw from this timer, uncaught.
    if (session.destroyed) {
      this.#close();
      return;
    }
    const deadline = setTimeout(() => {
      const silentMs = Math.round(performance.now() - this.#lastHeardMs);
      this.#drop(new PingTimeoutError(this.#origin, this.#tuning.pingAnswerMs, silentMs));
    }, this.#tuning.pingAnswerMs);
    deadline.unref();
    session.ping((error) => {
      clearTimeout(deadline);
      if (error) return;
      this.#heard();
      this.#schedulePing(this.#tuning.pingAfterQuietMs);
    });
  }

  /** The connection is dead: every stream fails with why, and the session goes. */
  #drop(error: PingTimeoutError): void {
    if (this.#closed) return;
    this.#pool.dropped(this.#origin, error, this.#streams.size);
    this.#close();
    for (const open of this.#streams) open.stream.destroy(error);
    this.#session?.destroy();
  }

  #close(): void {
    this.#closed = true;
    clearTimeout(this.#pingTimer);
    clearTimeout(this.#idleTimer);
    this.#pool.forget(this);
  }

  /** Opens a stream (a slot is reserved already); undefined: the server speaks HTTP/1.1 only. */
  async open(
    path: string,
    headers: Record<string, string>,
    signal: AbortSignal,
  ): Promise<H2Response | undefined> {
    let session: http2.ClientHttp2Session | "http/1.1";
    try {
      session = await this.#ready;
    } catch (error) {
      this.#release();
      throw error;
    }
    if (session === "http/1.1") {
      this.#release();
      return undefined;
    }
    return this.#request(session, path, headers, signal);
  }

  #request(
    session: http2.ClientHttp2Session,
    path: string,
    headers: Record<string, string>,
    signal: AbortSignal,
  ): Promise<H2Response | undefined> {
    let stream: http2.ClientHttp2Stream;
    try {
      stream = session.request({ ":method": "GET", ":path": path, ...headers }, { endStream: true, signal });
    } catch (error) {
      // Refused before it started (the session went meanwhile): the loop retries on another.
      this.#release();
      return Promise.reject(error);
    }
    const open: OpenStream = { stream, alive: new Set() };
    this.#streams.add(open);
    stream.once("close", () => {
      this.#streams.delete(open);
      this.#release();
    });
    // Paused, so no byte passes before the reader is there (it resumes the stream).
    stream.pause();
    stream.on("data", () => this.#heard());
    return new Promise((resolve, reject) => {
      const failed = (error: Error): void => {
        // A server (or a front of it) that takes this request over HTTP/1.1 only says so with
        // HTTP_1_1_REQUIRED (RFC 9113, 8.2.2): the caller goes that way, as for an ALPN that chose it.
        if (stream.rstCode === http2.constants.NGHTTP2_HTTP_1_1_REQUIRED) resolve(undefined);
        else reject(error);
      };
      stream.once("error", failed);
      stream.once("response", (responseHeaders) => {
        this.#heard();
        stream.off("error", failed);
        resolve({
          status: Number(responseHeaders[":status"] ?? 0),
          body: stream,
          onAlive: (listener) => open.alive.add(listener),
        });
      });
    });
  }
}

/** HTTP/2 sessions for watches, by origin and TLS identity. */
export class H2WatchPool {
  readonly #sessions = new Map<string, WatchSession[]>();
  /** Origins whose TLS handshake did not choose h2. */
  readonly #http1Only = new Set<string>();
  readonly #tuning: H2Tuning;
  readonly #logger: Logger | undefined;

  constructor(tuning: Partial<H2Tuning> = {}, logger?: Logger) {
    this.#tuning = { ...defaultH2Tuning, ...tuning };
    this.#logger = logger;
  }

  /** How long a dead connection of this pool goes unnoticed at most. */
  get livenessCheckMs(): number {
    return livenessCheckMs(this.#tuning);
  }

  /** Whether this origin was seen to speak HTTP/1.1 only. */
  http1Only(origin: string): boolean {
    return this.#http1Only.has(origin);
  }

  /** Sessions open now (to tests: how many a number of streams took). */
  sessions(): number {
    let count = 0;
    for (const list of this.#sessions.values()) count += list.length;
    return count;
  }

  /**
   * A watch stream over h2: its answer, or undefined when the server turned
   * out to speak HTTP/1.1 only (the caller goes that way instead).
   */
  open(
    url: URL,
    material: TlsMaterial,
    headers: Record<string, string>,
    signal: AbortSignal,
  ): Promise<H2Response | undefined> {
    const session = this.#sessionFor(url, material);
    session.reserve();
    return session.open(url.pathname + url.search, headers, signal).then((response) => {
      if (!response) this.#http1Only.add(url.origin);
      return response;
    });
  }

  #sessionFor(url: URL, material: TlsMaterial): WatchSession {
    const key = sessionKey(url.origin, material);
    const list = this.#sessions.get(key) ?? [];
    this.#sessions.set(key, list);
    const found = list.find((session) => session.hasRoom());
    if (found) return found;
    const created = new WatchSession(this, key, url, material, this.#tuning);
    list.push(created);
    return created;
  }

  /** The session takes no more streams (closed, dropped, or told to go away). */
  forget(session: WatchSession): void {
    const list = this.#sessions.get(session.key);
    const at = list?.indexOf(session) ?? -1;
    if (at >= 0) list?.splice(at, 1);
    if (list?.length === 0) this.#sessions.delete(session.key);
  }

  dropped(origin: string, error: PingTimeoutError, streams: number): void {
    this.#logger?.warn("apiserver connection dropped: a PING went unanswered", {
      server: origin,
      silentSeconds: Math.round(error.silentMs / 100) / 10,
      streams,
    });
  }
}
