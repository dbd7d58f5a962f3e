// The status page (/) and the JSON API (/api/v1/objects, /api/v1/objects/{uid},
// /api/v1/summary) as one koa middleware over a ViewSource. Anything else is
// passed on. Bad query parameters answer 400 naming the parameter and value;
// the page is served with a Content-Security-Policy that admits only its own
// inline style and script. Answers are gzipped for clients that accept it.
import { gzipSync } from "node:zlib";
import type { Context, Middleware } from "koa";
import type { StatusPageConfig } from "../config/status-page.ts";
import { isoTime, type OutputSettings, objectDetail, objectItem, outputSettingsOf } from "../status/json.ts";
import { contentSecurityPolicy } from "../status/page/assets.ts";
import { renderStatusPage } from "../status/page/render.ts";
import { type PageCollector, pageCollector, type QueryPage, type QuerySettings } from "../status/query.ts";
import {
  defaultQueryLimits,
  type ObjectQuery,
  parseFilter,
  parseObjectQuery,
  QueryError,
  type QueryLimits,
} from "../status/query-params.ts";
import { eachInSlices } from "../status/slices.ts";
import { summaryCollector } from "../status/summary.ts";
import type { ViewSource } from "../status/view.ts";
import { gzipOptions } from "./http.ts";

export interface StatusRoutesOptions {
  source: ViewSource;
  /** Read on every request, so a configuration reload applies at once. */
  settings: () => StatusPageConfig;
  limits?: QueryLimits;
}

const objectsPrefix = "/api/v1/objects/";

function commonHeaders(ctx: Context): void {
  ctx.set("Cache-Control", "no-store");
  ctx.set("X-Content-Type-Options", "nosniff");
  ctx.set("Referrer-Policy", "no-referrer");
}

function json(ctx: Context, status: number, body: unknown): void {
  commonHeaders(ctx);
  ctx.set("Content-Security-Policy", "default-src 'none'; frame-ancestors 'none'");
  ctx.status = status;
  ctx.type = "application/json";
  ctx.body = `${JSON.stringify(body, null, 2)}\n`;
}

function errorJson(ctx: Context, status: number, message: string, extra: Record<string, string> = {}): void {
  json(ctx, status, { error: { status, message, ...extra } });
}

function queryError(ctx: Context, error: QueryError): void {
  errorJson(ctx, 400, error.message, {
    parameter: error.parameter,
    value: error.value,
    expected: error.expected,
  });
}

// Below this a gzip header and trailer cost about what they save.
const gzipFromBytes = 1024;

/**
 * The page at 50,000 objects is ~150 KB of HTML and a 500-item API page ~0.5 MB
 * of JSON; both shrink ~10x. Level 1 (as for /metrics) compresses such a body in
 * a few milliseconds, so it is done in one go rather than streamed. Nothing
 * secret sits next to reflected input on these pages, so compressing them
 * leaks nothing (BREACH needs both).
 */
function compress(ctx: Context): void {
  ctx.vary("Accept-Encoding");
  const body = ctx.body;
  if (typeof body !== "string" || Buffer.byteLength(body) < gzipFromBytes) return;
  if (ctx.acceptsEncodings("gzip", "identity") !== "gzip") return;
  // Koa keeps the Content-Type already set when the body becomes a Buffer.
  ctx.body = gzipSync(body, gzipOptions);
  ctx.set("Content-Encoding", "gzip");
}

function isRoute(path: string): boolean {
  return path === "/" || path === "/favicon.ico" || path.startsWith("/api/");
}

/** What the routes read: fixed when the middleware is made. */
interface Routes {
  source: ViewSource;
  limits: QueryLimits;
}

/** The page with the trace ids of its objects, which the source looks up for the objects shown only. */
function withTraceIds(source: ViewSource, page: QueryPage): QueryPage {
  if (!source.traceId) return page;
  const items = page.items.map((v) => (v.traceId !== undefined ? v : { ...v, traceId: source.traceId?.(v) }));
  return { ...page, items };
}

async function objects(ctx: Context, routes: Routes, settings: OutputSettings): Promise<void> {
  const { source } = routes;
  const query = parseObjectQuery(new URLSearchParams(ctx.querystring), routes.limits);
  const now = source.now();
  const collector = pageCollector(query, settings);
  await eachInSlices(source.objects(), (view) => collector.add(view));
  const page = withTraceIds(source, collector.page());
  json(ctx, 200, {
    now: isoTime(now),
    total: page.total,
    continue: page.continueToken ?? null,
    items: page.items.map((v) => objectItem(v, now, settings)),
  });
}

function object(ctx: Context, source: ViewSource, settings: OutputSettings): void {
  let uid: string;
  try {
    uid = decodeURIComponent(ctx.path.slice(objectsPrefix.length));
  } catch {
    errorJson(ctx, 400, "the object uid in the path is not valid percent-encoding");
    return;
  }
  if (ctx.querystring) {
    const [name = "", value = ""] = ctx.querystring.split("=");
    throw new QueryError(decodeURIComponent(name), decodeURIComponent(value), "no query parameters here");
  }
  const view = source.get(uid);
  if (!view) {
    errorJson(ctx, 404, `no object with uid ${JSON.stringify(uid)} is watched (deleted, or never seen)`);
    return;
  }
  json(ctx, 200, { now: isoTime(source.now()), object: objectDetail(view, source.now(), settings) });
}

