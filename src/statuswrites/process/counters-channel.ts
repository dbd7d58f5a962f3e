// The local channel between the API proxy process and the exporter process:
// the proxy serves, over a Unix socket, a snapshot of its status-write
// families (their cumulative values since the proxy process started) and who
// it is; the exporter reads one per scrape. Nothing is pushed, so an exporter
// that is stalled, killed or restarting costs the proxy nothing, and the first
// scrape after an exporter restart reads every write counted meanwhile.
//
// On Linux the socket is in the abstract namespace (no file, so a read-only
// root filesystem is fine; it is shared by the pod's containers like
// loopback, and its name carries random bytes); elsewhere it is a file in the
// temporary directory.
import { rmSync } from "node:fs";
import { createServer, get } from "node:http";
import type { Registry } from "@prometheus-io/client";
import type { Logger } from "../../log.ts";

/** One sample as the client library lists it (getMetricsAsJSON): a histogram's carry metricName and `le`. */
export interface RemoteSample {
  metricName?: string | undefined;
  labels: Record<string, string | number>;
  value: number;
}

export interface RemoteFamily {
  name: string;
  values: RemoteSample[];
}

export interface ProxyCountersSnapshot {
  /** Random per proxy process: a new one is a restarted proxy, whose counters started again from zero. */
  instance: string;
  pid: number;
  /** When the proxy process started (epoch seconds). */
  startTimeSeconds: number;
  /** How often the supervisor restarted the proxy before this process: grows with each new instance. */
  restarts: number;
  /** Grows with each snapshot one instance serves: an answer overtaken by a later one is recognised. */
  sequence: number;
  /** Where the proxy listens. */
  url: string;
  /** The CA of its serving certificate (undefined for plain HTTP). */
  caPem: string | undefined;
  families: RemoteFamily[];
}

/** The address to listen on or connect to for a path from countersSocketPath(). */
export function socketAddress(path: string): string {
  return path.startsWith("@") ? `\0${path.slice(1)}` : path;
}

const isFile = (path: string): boolean => !path.startsWith("@");

/** Largest snapshot read: the series budget (10,000) at about 200 bytes a sample, many times over. */
const maxSnapshotBytes = 32 * 1024 * 1024;

export interface CountersServer {
  close(): Promise<void>;
}

export interface SnapshotSource {
  instance: string;
  startTimeSeconds: number;
  restarts: number;
  url: string;
  caPem: string | undefined;
  registry: Registry;
}

/**
 * Serves `GET /counters` on the socket at `path`. The families are read in one
 * turn of the event loop, so a snapshot never holds half of a write's counts.
 */
export async function serveProxyCounters(
  path: string,
  source: SnapshotSource,
  logger: Logger,
): Promise<CountersServer> {
  let sequence = 0;
  const snapshot = async (): Promise<ProxyCountersSnapshot> => {
    const number = ++sequence;
    const families = await source.registry.getMetricsAsJSON();
    return {
      instance: source.instance,
      pid: process.pid,
      startTimeSeconds: source.startTimeSeconds,
      restarts: source.restarts,
      sequence: number,
      url: source.url,
      caPem: source.caPem,
      families: families.map((family) => ({
        name: family.name,
        values: family.values.map((v) => {
          const named = v as { metricName?: string };
          return {
            metricName: named.metricName,
            labels: v.labels as Record<string, string | number>,
            value: v.value,
          };
        }),
      })),
    };
  };
  const server = createServer((req, res) => {
    if (req.method !== "GET" || req.url !== "/counters") {
      res.writeHead(404).end();
      return;
    }
    snapshot().then(
      (body) => {
        const text = JSON.stringify(body);
        res.writeHead(200, { "Content-Type": "application/json", "Content-Length": Buffer.byteLength(text) });
        res.end(text);
      },
      (error: unknown) => {
        logger.error("reading the status-write counters failed", { error: String(error) });
        res.writeHead(500).end();
      },
    );
  });
  if (isFile(path)) rmSync(path, { force: true });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(socketAddress(path), () => {
      server.off("error", reject);
      resolve();
    });
  });
  return {
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
        if (isFile(path)) rmSync(path, { force: true });
      }),
  };
}

/** Reads one snapshot; rejects when nothing answers within `timeoutMs` or the answer is not a snapshot. */
export function readProxyCounters(path: string, timeoutMs: number): Promise<ProxyCountersSnapshot> {
  return new Promise((resolve, reject) => {
    const req = get(
      { socketPath: socketAddress(path), path: "/counters", agent: false, timeout: timeoutMs },
      (res) => {
        if (res.statusCode !== 200) {
          res.resume();
          reject(new Error(`the API proxy answered HTTP ${res.statusCode}`));
          return;
        }
        const chunks: Buffer[] = [];
        let size = 0;
        res.on("data", (chunk: Buffer) => {
          size += chunk.length;
          if (size > maxSnapshotBytes) {
            req.destroy(new Error(`the API proxy's counters are over ${maxSnapshotBytes} bytes`));
            return;
          }
          chunks.push(chunk);
        });
        res.on("end", () => {
          try {
            resolve(parseSnapshot(JSON.parse(Buffer.concat(chunks).toString("utf8"))));
          } catch (error) {
            reject(error);
          }
        });
        res.on("error", reject);
      },
    );
    req.on("timeout", () => req.destroy(new Error(`the API proxy did not answer within ${timeoutMs} ms`)));
    req.on("error", reject);
  });
}

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value);

function sampleOf(value: unknown): RemoteSample {
  if (
    !isRecord(value) ||
    typeof value.value !== "number" ||
    !Number.isFinite(value.value) ||
    !isRecord(value.labels)
  )
    throw new Error("a sample without a finite value and labels");
  const labels: Record<string, string | number> = {};
  for (const [name, label] of Object.entries(value.labels)) {
    if (typeof label !== "string" && typeof label !== "number")
      throw new Error(`label ${name} is not a value`);
    labels[name] = label;
  }
  if (value.metricName !== undefined && typeof value.metricName !== "string")
    throw new Error("a sample whose metricName is not a string");
  return { metricName: value.metricName, labels, value: value.value };
}

/** The snapshot in `value`, checked field by field (the socket is reachable by the whole pod). */
export function parseSnapshot(value: unknown): ProxyCountersSnapshot {
  if (!isRecord(value)) throw new Error("the counters are not a JSON object");
  const { instance, pid, startTimeSeconds, restarts, sequence, url, caPem, families } = value;
  if (typeof instance !== "string" || typeof url !== "string") throw new Error("no instance or url");
  for (const [name, n] of Object.entries({ pid, startTimeSeconds, restarts, sequence }))
    if (typeof n !== "number" || !Number.isFinite(n)) throw new Error(`${name} is not a number`);
  if (caPem !== undefined && typeof caPem !== "string") throw new Error("caPem is not a string");
  if (!Array.isArray(families)) throw new Error("no families");
  return {
    instance,
    pid: pid as number,
    startTimeSeconds: startTimeSeconds as number,
    restarts: restarts as number,
    sequence: sequence as number,
    url,
    caPem,
    families: families.map((family: unknown) => {
      if (!isRecord(family) || typeof family.name !== "string" || !Array.isArray(family.values))
        throw new Error("a family without a name and values");
      return { name: family.name, values: family.values.map(sampleOf) };
    }),
  };
}
