// The raw result of one benchmark run, as written to bench/results/*.json,
// and the upgrade of older files (schema 1: one "ours" subject, which was
// the default set of its day) so that reports and the chart read every run.
import type { MemoryBreakdown } from "./heap-report.ts";
import type { IdleResult } from "./idle.ts";
import type { LatencyStats } from "./measure.ts";
import type { EventBench, WriteBench } from "./micro.ts";
import type { ScrapeStats } from "./scrape-stats.ts";
import type { SubjectId, SubjectSpec } from "./subjects.ts";

export interface SubjectResult {
  syncSeconds: number;
  syncPolls: number;
  rssAfterSyncBytes: number;
  cpuAfterSyncSeconds: number;
  scrape: ScrapeStats;
  latency: LatencyStats[];
  churn: { seconds: number; rate: number; patches: number };
  rssAfterChurnBytes: number;
  cpuTotalSeconds: number;
  /** CPU seconds when the scrapes, then the latency phases, ended (runs before 2026-12-07T22 did not sample them). */
  cpuAfterScrapesSeconds?: number;
  cpuAfterLatencySeconds?: number;
  /** Ours only: the heap by space and the memory outside it, at the two RSS samples. */
  memoryAfterSync?: MemoryBreakdown;
  memoryAfterChurn?: MemoryBreakdown;
}

/**
 * A subject's CPU seconds in the timed scrapes, the latency phases and the
 * rest of the churn (undefined for runs that did not sample the phases).
 */
export function cpuPhases(s: SubjectResult): { scrapes: number; latency: number; rest: number } | undefined {
  const { cpuAfterSyncSeconds: sync, cpuAfterScrapesSeconds: scrapes, cpuAfterLatencySeconds: latency } = s;
  if (scrapes === undefined || latency === undefined) return undefined;
  return { scrapes: scrapes - sync, latency: latency - scrapes, rest: s.cpuTotalSeconds - latency };
}

/** A subject that did not run, and why. */
export interface Skipped {
  skipped: string;
}

export type Outcome<T> = T | Skipped;

export function measured<T extends object>(outcome: Outcome<T> | undefined): T | undefined {
  return outcome === undefined || "skipped" in outcome ? undefined : outcome;
}

export interface SizeResult {
  objects: number;
  createSeconds: number;
  subjects: Partial<Record<SubjectId, Outcome<SubjectResult>>>;
}

export interface RunResult {
  schema: 2;
  startedAt: string;
  finishedAt: string;
  machine: { cpus: number; cpuModel: string; node: string; kernel: string };
  options: Record<string, unknown>;
  ksmVersion: string;
  objectBytes: number;
  /** What ran, with the exact config files. */
  subjects: SubjectSpec[];
  /** Our exporter with a sidecar config (`config`) and nothing to watch. */
  idle?: Outcome<IdleResult & { config: string }>;
  sizes: SizeResult[];
  micro?: { events: EventBench; write: WriteBench[] };
}

interface RunResultV1 extends Omit<RunResult, "schema" | "subjects" | "idle" | "sizes"> {
  schema: 1;
  sizes: {
    objects: number;
    createSeconds: number;
    subjects: { ours?: SubjectResult; ksm?: SubjectResult };
  }[];
}

/** Fields that schema 1 did not record; NaN reads as "not measured" (null in JSON). */
function upgradeScrape(s: ScrapeStats, isOurs: boolean): ScrapeStats {
  return {
    ...s,
    gzipScrapes: s.gzipScrapes ?? 5,
    gzipP99Ms: s.gzipP99Ms ?? Number.NaN,
    gzipMaxMs: s.gzipMaxMs ?? Number.NaN,
    objectSeries: s.objectSeries ?? Number.NaN,
    bytesPerSeries: s.bytesPerSeries ?? s.bytes / s.series,
    families: s.families ?? {},
    eventLoopMetric: s.eventLoopMetric ?? (isOurs ? "nodejs_eventloop_lag_max_seconds" : null),
    controlEventLoopMaxDelayMs: s.controlEventLoopMaxDelayMs ?? null,
    controlEventLoopMaxDelayPerScrapeMs: s.controlEventLoopMaxDelayPerScrapeMs ?? [],
  };
}

function upgradeSubject(s: SubjectResult | undefined, isOurs: boolean): SubjectResult | undefined {
  return s && { ...s, scrape: upgradeScrape(s.scrape, isOurs) };
}

/** Any stored run in the current shape. */
export function upgradeRun(raw: RunResult | RunResultV1): RunResult {
  if (raw.schema === 2) return raw;
  return {
    ...raw,
    schema: 2,
    options: { ...raw.options, gzipScrapes: 5 },
    subjects: [
      { id: "ksm", label: "KSM", program: "ksm", config: "" },
      { id: "default", label: "ours, default set", program: "ours", config: "" },
    ],
    sizes: raw.sizes.map((size) => ({
      objects: size.objects,
      createSeconds: size.createSeconds,
      subjects: {
        ksm: upgradeSubject(size.subjects.ksm, false),
        // Schema 1's seriesPerObject counted every line, self-metrics included.
        default: upgradeSubject(size.subjects.ours, true),
      },
    })),
  };
}
