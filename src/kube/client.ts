// HTTP access to the Kubernetes API. Authentication and TLS come from
// @kubernetes/client-node's KubeConfig (kubeconfig files, in-cluster service
// account, exec plugins, client certificates); requests go through node:https
// so list pages can be parsed one at a time and watches read as a stream.
// Watches go over HTTP/2 where the apiserver speaks it (h2-watch.ts), whose
// PINGs find a dead connection within half a minute; through a proxy, over
// plain HTTP, or to a server that speaks HTTP/1.1 only, they stay on HTTP/1.1.
import http from "node:http";
import https from "node:https";
import { createInterface } from "node:readline";
import type { Readable } from "node:stream";
import type { KubeConfig } from "@kubernetes/client-node";
import type { Logger } from "../log.ts";
import { parseJsonOrText, readText } from "../net/http-body.ts";
import { version } from "../version.ts";
import { type H2Tuning, H2WatchPool } from "./h2-watch.ts";

export interface KubeResponse<T = unknown> {
  status: number;
  body: T;
}

export interface RequestOptions {
  query?: Record<string, string | number | boolean | undefined>;
  body?: unknown;
  contentType?: string;
  timeoutMs?: number;
  signal?: AbortSignal;
  /** Reads a 2xx answer's text (default: JSON, else the text): a list page may be read in part. */
  parse?: (text: string) => unknown;
}

export interface StreamOptions {
  query?: Record<string, string | number | boolean | undefined>;
  signal: AbortSignal;
  /** Called for each line of the response body (one watch event each). */
  onLine: (line: string) => void;
  /** Called whenever bytes arrive, so a watchdog can tell a live stream from a dead one. */
  onActivity?: () => void;
  /** Called once the server accepted the request (2xx headers received), with the transport it went over (none said: HTTP/1.1). */
  onOpen?: (transport?: StreamTransport) => void;
  /**
   * Called when the stream's connection was heard from though the stream
   * itself said nothing (h2: a PING answered, another stream's bytes), at
   * most every few seconds: a quiet watch on it is alive.
   */
  onAlive?: () => void;
}

/** How a stream went. */
export interface StreamTransport {
  protocol: "h2" | "http/1.1";
  /** The longest the transport's own check lets a dead connection go unnoticed (h2 PINGs); absent: no check. */
  livenessCheckMs?: number;
}

export interface KubeClientOptions {
  /** Where a dropped connection is logged. */
  logger?: Logger;
  /** HTTP/2 for watches: tuning for tests, or false for HTTP/1.1 only. */
  h2?: Partial<H2Tuning> | false;
}

/** A non-2xx answer to a stream request; body holds the Kubernetes Status, if any. */
export class KubeHttpError extends Error {
  readonly status: number;
  readonly body: unknown;
  /** Seconds the server asked to wait (Status details.retryAfterSeconds), if any. */
  readonly retryAfterSeconds: number | undefined;
  constructor(status: number, body: unknown, what: string) {
    const message = (body as { message?: string } | undefined)?.message;
    super(`${what}: HTTP ${status}${message ? `: ${message}` : ""}`);
    this.status = status;
    this.body = body;
    const retry = (body as { details?: { retryAfterSeconds?: unknown } } | undefined)?.details
      ?.retryAfterSeconds;
    this.retryAfterSeconds = typeof retry === "number" && retry > 0 ? retry : undefined;
  }
}

export interface KubeClient {
  readonly server: string;
  request<T = unknown>(method: string, path: string, options?: RequestOptions): Promise<KubeResponse<T>>;
  /** Resolves when the stream ends cleanly; rejects with KubeHttpError for non-2xx, or the network error. */
  stream(path: string, options: StreamOptions): Promise<void>;
}

function buildUrl(server: string, path: string, query: RequestOptions["query"]): URL {
  const url = new URL(server.replace(/\/+$/, "") + path);
  for (const [key, value] of Object.entries(query ?? {})) {
    if (value !== undefined) url.searchParams.set(key, String(value));
  }
  return url;
}

/** The most of a response body held in memory (the largest list page is far smaller). */
const maxResponseBytes = 64 * 1024 * 1024;

async function readResponse(
  res: http.IncomingMessage,
  limitBytes: number,
  parse: (text: string) => unknown = parseJsonOrText,
): Promise<unknown> {
  try {
    return parse(await readText(res, limitBytes));
  } catch (error) {
    res.destroy();
    throw error;
  }
}

/**
 * Sent on every apiserver request, in client-go's shape (`<program>/<version>
 * (<os>/<arch>) …`), so audit logs and the apiserver's metrics name the caller.
 */
export const userAgent = `cr-status-exporter/${version} (${process.platform}/${process.arch}) node/${process.version}`;

/**
 * Whether requests with these options go through a proxy: client-node sets
 * a proxy agent (a subclass of https.Agent, or another class) for a
 * kubeconfig's proxy-url. A proxy is asked for HTTP/1.1 tunnels only, so
 * watches then stay on HTTP/1.1. (client-node's agents do not read
 * HTTPS_PROXY: without proxy-url both ways go direct.)
 */
export function viaProxy(agent: unknown, proxyUrl: string | undefined): boolean {
  return (
    proxyUrl !== undefined || (agent !== undefined && Object.getPrototypeOf(agent) !== https.Agent.prototype)
  );
}

/** A request's headers as HTTP/2 wants them: lower-case names, basic auth as a header. */
export function h2Headers(options: https.RequestOptions): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(options.headers ?? {}))
    if (value !== undefined) headers[name.toLowerCase()] = String(value);
  if (options.auth) headers.authorization = `Basic ${Buffer.from(options.auth).toString("base64")}`;
  return headers;
}

