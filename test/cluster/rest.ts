// A small HTTPS client for the test control plane. Tests need exact status
// codes and every patch type (merge, JSON, apply), so it speaks REST directly
// instead of going through a generated client.
import { Agent, request } from "node:https";
import { jsonOrText, readBody } from "../../src/net/http-body.ts";

const maxBodyBytes = 256 * 1024 * 1024;

export type PatchType = "merge" | "json" | "strategic" | "apply";

const patchContentTypes: Record<PatchType, string> = {
  merge: "application/merge-patch+json",
  json: "application/json-patch+json",
  strategic: "application/strategic-merge-patch+json",
  apply: "application/apply-patch+yaml",
};

export interface RestResponse<T = unknown> {
  status: number;
  body: T;
}

/** A Kubernetes `Status` body, as returned with every error. */
export interface KubeStatus {
  kind?: string;
  status?: string;
  reason?: string;
  message?: string;
  code?: number;
}

export class KubeRestError extends Error {
  readonly status: number;
  readonly body: unknown;
  constructor(method: string, path: string, status: number, body: unknown) {
    const reason = (body as KubeStatus | undefined)?.message ?? JSON.stringify(body);
    super(`${method} ${path} → ${status}: ${reason}`);
    this.status = status;
    this.body = body;
  }
}

export interface RestOptions {
  contentType?: string;
  query?: Record<string, string | number | boolean | undefined>;
}

export class RestClient {
  readonly server: string;
  readonly #token: string | undefined;
  readonly #agent: Agent;

  constructor(server: string, caPem: string, token: string | undefined) {
    this.server = server;
    this.#token = token;
    this.#agent = new Agent({ ca: caPem, keepAlive: true, maxSockets: 16 });
  }

  /** Sends one request and resolves with whatever status comes back. */
  raw<T = unknown>(
    method: string,
    path: string,
    body?: unknown,
    options: RestOptions = {},
  ): Promise<RestResponse<T>> {
    const url = new URL(path, this.server);
    for (const [key, value] of Object.entries(options.query ?? {})) {
      if (value !== undefined) url.searchParams.set(key, String(value));
    }
    const payload = body === undefined ? undefined : typeof body === "string" ? body : JSON.stringify(body);
    const headers: Record<string, string> = { Accept: "application/json" };
    if (this.#token) headers.Authorization = `Bearer ${this.#token}`;
    if (payload !== undefined) {
      headers["Content-Type"] = options.contentType ?? "application/json";
      headers["Content-Length"] = String(Buffer.byteLength(payload));
    }
    return new Promise((resolve, reject) => {
      const req = request(url, { method, headers, agent: this.#agent, timeout: 30_000 }, (res) => {
        readBody(res, maxBodyBytes).then(
          (body) => resolve({ status: res.statusCode ?? 0, body: jsonOrText(body) as T }),
          reject,
        );
      });
      req.on("timeout", () => req.destroy(new Error(`${method} ${url.pathname} timed out`)));
      req.on("error", reject);
      if (payload !== undefined) req.write(payload);
      req.end();
    });
  }

  /** Like raw(), but throws KubeRestError on any status outside 2xx. */
  async call<T = unknown>(
    method: string,
    path: string,
    body?: unknown,
    options: RestOptions = {},
  ): Promise<T> {
    const response = await this.raw<T>(method, path, body, options);
    if (response.status < 200 || response.status >= 300) {
      throw new KubeRestError(method, path, response.status, response.body);
    }
    return response.body;
  }

  get<T = unknown>(path: string, options?: RestOptions): Promise<T> {
    return this.call<T>("GET", path, undefined, options);
  }

  create<T = unknown>(path: string, body: unknown): Promise<T> {
    return this.call<T>("POST", path, body);
  }

  replace<T = unknown>(path: string, body: unknown): Promise<T> {
    return this.call<T>("PUT", path, body);
  }

  patch<T = unknown>(
    path: string,
    body: unknown,
    type: PatchType = "merge",
    query?: RestOptions["query"],
  ): Promise<T> {
    const options: RestOptions = { contentType: patchContentTypes[type] };
    if (query) options.query = query;
    return this.call<T>("PATCH", path, body, options);
  }

  delete<T = unknown>(path: string): Promise<T> {
    return this.call<T>("DELETE", path);
  }

  close(): void {
    this.#agent.destroy();
  }
}

export { patchContentTypes };
