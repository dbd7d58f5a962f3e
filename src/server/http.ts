// The HTTP server: /metrics (Prometheus text or OpenMetrics by content
// negotiation, gzip when asked), /healthz (the process is alive), /readyz
// (every selected resource was listed and its data is not stale; the body says
// how old each resource's data is, and why one is not ready), then whatever
// further routes it is given (the status page and its API). TLS and
// authorization wrap all of it (secure-serving.ts).
import { createServer, type RequestListener, type Server, type ServerResponse } from "node:http";
import type { ZlibOptions } from "node:zlib";
import Koa, { type Middleware } from "koa";
import type { Readiness } from "../collectors/manager.ts";
import type { Logger } from "../log.ts";
import { defaultChunkBytes } from "../metrics/chunks.ts";
import type { SelfMetrics } from "../metrics/self-metrics.ts";
import {
  openMetricsType,
  prometheusTextType,
  type SeriesSource,
  writeExposition,
} from "../metrics/writer.ts";
import { closeServer, parseHostPort } from "../net/listen.ts";
import { refusalStatus, refuseClient } from "./client-errors.ts";
import { sendGzip, sendPlain } from "./send-exposition.ts";

export interface ServerDeps {
  sources: () => readonly SeriesSource[];
  metrics: SelfMetrics;
  prefix: () => string;
  readiness: () => Readiness;
  logger: Logger;
  /** Served after the paths above; a path none of them takes is a 404. */
  routes?: readonly Middleware[];
}

/**
 * Prometheus always asks for gzip. Level 1 keeps compression (which runs on
 * the thread pool, beside the writer) from becoming the scrape's critical
 * path; exposition text compresses about 30:1 even so (levels 3 and 6 were
 * slower per scrape at 50k objects for 2 % and 19 % smaller bodies).
 */
export const gzipOptions: ZlibOptions = { level: 1, chunkSize: 64 * 1024 };

export function wantsOpenMetrics(accept: string | undefined): boolean {
  return accept?.includes("application/openmetrics-text") === true;
}

export function formatReadiness(r: Readiness): string {
  const lines = [r.ready ? "ready" : "not ready"];
  if (r.crds?.synced)
    lines.push(`customresourcedefinitions: listed${r.crds.error ? ` (${r.crds.error})` : ""}`);
  else if (r.crds?.error) {
    lines.push(
      `customresourcedefinitions: cannot be listed, so no resource is watched yet and whether the configured ones are installed is unknown: ${r.crds.error}`,
    );
  } else if (r.crds) lines.push("customresourcedefinitions: not listed yet");
  for (const res of r.resources)
    lines.push(`${res.resource}: ${res.ready ? "" : "not ready: "}${res.detail}`);
  if (r.overLimit) lines.push(`watch limit: ${r.overLimit}`);
  for (const m of r.missing) lines.push(`${m}: configured, but no such CRD is installed`);
  if (r.apiProxy) lines.push(`api proxy: not ready: ${r.apiProxy}`);
  return `${lines.join("\n")}\n`;
}

/** One scrape's body; a writer failure is logged and cuts the response short (the client sees it broken, not complete). */
async function sendMetrics(
  res: ServerResponse,
  deps: ServerDeps,
  openMetrics: boolean,
  gzip: boolean,
): Promise<void> {
  const started = performance.now();
  const chunks = writeExposition({
    sources: deps.sources(),
    registry: deps.metrics.registry,
    prefix: deps.prefix(),
    openMetrics,
  });
  try {
    await (gzip
      ? sendGzip(res, chunks, { ...gzipOptions, chunkBytes: defaultChunkBytes })
      : sendPlain(res, chunks));
    if (res.writableFinished || !res.destroyed)
      deps.metrics.scrapeDuration.observe((performance.now() - started) / 1000);
  } catch (error) {
    const failure = error instanceof Error ? error : new Error(String(error));
    deps.logger.error("writing /metrics failed", { error: failure.message, stack: failure.stack });
    res.destroy();
  }
}

export function createApp(deps: ServerDeps): Koa {
  const app = new Koa();
  app.on("error", (error: Error) => deps.logger.warn("http error", { error: error.message }));

  app.use(async (ctx, next) => {
    if (ctx.method !== "GET" && ctx.method !== "HEAD") {
      ctx.status = 405;
      return;
    }
    switch (ctx.path) {
      case "/healthz":
        ctx.body = "ok\n";
        return;
      case "/readyz": {
        const readiness = deps.readiness();
        ctx.status = readiness.ready ? 200 : 503;
        // Stryker disable next-line StringLiteral: without a type Koa gives a string body text/plain; charset=utf-8 (the readiness text never starts with "<"), the same type "text/plain" becomes
        ctx.type = "text/plain";
        ctx.body = formatReadiness(readiness);
        return;
      }
      case "/metrics": {
        const openMetrics = wantsOpenMetrics(ctx.get("Accept"));
        const gzip = ctx.acceptsEncodings("gzip", "identity") === "gzip";
        ctx.status = 200;
        ctx.set("Content-Type", openMetrics ? openMetricsType : prometheusTextType);
        ctx.vary("Accept-Encoding");
        if (gzip) ctx.set("Content-Encoding", "gzip");
        if (ctx.method === "HEAD") return;
        // Written here rather than handed to Koa as a stream (see send-exposition.ts).
        // Stryker disable next-line BooleanLiteral: sendMetrics ends the response or destroys it before the middleware returns, and Koa writes nothing to a response that is no longer writable
        ctx.respond = false;
        await sendMetrics(ctx.res, deps, openMetrics, gzip);
        return;
      }
      default:
        await next();
    }
  });
  for (const route of deps.routes ?? []) app.use(route);
  return app;
}

export interface Listening {
  server: Server;
  url: string;
  close(): Promise<void>;
}

/** How the listening server is made when it is not plain HTTP (server/secure-serving.ts: HTTPS, auth). */
export interface ServerFactory {
  readonly scheme: "http" | "https";
  create(handler: RequestListener): Server;
  /** Called once the server is closed. */
  closed?(): void;
}

export function listen(app: Koa, address: string, factory?: ServerFactory): Promise<Listening> {
  const parsed = parseHostPort(address, "listen");
  const host = parsed.host || "0.0.0.0";
  const port = parsed.port;
  return new Promise((resolve, reject) => {
    const server = factory ? factory.create(app.callback()) : createServer(app.callback());
    server.listen(port, host);
    server.requestTimeout = 120_000;
    server.headersTimeout = 30_000;
    server.keepAliveTimeout = 65_000;
    // 408/414/431/400 for what the parser refuses, read to the end (not a reset).
    server.on("clientError", (error, socket) => refuseClient(socket, refusalStatus(error)));
    server.once("error", reject);
    server.once("listening", () => {
      const a = server.address();
      const actualPort = typeof a === "object" && a ? a.port : port;
      const shownHost = host.includes(":") ? `[${host}]` : host;
      resolve({
        server,
        url: `${factory?.scheme ?? "http"}://${shownHost}:${actualPort}`,
        close: async () => {
          await closeServer(server);
          factory?.closed?.();
        },
      });
    });
  });
}
