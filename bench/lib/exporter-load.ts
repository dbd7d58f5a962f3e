// The exporter's heaviest inputs, generated on a thread of their own so that
// the thread which times requests (bench/proxy-latency.ts) is not stalled by
// the load it generates: /metrics scraped back to back with 100 parallel
// /api/v1/summary requests in a loop, and/or four audit batches posted at once
// in a loop (429 retried after its Retry-After, as the apiserver's webhook
// does). Started with workerData { metricsUrl, audit?, batchBytes, namespace,
// loads }; stops on any message and posts back what it did, counted.
import https from "node:https";
import { parentPort, Worker, workerData } from "node:worker_threads";
import { bigAuditBatch, postAuditBatch } from "../../test/support/audit-batch.ts";

export type LoadName = "scrapes-and-summaries" | "audit-batches";

export interface AuditTarget {
  url: string;
  token: string;
  ca: string;
}

interface LoadOptions {
  metricsUrl: string;
  audit: AuditTarget;
  batchBytes: number;
  namespace: string;
  loads: LoadName[];
}

/** Runs `step` in a loop until `running()` is false, counting the steps that completed. */
export async function loop(running: () => boolean, step: () => Promise<unknown>): Promise<number> {
  let count = 0;
  while (running()) {
    await step();
    count++;
  }
  return count;
}

async function generate(options: LoadOptions, running: () => boolean): Promise<Record<string, number>> {
  const runs: Promise<[string, number]>[] = [];
  const counted = (name: string, step: () => Promise<unknown>) =>
    runs.push(loop(running, step).then((n) => [name, n]));
  if (options.loads.includes("scrapes-and-summaries")) {
    counted("scrapes", async () => (await fetch(`${options.metricsUrl}/metrics`)).arrayBuffer());
    counted("summaries", () =>
      Promise.all(
        Array.from({ length: 100 }, async () =>
          (await fetch(`${options.metricsUrl}/api/v1/summary`)).arrayBuffer(),
        ),
      ),
    );
  }
  if (options.loads.includes("audit-batches")) {
    const { body } = bigAuditBatch(options.batchBytes, options.namespace);
    const agent = new https.Agent({ keepAlive: true, ca: options.audit.ca });
    for (let i = 0; i < 4; i++)
      counted("audit batches", async () => {
        for (;;) {
          const { status, retryAfter } = await postAuditBatch(
            options.audit.url,
            options.audit.token,
            agent,
            body,
          );
          if (status === 200) return;
          if (status !== 429) throw new Error(`audit batch answered ${status}`);
          await new Promise((resolve) => setTimeout(resolve, Number(retryAfter ?? 1) * 1000));
        }
      });
  }
  const counts: Record<string, number> = {};
  for (const [name, n] of await Promise.all(runs)) counts[name] = (counts[name] ?? 0) + n;
  return counts;
}

/** Starts the loads on a worker thread; stop() ends them and resolves with their counts. */
export function startLoad(options: LoadOptions): { stop(): Promise<Record<string, number>> } {
  const worker = new Worker(new URL(import.meta.url), { workerData: options });
  const result = new Promise<Record<string, number>>((resolve, reject) => {
    worker.once("message", resolve);
    worker.once("error", reject);
  });
  return {
    async stop() {
      worker.postMessage("stop");
      const counts = await result;
      await worker.terminate();
      return counts;
    },
  };
}

if (parentPort) {
  const port = parentPort;
  let running = true;
  port.once("message", () => {
    running = false;
  });
  port.postMessage(await generate(workerData as LoadOptions, () => running));
}
