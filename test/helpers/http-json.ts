// A plain-HTTP JSON client for talking to the API proxy the way an operator
// in the same pod does (bearer token, keep-alive), plus a streaming watch.
import { Agent, type IncomingMessage, request } from "node:http";
import { jsonOrText, readBody } from "../../src/net/http-body.ts";

const maxBodyBytes = 64 * 1024 * 1024;

export interface HttpResponse<T = unknown> {
  status: number;
  body: T;
  /** True when the request went over a kept-alive connection. */
  reusedSocket: boolean;
}

export class HttpJsonClient {
  readonly base: string;
  readonly #token: string | undefined;
  readonly agent: Agent;

  constructor(base: string, token: string | undefined) {
    this.base = base;
    this.#token = token;
    this.agent = new Agent({ keepAlive: true, maxSockets: 1 });
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
      const req = request(
        new URL(path, this.base),
        { method, headers, agent: this.agent, timeout: 30_000 },
        (res) => {
          readBody(res, maxBodyBytes).then((raw) => {
            const body = jsonOrText(raw) as T;
            resolve({ status: res.statusCode ?? 0, body, reusedSocket: req.reusedSocket });
          }, reject);
        },
      );
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
  object: { metadata?: { name?: string; resourceVersion?: string }; status?: Record<string, unknown> };
}

export interface WatchStream {
  status: number;
  events: WatchEvent[];
  /** Resolves once an event matching `predicate` has arrived. */
  waitFor(predicate: (event: WatchEvent) => boolean, timeoutMs: number): Promise<WatchEvent>;
  close(): void;
}

/** Opens a watch and collects its events as they stream in. */
export function openWatch(base: string, path: string, token: string): Promise<WatchStream> {
  return new Promise((resolve, reject) => {
    const req = request(new URL(path, base), { headers: { Authorization: `Bearer ${token}` }, agent: false });
    req.on("error", reject);
    req.on("response", (res: IncomingMessage) => {
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
