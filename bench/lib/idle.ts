// Idle memory: what one exporter holds before it has anything to watch, the
// price every sidecar pays. Sampled once /readyz says ready, and again after
// a few seconds of settling (lazy loading and the first GCs are done by then).
import { setTimeout as sleep } from "node:timers/promises";
import { bytesRead, type Subject, sampleProc } from "./proc.ts";

export interface IdleResult {
  /** Spawn → /readyz 200. */
  readySeconds: number;
  rssAtReadyBytes: number;
  /** CPU seconds and bytes read from spawn to ready: what any process pays to start. */
  cpuAtReadySeconds: number;
  bytesReadAtReady: number;
  settleSeconds: number;
  rssSettledBytes: number;
  /** Series on /metrics once settled (self-metrics only: there are no objects). */
  series: number;
}

async function waitForReady(subject: Subject, timeoutMs: number): Promise<number> {
  const readyz = subject.metricsUrl.replace(/\/metrics$/, "/readyz");
  const deadline = performance.now() + timeoutMs;
  let last = "no answer";
  while (performance.now() < deadline) {
    try {
      const response = await fetch(readyz);
      const body = await response.text();
      if (response.status === 200) return (performance.now() - subject.spawnedAt) / 1000;
      last = `${response.status}: ${body.trim()}`;
    } catch (error) {
      last = String(error);
    }
    await sleep(50);
  }
  throw new Error(
    `idle exporter: /readyz not 200 after ${timeoutMs} ms (last: ${last})\n${subject.logTail()}`,
  );
}

/** Measures a started exporter that watches an empty namespace, then stops it. */
export async function measureIdle(subject: Subject, settleSeconds: number): Promise<IdleResult> {
  try {
    const readySeconds = await waitForReady(subject, 60_000);
    const atReady = sampleProc(subject.pid);
    const bytesAtReady = bytesRead(subject.pid);
    await sleep(settleSeconds * 1000);
    const settled = sampleProc(subject.pid);
    const text = await (await fetch(subject.metricsUrl)).text();
    const series = text.split("\n").filter((line) => line !== "" && !line.startsWith("#")).length;
    return {
      readySeconds,
      rssAtReadyBytes: atReady.rssBytes,
      cpuAtReadySeconds: atReady.cpuSeconds,
      bytesReadAtReady: bytesAtReady,
      settleSeconds,
      rssSettledBytes: settled.rssBytes,
      series,
    };
  } finally {
    await subject.stop();
  }
}
