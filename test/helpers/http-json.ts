// A JSON client for talking to the API proxy the way an operator in the same
// pod does (bearer token, keep-alive, https trusting the proxy's CA), plus a
// streaming watch.
import { Agent as HttpAgent, request as httpRequest, type IncomingMessage } from "node:http";
import { Agent as HttpsAgent, request as httpsRequest, type RequestOptions } from "node:https";
import { jsonOrText, readBody } from "../../src/net/http-body.ts";

const maxBodyBytes = 64 * 1024 * 1024;

export interface HttpResponse<T = unknown> {
  status: number;
  body: T;
  /** True when the request went over a kept-alive connection. */
  reusedSocket: boolean;
}

/** http or https by the URL's scheme; https trusts `caPem` (the system CAs when undefined). */
function send(url: URL, caPem: string | undefined, options: RequestOptions) {
  return url.protocol === "https:" ? httpsRequest(url, { ca: caPem, ...options }) : httpRequest(url, options);
}

export class HttpJsonClient {
  readonly base: string;
  readonly #token: string | undefined;
  readonly #caPem: string | undefined;
  readonly agent: HttpAgent;

  constructor(base: string, token: string | undefined, caPem?: string) {
    this.base = base;
    this.#token = token;
    this.#caPem = caPem;
    this.agent = base.startsWith("https:")
      ? new HttpsAgent({ keepAlive: true, maxSockets: 1, ca: caPem })
      : new HttpAgent({ keepAlive: true, maxSockets: 1 });
  }

  send<T = unknown>(
    method: string,
    path: string,
    body?: unknown,
    contentType = "application/json",
  ): Promise<HttpResponse<T>> {
    const payload = body === undefined ? undefined : JSON.stringify(body);
    const headers: Record<string, string> = { Accept: "application/json" };
    if (this.#token) headers.Authorization = `Bearer ${this.#token}`;
    if (payload !== undefined) {
      headers["Content-Type"] = contentType;
      headers["Content-Length"] = String(Buffer.byteLength(payload));
    }
    return new Promise((resolve, reject) => {
      const req = send(new URL(path, this.base), this.#caPem, {
        method,
        headers,
        agent: this.agent,
        timeout: 30_000,
      });
      req.on("response", (res) => {
        readBody(res, maxBodyBytes).then((raw) => {
          const body = jsonOrText(raw) as T;
          resolve({ status: res.statusCode ?? 0, body, reusedSocket: req.reusedSocket });
        }, reject);
      });
      req.on("timeout", () => req.destroy(new Error(`${method} ${path} timed out`)));
      req.on("error", reject);
      req.end(payload);
    });
  }

  close(): void {
    this.agent.destroy();
  }
}

export interface WatchEvent {
  type: string;
  object: {
    metadata?: { name?: string; resourceVersion?: string; generation?: number };
    status?: Record<string, unknown>;
  };
}

export interface WatchStream {
  status: number;
  events: WatchEvent[];
  /** Resolves once an event matching `predicate` has arrived. */
  waitFor(predicate: (event: WatchEvent) => boolean, timeoutMs: number): Promise<WatchEvent>;
  close(): void;
}

/** Opens a watch and collects its events as they stream in. */
export function openWatch(base: string, path: string, token: string, caPem?: string): Promise<WatchStream> {
  return new Promise((resolve, reject) => {
    const req = send(new URL(path, base), caPem, {
      headers: { Authorization: `Bearer ${token}` },
      agent: false,
    });
    // Until the response starts: a proxy that never answers fails the test instead of hanging it.
    req.setTimeout(30_000, () => req.destroy(new Error(`watch ${path}: no response in 30 s`)));
    req.on("error", reject);
    req.on("response", (res: IncomingMessage) => {
      req.setTimeout(0);
      const events: WatchEvent[] = [];
      const waiters: { predicate: (e: WatchEvent) => boolean; resolve: (e: WatchEvent) => void }[] = [];
      let buffered = "";
      res.setEncoding("utf8");
      res.on("data", (chunk: string) => {
        buffered += chunk;
        let newline = buffered.indexOf("\n");
        while (newline !== -1) {
          const line = buffered.slice(0, newline).trim();
          buffered = buffered.slice(newline + 1);
          newline = buffered.indexOf("\n");
          if (!line) continue;
          const event = JSON.parse(line) as WatchEvent;
          events.push(event);
          for (const waiter of [...waiters]) {
            if (waiter.predicate(event)) {
              waiters.splice(waiters.indexOf(waiter), 1);
              waiter.resolve(event);
            }
          }
        }
      });
      res.on("error", () => {});
      resolve({
        status: res.statusCode ?? 0,
        events,
        waitFor(predicate, timeoutMs) {
          const seen = events.find(predicate);
          if (seen) return Promise.resolve(seen);
          return new Promise((resolveEvent, rejectEvent) => {
            const timer = setTimeout(
              () => rejectEvent(new Error(`no matching watch event in ${timeoutMs} ms`)),
              timeoutMs,
            );
            waiters.push({
              predicate,
              resolve: (event) => {
                clearTimeout(timer);
                resolveEvent(event);
              },
            });
          });
        },
        close: () => req.destroy(),
      });
    });
    req.end();
  });
}
