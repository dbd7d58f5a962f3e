// What is measured for each program under test, phase by phase: initial sync,
// event→metric latency under a given rate of status patches, and churn (the
// scrapes are in scrape-stats.ts). Every loop is bounded in time.
import { request as httpsRequest } from "node:https";
import { setTimeout as sleep } from "node:timers/promises";
import { RestClient } from "../../test/cluster/index.ts";
import { type Fleet, widgetPath, widgetStatus } from "./fleet.ts";
import { type Subject, sampleProc } from "./proc.ts";
import { labelValue, percentile, sampleValue, scrape } from "./scrape.ts";

/**
 * Status patches over several keep-alive clients (each holds at most 16
 * sockets), so the sender is not what limits the rate.
 */
export class Patcher {
  readonly #clients: RestClient[];
  readonly server: string;
  readonly caPem: string;
  readonly token: string;
  #next = 0;
  constructor(server: string, caPem: string, token: string, clients = 4) {
    this.server = server;
    this.caPem = caPem;
    this.token = token;
    this.#clients = Array.from({ length: clients }, () => new RestClient(server, caPem, token));
  }
  patchStatus(path: string, status: unknown): Promise<unknown> {
    const client = this.#clients[this.#next++ % this.#clients.length] as RestClient;
    return client.patch(path, { status }, "merge");
  }
  close(): void {
    for (const c of this.#clients) c.close();
  }
}

export interface SyncResult {
  seconds: number;
  polls: number;
}

/**
 * A line of the condition family that states the object's current Ready
 * status: one per object whether the family is one-hot over
 * True/False/Unknown (the others are 0) or carries the current status only.
 */
function currentReadyLine(subject: Subject, line: string): boolean {
  return line.startsWith(subject.conditionLine) && line.includes('type="Ready"') && sampleValue(line) === 1;
}

/** Polls /metrics (one full scrape, then `pauseMs`) until every object's Ready status is in it. */
export async function waitForSync(
  subject: Subject,
  expected: number,
  timeoutMs: number,
  pauseMs = 250,
): Promise<SyncResult> {
  const deadline = performance.now() + timeoutMs;
  let polls = 0;
  let last = -1;
  while (performance.now() < deadline) {
    polls++;
    try {
      last = 0;
      await scrape(subject.metricsUrl, {
        onLine: (line) => {
          if (currentReadyLine(subject, line)) last++;
          return undefined;
        },
      });
      if (last >= expected) return { seconds: (performance.now() - subject.spawnedAt) / 1000, polls };
    } catch {
      // not serving yet
    }
    await sleep(pauseMs);
  }
  throw new Error(
    `${subject.id}: /metrics showed ${last} of ${expected} objects after ${timeoutMs} ms\n${subject.logTail()}`,
  );
}

export interface LatencyStats {
  targetRate: number;
  achievedRate: number;
  patches: number;
  patchErrors: number;
  samples: number;
  missed: number;
  p50Ms: number;
  p99Ms: number;
  maxMs: number;
  /** Median duration of one scan of the first family: the resolution of the measurement. */
  scanP50Ms: number;
  /**
   * The apiserver's own share: from the answer to a probe patch to the
   * harness's own watch delivering that resourceVersion (≤ 0 counts as 0).
   */
  watchDeliveryP50Ms: number;
  watchDeliveryP99Ms: number;
}

/** Arrival times of watch events (by resourceVersion) for the widgets of one namespace. */
export function watchArrivals(
  server: string,
  caPem: string,
  token: string,
  namespace: string,
): { arrivals: Map<string, number>; stop(): void } {
  const arrivals = new Map<string, number>();
  const url = new URL(`${widgetPath(namespace)}?watch=true`, server);
  const req = httpsRequest(url, { headers: { Authorization: `Bearer ${token}` }, ca: caPem }, (res) => {
    let rest = "";
    res.on("data", (chunk: Buffer) => {
      const at = performance.now();
      const text = rest + chunk.toString("utf8");
      const lines = text.split("\n");
      rest = lines.pop() ?? "";
      for (const line of lines) {
        if (!line) continue;
        const rv = (JSON.parse(line) as { object?: { metadata?: { resourceVersion?: string } } }).object
          ?.metadata?.resourceVersion;
        if (rv) arrivals.set(rv, at);
      }
    });
    res.on("error", () => undefined);
  });
  req.on("error", () => undefined);
  req.end();
  return { arrivals, stop: () => req.destroy() };
}

interface Probe {
  namespace: string;
  name: string;
  ready: boolean;
  pending: { expectReady: boolean; acceptedAt: number } | undefined;
}

/** The objects that come first in the apiserver's list order (the first namespace, the lowest names). */
export function probeObjects(fleet: Fleet, count: number): [string, string][] {
  const firstNamespace = [...fleet.namespaces].sort()[0];
  return fleet.objects
    .filter(([ns]) => ns === firstNamespace)
    .sort((a, b) => a[1].localeCompare(b[1]))
    .slice(0, count);
}

/**
 * Sends status patches at `rate`/s for `seconds`: every tenth flips Ready on a
 * probe object, the rest rewrite a random widget's status. Meanwhile /metrics
 * is scanned back to back (the first family only, stopping once every probe
 * was seen); a probe patch's latency runs from the apiserver's response to the
 * first scan line that shows the new status.
 */
export async function measureEventLatency(
  subject: Subject,
  rest: Patcher,
  fleet: Fleet,
  rate: number,
  seconds: number,
  state: { flip: number; generation: number },
): Promise<LatencyStats> {
  const probes: Probe[] = probeObjects(fleet, 10).map(([namespace, name]) => ({
    namespace,
    name,
    ready: true,
    pending: undefined,
  }));
  const byName = new Map(probes.map((p) => [`${p.namespace}/${p.name}`, p]));
  const others = fleet.objects.filter(([ns, n]) => !byName.has(`${ns}/${n}`));
  const latencies: number[] = [];
  const accepted = new Map<string, number>();
  const watch = watchArrivals(rest.server, rest.caPem, rest.token, (probes[0] as Probe).namespace);
  let patches = 0;
  let patchErrors = 0;
  let sent = 0;
  let stopping = false;
  let probeTurn = 0;
  const inflight = new Set<Promise<void>>();

  // Learn the probes' current Ready status first, from the subject itself.
  await scanFirstFamily(
    subject,
    (namespace, name, ready) => {
      const probe = byName.get(`${namespace}/${name}`);
      if (probe) probe.ready = ready;
      return probe !== undefined;
    },
    probes.length,
  );

  const sendOne = (): void => {
    sent++;
    let probe: Probe | undefined;
    if (sent % 10 === 0) {
      for (let k = 0; k < probes.length && !probe; k++) {
        const candidate = probes[(probeTurn + k) % probes.length] as Probe;
        if (!candidate.pending) probe = candidate;
      }
      probeTurn++;
    }
    if (probe) {
      const expectReady = !probe.ready;
      const status = widgetStatus(0, state.generation, 0);
      for (const c of status.conditions) if (c.type === "Ready") c.status = expectReady ? "True" : "False";
      const target = probe;
      const work = rest
        .patchStatus(widgetPath(probe.namespace, probe.name, true), status)
        .then((object) => {
          patches++;
          const acceptedAt = performance.now();
          target.ready = expectReady;
          target.pending = { expectReady, acceptedAt };
          const rv = (object as { metadata?: { resourceVersion?: string } }).metadata?.resourceVersion;
          if (rv) accepted.set(rv, acceptedAt);
        })
        .catch(() => {
          patchErrors++;
        });
      track(work);
      return;
    }
    const [namespace, name] = others[Math.floor(Math.random() * others.length)] as [string, string];
    state.flip++;
    const work = rest
      .patchStatus(widgetPath(namespace, name, true), widgetStatus(Number(name.slice(7)), 1, state.flip))
      .then(() => {
        patches++;
      })
      .catch(() => {
        patchErrors++;
      });
    track(work);
  };
  function track(work: Promise<void>): void {
    inflight.add(work);
    void work.finally(() => inflight.delete(work));
  }

  const scanTimes: number[] = [];
  const scanner = (async () => {
    const quietUntil = () => stopping && probes.every((p) => !p.pending);
    const giveUpAt = () => (stopping ? stopAt + 10_000 : Number.POSITIVE_INFINITY);
    while (!quietUntil() && performance.now() < giveUpAt()) {
      const started = performance.now();
      await scanFirstFamily(
        subject,
        (namespace, name, ready, at) => {
          const probe = byName.get(`${namespace}/${name}`);
          if (probe?.pending && ready === probe.pending.expectReady) {
            latencies.push(at - probe.pending.acceptedAt);
            probe.pending = undefined;
          }
          return probe !== undefined;
        },
        probes.length,
      ).catch(() => undefined);
      scanTimes.push(performance.now() - started);
    }
  })();

  const started = performance.now();
  let stopAt = started + seconds * 1000;
  // Pace by the clock: every 10 ms send what is due, bounded in-flight.
  while (performance.now() < stopAt) {
    const due = Math.floor(((performance.now() - started) / 1000) * rate);
    while (sent < due && inflight.size < 64) sendOne();
    await sleep(10);
  }
  const elapsed = (performance.now() - started) / 1000;
  await Promise.all([...inflight]);
  stopping = true;
  stopAt = performance.now();
  await scanner;
  const missed = probes.filter((p) => p.pending).length;
  watch.stop();
  const deliveries: number[] = [];
  for (const [rv, acceptedAt] of accepted) {
    const arrived = watch.arrivals.get(rv);
    if (arrived !== undefined) deliveries.push(Math.max(0, arrived - acceptedAt));
  }
  return {
    targetRate: rate,
    achievedRate: patches / elapsed,
    patches,
    patchErrors,
    samples: latencies.length,
    missed,
    p50Ms: percentile(latencies, 50),
    p99Ms: percentile(latencies, 99),
    maxMs: latencies.length ? Math.max(...latencies) : Number.NaN,
    scanP50Ms: percentile(scanTimes, 50),
    watchDeliveryP50Ms: percentile(deliveries, 50),
    watchDeliveryP99Ms: percentile(deliveries, 99),
  };
}

/**
 * Reads /metrics up to the end of the condition family, reporting each object's
 * current Ready status as (namespace, name, ready, time); stops early once
 * `seen` claimed `stopAfter` distinct objects (the probes). Lines with value 0
 * (the other states of a one-hot family) say nothing about the current one.
 */
async function scanFirstFamily(
  subject: Subject,
  seen: (namespace: string, name: string, ready: boolean, at: number) => boolean,
  stopAfter: number,
): Promise<void> {
  let inFamily = false;
  const reported = new Set<string>();
  await scrape(subject.metricsUrl, {
    onLine: (line, at) => {
      if (line.startsWith(subject.conditionLine)) {
        inFamily = true;
        if (!currentReadyLine(subject, line)) return undefined;
        const namespace = labelValue(line, "namespace") ?? "";
        const name = labelValue(line, "name") ?? "";
        if (seen(namespace, name, labelValue(line, "status") === "True", at))
          reported.add(`${namespace}/${name}`);
        return reported.size >= stopAfter;
      }
      if (line.startsWith("#")) return undefined;
      return inFamily;
    },
  });
}

export interface Churn {
  rate: number;
  seconds: number;
  patches: number;
}

/** Plain churn: random status rewrites at `rate`/s for `seconds`. */
export async function churn(
  rest: Patcher,
  fleet: Fleet,
  rate: number,
  seconds: number,
  state: { flip: number },
): Promise<Churn> {
  const started = performance.now();
  const stopAt = started + seconds * 1000;
  let sent = 0;
  let patches = 0;
  const inflight = new Set<Promise<void>>();
  while (performance.now() < stopAt) {
    const due = Math.floor(((performance.now() - started) / 1000) * rate);
    while (sent < due && inflight.size < 64) {
      sent++;
      const [namespace, name] = fleet.objects[Math.floor(Math.random() * fleet.objects.length)] as [
        string,
        string,
      ];
      state.flip++;
      const work = rest
        .patchStatus(widgetPath(namespace, name, true), widgetStatus(Number(name.slice(7)), 1, state.flip))
        .then(
          () => {
            patches++;
          },
          () => undefined,
        );
      inflight.add(work);
      void work.finally(() => inflight.delete(work));
    }
    await sleep(10);
  }
  await Promise.all([...inflight]);
  return { rate, seconds, patches };
}

export { sampleProc };