/** A stream's answer, whichever way it went. */
interface OpenedStream {
  status: number;
  body: Readable;
  transport: StreamTransport;
  onAlive?: (listener: () => void) => void;
}

/** Reads a watch's answer: its lines until it ends, or the KubeHttpError of a non-2xx. */
async function readStream(opened: OpenedStream, what: string, options: StreamOptions): Promise<void> {
  const { status, body } = opened;
  if (status < 200 || status >= 300) {
    const reading = readResponse(body as http.IncomingMessage, 1024 * 1024);
    body.resume();
    throw new KubeHttpError(status, await reading, what);
  }
  options.onOpen?.(opened.transport);
  if (options.onAlive) opened.onAlive?.(options.onAlive);
  body.on("data", () => options.onActivity?.());
  const lines = createInterface({ input: body, crlfDelay: Number.POSITIVE_INFINITY });
  // A promise settles once: the first of these wins, later ones change nothing.
  await new Promise<void>((resolve, reject) => {
    const aborted = (): void => reject(new Error("watch stream aborted"));
    // readline re-emits the response's errors (a reset connection) here; without a
    // listener they would crash the process.
    lines.once("error", reject);
    body.once("aborted", aborted);
    // An HTTP/2 stream reset without an error closes before its end.
    body.once("close", () => body.readableEnded || aborted());
    lines.on("line", (line) => {
      if (line.length > 0) options.onLine(line);
    });
    lines.once("close", () => resolve());
  });
}

// biome-ignore lint/complexity/noExcessiveLinesPerFunction: request() and stream() share the agent, headers and TLS of one KubeConfig
export function createKubeClient(kubeConfig: KubeConfig, clientOptions: KubeClientOptions = {}): KubeClient {
  const cluster = kubeConfig.getCurrentCluster();
  if (!cluster)
    throw new Error("the kubeconfig has no current cluster (check KUBECONFIG and the current context)");
  const server = cluster.server;
  const h2 = clientOptions.h2 === false ? undefined : new H2WatchPool(clientOptions.h2, clientOptions.logger);

  async function prepare(
    method: string,
    headers: Record<string, string>,
    signal: AbortSignal | undefined,
  ): Promise<https.RequestOptions> {
    const options: https.RequestOptions = { method, headers: {} };
    // Adds the Authorization header (refreshing tokens), TLS material and a cached agent.
    await kubeConfig.applyToHTTPSOptions(options);
    options.headers = { "User-Agent": userAgent, ...(options.headers as Record<string, string>), ...headers };
    options.signal = signal;
    return options;
  }

  function send(
    url: URL,
    options: https.RequestOptions,
    timeoutMs: number | undefined,
  ): { req: http.ClientRequest; response: Promise<http.IncomingMessage> } {
    // The agent from the kubeconfig already matches the URL's protocol (and carries any proxy);
    // client-node always sets one, so the transport below matters only if it ever did not.
    // Stryker disable next-line ConditionalExpression,EqualityOperator,StringLiteral: the agent decides, see above
    const transport = url.protocol === "http:" ? http : https;
    const req = transport.request(url, options);
    if (timeoutMs)
      req.setTimeout(timeoutMs, () => req.destroy(new Error(`request timed out after ${timeoutMs} ms`)));
    const response = new Promise<http.IncomingMessage>((resolve, reject) => {
      req.once("response", resolve);
      req.once("error", reject);
    });
    return { req, response };
  }

  /** A watch over h2 where it can go so (undefined: the server speaks HTTP/1.1 only), else over HTTP/1.1. */
  async function openStream(url: URL, signal: AbortSignal): Promise<OpenedStream> {
    const options = await prepare(
      // Stryker disable next-line StringLiteral: node's http.request sends GET for an empty method too
      "GET",
      { Accept: "application/json" },
      signal,
    );
    if (
      h2 &&
      url.protocol === "https:" &&
      !viaProxy(options.agent, cluster?.proxyUrl) &&
      !h2.http1Only(url.origin)
    ) {
      const response = await h2.open(url, options, h2Headers(options), signal);
      if (response)
        return { ...response, transport: { protocol: "h2", livenessCheckMs: h2.livenessCheckMs } };
    }
    const { req, response } = send(url, options, undefined);
    req.end();
    const res = await response;
    return { status: res.statusCode ?? 0, body: res, transport: { protocol: "http/1.1" } };
  }

  return {
    server,
    async request<T>(method: string, path: string, options: RequestOptions = {}): Promise<KubeResponse<T>> {
      const url = buildUrl(server, path, options.query);
      const headers: Record<string, string> = { Accept: "application/json" };
      const payload =
        options.body === undefined
          ? undefined
          : typeof options.body === "string"
            ? options.body
            : JSON.stringify(options.body);
      if (payload !== undefined) {
        headers["Content-Type"] = options.contentType ?? "application/json";
        headers["Content-Length"] = String(Buffer.byteLength(payload));
      }
      const prepared = await prepare(method, headers, options.signal);
      const { req, response } = send(url, prepared, options.timeoutMs ?? 60_000);
      req.end(payload);
      const res = await response;
      const status = res.statusCode ?? 0;
      const parse = status >= 200 && status < 300 ? options.parse : undefined;
      const body = await readResponse(res, maxResponseBytes, parse);
      return { status, body: body as T };
    },

    async stream(path: string, options: StreamOptions): Promise<void> {
      const url = buildUrl(server, path, options.query);
      await readStream(await openStream(url, options.signal), `GET ${url.pathname}`, options);
    },
  };
}
