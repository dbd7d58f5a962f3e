// One OTLP/HTTP request with bounded retries: POSTs a serialized
// ExportMetricsServiceRequest (gzip when asked, compressed off the event
// loop), each attempt bounded by the request timeout, retried with
// exponential backoff (and the receiver's Retry-After) on the answers the
// OTLP specification calls retryable (429, 502, 503, 504, no answer), never
// past the export's deadline. Nothing is kept between calls.
import { promisify } from "node:util";
import { gzip as gzipCallback } from "node:zlib";

const gzip = promisify(gzipCallback);

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

async function attempt(settings: RequestSettings, body: Uint8Array, timeoutMs: number): Promise<Attempt> {
  const headers: Record<string, string> = { ...settings.headers, "content-type": settings.contentType };
  if (settings.compression === "gzip") headers["content-encoding"] = "gzip";
  let response: Response;
  try {
    response = await fetch(settings.url, {
      method: "POST",
      headers,
      body,
      signal: AbortSignal.timeout(timeoutMs),
    });
  } catch (error) {
    const cause = (error as { cause?: { code?: string } }).cause?.code;
    return { ok: false, retry: true, error: cause ?? (error as Error).name ?? String(error) };
  }
  const text = await response.text().catch(() => "");
  if (response.ok) {
    // A partial success names the points the receiver refused; the rest were taken.
    const rejected = /"rejectedDataPoints"\s*:\s*"?(\d+)/.exec(text)?.[1];
    return { ok: true, retry: false, error: "", rejectedPoints: rejected ? Number(rejected) : 0 };
  }
  const wait = retryAfterMs(response.headers.get("retry-after"), Date.now());
  return {
    ok: false,
    retry: retryableStatus.has(response.status),
    error: `HTTP ${response.status}${text ? `: ${text.slice(0, 200)}` : ""}`,
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
  const body = settings.compression === "gzip" ? new Uint8Array(await gzip(payload)) : payload;
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
