// The machine-readable summary of a run (the `summary` object of
// bench/results/latest.json): ours / KSM ratios per size for the
// equal-information and default subjects, the micro-benchmark rates, our
// event-loop delay, churn growth and idle RSS. A value that was not measured
// (subject skipped, older run) is null, never a guess.
import { cpuPhases, measured, type RunResult, type SizeResult, type SubjectResult } from "./results.ts";

type Value = number | null;

export interface EqualSummary {
  scrape_p50_ratio: Value;
  scrape_p99_ratio: Value;
  gzip_p50_ratio: Value;
  gzip_p99_ratio: Value;
  rss_ratio: Value;
  /** RSS after churn / KSM's after churn: the steady state pods are sized for. */
  rss_after_churn_ratio: Value;
  sync_ratio: Value;
  /** CPU over the whole run / KSM's. */
  cpu_ratio: Value;
  /**
   * CPU over the work both subjects do alike (the sync, the timed scrapes,
   * the churn) / KSM's: the latency phases left out, since there each subject
   * answers as many back-to-back scans as its scrape time allows.
   */
  cpu_same_work_ratio: Value;
}

export interface DefaultSummary {
  scrape_p50_ratio: Value;
  gzip_p50_ratio: Value;
  rss_after_churn_ratio: Value;
  series_per_object: Value;
}

export interface Summary {
  sizes: Record<string, { equal: EqualSummary; default: DefaultSummary }>;
  micro: { events_per_cpu_second: Value; json_parse_per_cpu_second: Value };
  /** Per size: the larger of our two subjects' event-loop max delay during scrapes. */
  event_loop_max_ms: Record<string, Value>;
  /** Per size: the larger of our two subjects' RSS after churn / RSS after sync. */
  rss_churn_growth: Record<string, Value>;
  idle_rss_mib: Value;
}

const finite = (v: unknown): v is number => typeof v === "number" && Number.isFinite(v);

function rounded(v: unknown, digits: number): Value {
  return finite(v) ? Number(v.toFixed(digits)) : null;
}

function ratio(
  ours: SubjectResult | undefined,
  ksm: SubjectResult | undefined,
  pick: (s: SubjectResult) => number,
): Value {
  if (!ours || !ksm) return null;
  const a = pick(ours);
  const b = pick(ksm);
  return finite(a) && finite(b) && b > 0 ? rounded(a / b, 4) : null;
}

/** The larger of the values measured for our subjects (null when none was). */
function worstOfOurs(size: SizeResult, pick: (s: SubjectResult) => number | null): Value {
  const values = [measured(size.subjects.equal), measured(size.subjects.default)]
    .map((s) => (s ? pick(s) : null))
    .filter(finite);
  return values.length > 0 ? Math.max(...values) : null;
}

/** NaN for runs recorded before the phases were sampled: the ratio is then null. */
function cpuWithoutLatencyPhases(s: SubjectResult): number {
  const latency = cpuPhases(s)?.latency;
  return latency === undefined ? Number.NaN : s.cpuTotalSeconds - latency;
}

function sizeSummary(size: SizeResult): { equal: EqualSummary; default: DefaultSummary } {
  const ksm = measured(size.subjects.ksm);
  const equal = measured(size.subjects.equal);
  const deflt = measured(size.subjects.default);
  return {
    equal: {
      scrape_p50_ratio: ratio(equal, ksm, (s) => s.scrape.p50Ms),
      scrape_p99_ratio: ratio(equal, ksm, (s) => s.scrape.p99Ms),
      gzip_p50_ratio: ratio(equal, ksm, (s) => s.scrape.gzipP50Ms),
      gzip_p99_ratio: ratio(equal, ksm, (s) => s.scrape.gzipP99Ms),
      rss_ratio: ratio(equal, ksm, (s) => s.rssAfterSyncBytes),
      rss_after_churn_ratio: ratio(equal, ksm, (s) => s.rssAfterChurnBytes),
      sync_ratio: ratio(equal, ksm, (s) => s.syncSeconds),
      cpu_ratio: ratio(equal, ksm, (s) => s.cpuTotalSeconds),
      cpu_same_work_ratio: ratio(equal, ksm, cpuWithoutLatencyPhases),
    },
    default: {
      scrape_p50_ratio: ratio(deflt, ksm, (s) => s.scrape.p50Ms),
      gzip_p50_ratio: ratio(deflt, ksm, (s) => s.scrape.gzipP50Ms),
      rss_after_churn_ratio: ratio(deflt, ksm, (s) => s.rssAfterChurnBytes),
      series_per_object: rounded(deflt?.scrape.seriesPerObject, 2),
    },
  };
}

export function summarize(run: RunResult): Summary {
  const bySize = (value: (size: SizeResult) => Value): Record<string, Value> =>
    Object.fromEntries(run.sizes.map((size) => [String(size.objects), value(size)]));
  const idle = measured(run.idle);
  return {
    sizes: Object.fromEntries(run.sizes.map((size) => [String(size.objects), sizeSummary(size)])),
    micro: {
      events_per_cpu_second: rounded(run.micro?.events.ingestEventsPerCoreSecond, 0),
      json_parse_per_cpu_second: rounded(run.micro?.events.parseOnlyEventsPerCoreSecond, 0),
    },
    event_loop_max_ms: bySize((size) =>
      rounded(
        worstOfOurs(size, (s) => s.scrape.eventLoopMaxDelayMs),
        1,
      ),
    ),
    rss_churn_growth: bySize((size) =>
      rounded(
        worstOfOurs(size, (s) => s.rssAfterChurnBytes / s.rssAfterSyncBytes),
        3,
      ),
    ),
    idle_rss_mib: rounded(idle ? idle.rssSettledBytes / 1048576 : undefined, 1),
  };
}
