// Fetches a group/version's discovery document with the exporter's own
// identity. Discovery is readable by every authenticated user
// (system:discovery), so no extra RBAC is needed. This is a separate client:
// the API proxy never adds these credentials to forwarded requests.
import { readFile } from "node:fs/promises";
import { Agent, request } from "node:https";
import type { ApiResourceList, ResourceListFetcher } from "./kinds.ts";

export interface DiscoveryFetcherOptions {
  server: string;
  caPem?: string | undefined;
  /** A bearer token, or a file holding one (re-read on every fetch: projected tokens rotate). */
  token?: string | undefined;
  tokenFile?: string | undefined;
  timeoutMs?: number;
}

const maxDiscoveryBytes = 4 * 1024 * 1024;

export function createDiscoveryFetcher(options: DiscoveryFetcherOptions): ResourceListFetcher {
  const agent = new Agent({ ca: options.caPem, keepAlive: true, maxSockets: 2 });
  return async (group, version) => {
    const token = options.tokenFile ? (await readFile(options.tokenFile, "utf8")).trim() : options.token;
    const path = group === "" ? `/api/${version}` : `/apis/${group}/${version}`;
    const url = new URL(path, options.server);
    const headers: Record<string, string> = { Accept: "application/json" };
    if (token) headers.Authorization = `Bearer ${token}`;
    return new Promise<ApiResourceList>((resolve, reject) => {
      const req = request(url, { headers, agent, timeout: options.timeoutMs ?? 10_000 }, (res) => {
        const chunks: Buffer[] = [];
        let size = 0;
        res.on("data", (chunk: Buffer) => {
          size += chunk.length;
          if (size > maxDiscoveryBytes) {
            req.destroy(new Error(`discovery ${path} is larger than ${maxDiscoveryBytes} bytes`));
            return;
          }
          chunks.push(chunk);
        });
        res.on("error", reject);
        res.on("end", () => {
          if (res.statusCode !== 200) {
            reject(new Error(`discovery ${path} answered ${res.statusCode}`));
            return;
          }
          try {
            resolve(JSON.parse(Buffer.concat(chunks).toString("utf8")) as ApiResourceList);
          } catch (error) {
            reject(new Error(`discovery ${path} is not JSON: ${String(error)}`));
          }
        });
      });
      req.on("timeout", () => req.destroy(new Error(`discovery ${path} timed out`)));
      req.on("error", reject);
      req.end();
    });
  };
}
