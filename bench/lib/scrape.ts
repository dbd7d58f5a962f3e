// Reading /metrics the way a scraper does, with line-level hooks: whole
// scrapes (latency, bytes, every line seen) and partial scans that stop as
// soon as the caller has seen what it needs.
import { request } from "node:http";
import { createGunzip } from "node:zlib";

export interface ScrapeResult {
  ms: number;
  /** Bytes on the wire (compressed when gzip). */
  wireBytes: number;
  /** Uncompressed bytes. */
  bytes: number;
}

/**
 * One GET /metrics. `onLine` sees every line (uncompressed) with the time it
 * was read and may return true to abort the rest of the response.
 */
export function scrape(
  url: string,
  options: { gzip?: boolean; onLine?: (line: string, at: number) => boolean | undefined } = {},
): Promise<ScrapeResult> {
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const req = request(
      url,
      { headers: options.gzip ? { "Accept-Encoding": "gzip" } : { "Accept-Encoding": "identity" } },
      (res) => {
        if (res.statusCode !== 200) {
          res.resume();
          reject(new Error(`GET ${url} → ${res.statusCode}`));
          return;
        }
        let wireBytes = 0;
        let bytes = 0;
        let rest = "";
        let aborted = false;
        res.on("data", (chunk: Buffer) => {
          wireBytes += chunk.length;
        });
        const body = res.headers["content-encoding"] === "gzip" ? res.pipe(createGunzip()) : res;
        const finish = (): void => resolve({ ms: performance.now() - started, wireBytes, bytes });
        body.on("data", (chunk: Buffer) => {
          bytes += chunk.length;
          const onLine = options.onLine;
          if (!onLine || aborted) return;
          const text = rest + chunk.toString("latin1");
          const at = performance.now();
          let start = 0;
          let newline = text.indexOf("\n", start);
          while (newline >= 0) {
            if (onLine(text.slice(start, newline), at)) {
              aborted = true;
              req.destroy();
              finish();
              return;
            }
            start = newline + 1;
            newline = text.indexOf("\n", start);
          }
          rest = text.slice(start);
        });
        body.on("end", () => {
          if (!aborted) finish();
        });
        body.on("error", (error) => {
          if (!aborted) reject(error);
        });
      },
    );
    req.setTimeout(300_000, () => req.destroy(new Error(`GET ${url} timed out`)));
    req.on("error", (error) => reject(error));
    req.end();
  });
}

export function percentile(values: readonly number[], p: number): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const index = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[index] as number;
}

/** Reads one label value out of a sample line (values never contain `"` unescaped in our fixtures). */
export function labelValue(line: string, label: string): string | undefined {
  const key = `${label}="`;
  const at = line.indexOf(key);
  if (at < 0) return undefined;
  const start = at + key.length;
  return line.slice(start, line.indexOf('"', start));
}

export function sampleValue(line: string): number {
  return Number(line.slice(line.lastIndexOf(" ") + 1));
}