async function summary(ctx: Context, source: ViewSource, settings: OutputSettings): Promise<void> {
  const filter = parseFilter(new URLSearchParams(ctx.querystring));
  const collector = summaryCollector(source.kinds(), filter, settings);
  await eachInSlices(source.objects(), (view) => collector.add(view));
  json(ctx, 200, { now: isoTime(source.now()), ...collector.summary() });
}

/** The page's Show choices (its form's `show`) as the API's filters. */
const shownFilters: Record<string, Record<string, string>> = {
  attention: { attention: "true" },
  notReady: { notReady: "true" },
  ready: { notReady: "false" },
  all: {},
};

/**
 * The page's parameters with its `show` choice turned into filters. Without
 * one (and without notReady or attention), the page lists what needs
 * attention: not Ready, or flapping, which is Ready half of the time and
 * would drop out of a not-Ready list every other refresh.
 */
function withShown(params: URLSearchParams): URLSearchParams {
  const out = new URLSearchParams(params);
  const show = out.get("show");
  out.delete("show");
  if (show === null && (out.has("notReady") || out.has("attention"))) return out;
  const choice = show ?? "attention";
  if (!Object.hasOwn(shownFilters, choice))
    throw new QueryError("show", choice, `one of ${Object.keys(shownFilters).join(", ")}`);
  for (const [name, value] of Object.entries(shownFilters[choice] ?? {})) out.set(name, value);
  return out;
}

/**
 * The page's query and its page of objects, or the QueryError the page shows
 * (with a 400) instead of its list: a bad parameter, or a continue token that
 * does not decode (found only when the query runs). A person gets the page
 * with the message, not the API's JSON.
 */
function pageList(
  params: URLSearchParams,
  limits: QueryLimits,
  settings: QuerySettings,
): { query?: ObjectQuery; collector?: PageCollector; error?: QueryError } {
  try {
    const query = parseObjectQuery(withShown(params), limits);
    return { query, collector: pageCollector(query, settings) };
  } catch (e) {
    if (!(e instanceof QueryError)) throw e;
    return { error: e };
  }
}

async function page(ctx: Context, routes: Routes, config: StatusPageConfig): Promise<void> {
  const { source } = routes;
  const params = new URLSearchParams(ctx.querystring);
  const settings = { ...outputSettingsOf(config), refreshSeconds: config.refreshSeconds };
  const now = source.now();
  const { query, collector, error } = pageList(params, routes.limits, settings);
  const summary = summaryCollector(source.kinds(), undefined, settings);
  // Views are built from the store on every pass over source.objects(): one pass serves both.
  await eachInSlices(source.objects(), (view) => {
    summary.add(view);
    collector?.add(view);
  });
  const html = renderStatusPage({
    now,
    params,
    query,
    error,
    page: collector ? withTraceIds(source, collector.page()) : undefined,
    summary: summary.summary(),
    kinds: source.kinds(),
    settings,
  });
  commonHeaders(ctx);
  ctx.set("Content-Security-Policy", contentSecurityPolicy);
  ctx.status = error ? 400 : 200;
  // Stryker disable next-line StringLiteral: without a type Koa gives a body starting with "<" (the page's doctype) text/html; charset=utf-8, the same
  ctx.type = "text/html; charset=utf-8";
  ctx.body = html;
}

/** One GET or HEAD on a path of isRoute; a bad query parameter answers 400. */
async function serve(ctx: Context, routes: Routes, config: StatusPageConfig): Promise<void> {
  const settings = outputSettingsOf(config);
  try {
    if (ctx.path === "/") await page(ctx, routes, config);
    // Browsers ask for it; an empty answer keeps their consoles (and the page tests) free of 404s.
    else if (ctx.path === "/favicon.ico") ctx.status = 204;
    else if (ctx.path === "/api/v1/objects") await objects(ctx, routes, settings);
    else if (ctx.path === "/api/v1/summary") await summary(ctx, routes.source, settings);
    else if (ctx.path.startsWith(objectsPrefix) && ctx.path.length > objectsPrefix.length)
      object(ctx, routes.source, settings);
    else errorJson(ctx, 404, `no such API path ${ctx.path}; see /api/v1/objects and /api/v1/summary`);
  } catch (error) {
    if (error instanceof QueryError) queryError(ctx, error);
    else throw error;
  }
}

export function statusRoutes(options: StatusRoutesOptions): Middleware {
  const routes: Routes = { source: options.source, limits: options.limits ?? defaultQueryLimits };
  return async (ctx, next) => {
    if (!isRoute(ctx.path)) return next();
    if (ctx.method !== "GET" && ctx.method !== "HEAD") {
      ctx.set("Allow", "GET, HEAD");
      errorJson(ctx, 405, `${ctx.method} is not allowed here; use GET`);
      return;
    }
    await serve(ctx, routes, options.settings());
    compress(ctx);
  };
}
