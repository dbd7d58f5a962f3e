// HTTP access to the Kubernetes API. Authentication and TLS come from
// @kubernetes/client-node's KubeConfig (kubeconfig files, in-cluster service
// account, exec plugins, client certificates); requests go through node:https
// so list pages can be parsed one at a time and watches read as a stream.
import http from "node:http";
import https from "node:https";
import { createInterface } from "node:readline";
import type { KubeConfig } from "@kubernetes/client-node";
import { parseJsonOrText, readText } from "../net/http-body.ts";
import { version } from "../version.ts";

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
  /** Called once the server accepted the request (2xx headers received). */
  onOpen?: () => void;
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

// biome-ignore lint/complexity/noExcessiveLinesPerFunction: request() and stream() share the agent, headers and TLS of one KubeConfig
export function createKubeClient(kubeConfig: KubeConfig): KubeClient {
  const cluster = kubeConfig.getCurrentCluster();
  if (!cluster)
    throw new Error("the kubeconfig has no current cluster (check KUBECONFIG and the current context)");
  const server = cluster.server;

  async function open(
    method: string,
    url: URL,
    headers: Record<string, string>,
    signal: AbortSignal | undefined,
    timeoutMs: number | undefined,
  ): Promise<{ req: http.ClientRequest; response: Promise<http.IncomingMessage> }> {
    const options: https.RequestOptions = { method, headers: {} };
    // Adds the Authorization header (refreshing tokens), TLS material and a cached agent.
    await kubeConfig.applyToHTTPSOptions(options);
    options.headers = { "User-Agent": userAgent, ...(options.headers as Record<string, string>), ...headers };
    options.signal = signal;
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
      const { req, response } = await open(method, url, headers, options.signal, options.timeoutMs ?? 60_000);
      req.end(payload);
      const res = await response;
      const status = res.statusCode ?? 0;
      const parse = status >= 200 && status < 300 ? options.parse : undefined;
      const body = await readResponse(res, maxResponseBytes, parse);
      return { status, body: body as T };
    },

    async stream(path: string, options: StreamOptions): Promise<void> {
      const url = buildUrl(server, path, options.query);
      const { req, response } = await open(
        // Stryker disable next-line StringLiteral: node's http.request sends GET for an empty method too
        "GET",
        url,
        { Accept: "application/json" },
        options.signal,
        undefined,
      );
      req.end();
      const res = await response;
      const status = res.statusCode ?? 0;
      if (status < 200 || status >= 300) {
        throw new KubeHttpError(status, await readResponse(res, 1024 * 1024), `GET ${url.pathname}`);
      }
      options.onOpen?.();
      res.on("data", () => options.onActivity?.());
      const lines = createInterface({ input: res, crlfDelay: Number.POSITIVE_INFINITY });
      // A promise settles once: the first of these wins, later ones change nothing.
      await new Promise<void>((resolve, reject) => {
        // readline re-emits the response's errors (a reset connection) here; without a
        // listener they would crash the process.
        lines.once("error", reject);
        res.once("aborted", () => reject(new Error("watch stream aborted")));
        lines.on("line", (line) => {
          if (line.length > 0) options.onLine(line);
        });
        lines.once("close", () => resolve());
      });
    },
  };
}
