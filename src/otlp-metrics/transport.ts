// One OTLP/HTTP request with bounded retries: POSTs a serialized
// ExportMetricsServiceRequest (gzip when asked), each attempt bounded by the
// request timeout, retried with exponential backoff (and the receiver's
// Retry-After) on the answers the OTLP specification calls retryable (429,
// 502, 503, 504, no answer), never past the export's deadline. Nothing is
// kept between calls but the keep-alive connections.
//
// node:http, not fetch: fetch copies a Uint8Array body and streams it through
// web streams, about 240 CPU ms per 144 MiB export against 60 ms here, and
// each copy is external memory that brings the next major collection closer.
// The body is written from the caller's buffer, which must stay unchanged
// until send() returns.
//
// gzip runs on the event loop, one request at a time: a request holds at most
// about 1 MiB of points, which level 1 compresses in 1–2.5 ms here. Sent to
// libuv's thread pool instead (zlib.gzip), the same export cost a quarter more
// CPU (50,000 widgets, default set, 137 requests: 503–509 against 392–393 ms,
// two interleaved pairs, bench/otlp-metrics.ts), for a stall it did not save.
import { Agent as HttpAgent, request as httpRequest, type IncomingMessage } from "node:http";
import { Agent as HttpsAgent, request as httpsRequest } from "node:https";
import { gzipSync } from "node:zlib";

export interface RequestSettings {
  url: string;
  contentType: string;
  headers: Readonly<Record<string, string>>;
  compression: "gzip" | "none";
  /** One attempt. */
  timeoutMs: number;
}

export type SendResult =
  | { ok: true; attempts: number; bytes: number; rejectedPoints: number }
  | { ok: false; attempts: number; bytes: number; error: string };

/** The OTLP specification's retryable HTTP answers. */
const retryableStatus = new Set([429, 502, 503, 504]);

/** Backoff before attempt n+1 (ms): 0.5 s, 1 s, 2 s, 4 s, capped at 5 s, with ±20 % jitter. */
export function backoffMs(attempt: number, random = Math.random): number {
  const base = Math.min(5_000, 500 * 2 ** (attempt - 1));
  return Math.round(base * (0.8 + 0.4 * random()));
}

/** Retry-After in milliseconds (seconds or an HTTP date), undefined when absent or unreadable. */
export function retryAfterMs(header: string | null, nowMs: number): number | undefined {
  if (!header) return undefined;
  const seconds = Number(header);
  if (Number.isFinite(seconds) && seconds >= 0) return seconds * 1000;
  const at = Date.parse(header);
  return Number.isNaN(at) ? undefined : Math.max(0, at - nowMs);
}

interface Attempt {
  ok: boolean;
  retry: boolean;
  error: string;
  waitMs?: number;
  rejectedPoints?: number;
}

const agents = { http: new HttpAgent({ keepAlive: true }), https: new HttpsAgent({ keepAlive: true }) };

/** The most of an answer's body read (an error message, a partial success). */
const maxAnswerBytes = 64 * 1024;

interface Answer {
  status: number;
  retryAfter: string | null;
  text: string;
}

/** One POST: the answer, or the error's code (ECONNREFUSED, TimeoutError, …). */
function post(settings: RequestSettings, body: Uint8Array, timeoutMs: number): Promise<Answer> {
  const headers: Record<string, string | number> = {
    ...settings.headers,
    "content-type": settings.contentType,
    "content-length": body.length,
  };
  if (settings.compression === "gzip") headers["content-encoding"] = "gzip";
  const url = new URL(settings.url);
  const secure = url.protocol === "https:";
  return new Promise((resolve, reject) => {
    const req = (secure ? httpsRequest : httpRequest)(
      url,
      { method: "POST", headers, agent: secure ? agents.https : agents.http },
      (res) => answer(res).then(resolve, reject),
    );
    const timer = setTimeout(
      () => req.destroy(Object.assign(new Error("timeout"), { code: "TimeoutError" })),
      timeoutMs,
    );
    req.on("close", () => clearTimeout(timer));
    req.on("error", reject);
    req.end(body);
  });
}

/** The answer's status, Retry-After and the start of its body. */
function answer(res: IncomingMessage): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let bytes = 0;
    res.on("data", (chunk: Buffer) => {
      if (bytes < maxAnswerBytes) chunks.push(chunk);
      bytes += chunk.length;
    });
    res.on("end", () => {
      const retryAfter = res.headers["retry-after"];
      resolve({
        status: res.statusCode ?? 0,
        retryAfter: typeof retryAfter === "string" ? retryAfter : null,
        text: Buffer.concat(chunks).toString("utf8"),
      });
    });
    res.on("error", reject);
  });
}

async function attempt(settings: RequestSettings, body: Uint8Array, timeoutMs: number): Promise<Attempt> {
  let response: Answer;
  try {
    response = await post(settings, body, timeoutMs);
  } catch (error) {
    const e = error as { code?: string; name?: string };
    return { ok: false, retry: true, error: e.code ?? e.name ?? String(error) };
  }
  const { status, text } = response;
  if (status >= 200 && status < 300) {
    // A partial success names the points the receiver refused; the rest were taken.
    const rejected = /"rejectedDataPoints"\s*:\s*"?(\d+)/.exec(text)?.[1];
    return { ok: true, retry: false, error: "", rejectedPoints: rejected ? Number(rejected) : 0 };
  }
  const wait = retryAfterMs(response.retryAfter, Date.now());
  return {
    ok: false,
    retry: retryableStatus.has(status),
    error: `HTTP ${status}${text ? `: ${text.slice(0, 200)}` : ""}`,
    ...(wait !== undefined && { waitMs: wait }),
  };
}

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms).unref?.());

/**
 * Sends `payload` until it is accepted, refused for good, or `deadlineMs`
 * (epoch ms) leaves no room for another attempt.
 */
export async function send(
  settings: RequestSettings,
  payload: Uint8Array,
  deadlineMs: number,
  stopped: () => boolean = () => false,
): Promise<SendResult> {
  // Level 1, as /metrics compresses (src/server/http.ts): level 6 took 3.5 times the CPU (117 against 33 ms for a
  // 10k-object export, 28.7 MiB) for 13 % fewer bytes (0.90 against 1.03 MiB).
  const body = settings.compression === "gzip" ? gzipSync(payload, { level: 1 }) : payload;
  let last = "";
  for (let n = 1; ; n++) {
    const left = deadlineMs - Date.now();
    if (left <= 0) return { ok: false, attempts: n - 1, bytes: body.length, error: last || "export timeout" };
    const result = await attempt(settings, body, Math.min(settings.timeoutMs, left));
    if (result.ok)
      return { ok: true, attempts: n, bytes: body.length, rejectedPoints: result.rejectedPoints ?? 0 };
    last = result.error;
    if (!result.retry || stopped()) return { ok: false, attempts: n, bytes: body.length, error: last };
    const wait = Math.max(backoffMs(n), result.waitMs ?? 0);
    if (Date.now() + wait >= deadlineMs) {
      return { ok: false, attempts: n, bytes: body.length, error: `${last} (no time left to retry)` };
    }
    await sleep(wait);
  }
}
