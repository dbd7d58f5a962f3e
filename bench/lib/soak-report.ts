// Judging and drawing a soak run (pure: no I/O). RSS is sampled every few
// seconds and saws up and down with garbage collection (by 100 MiB and more
// under 100 writes/s), so what is compared is the floor: the lowest RSS of the
// first tenth of the run after the warm-up (the baseline) and of the last
// tenth (the end). Memory that is kept raises the floor; a high-water mark
// that depends on when the collector ran does not. The run passes when the end
// is less than 5 % above the baseline. Medians of both windows are reported
// too.

export interface SoakSample {
  /** Seconds since the writes started. */
  t: number;
  rssBytes: number;
  cpuSeconds: number;
}

export interface SoakJudgement {
  warmupSeconds: number;
  /** Lowest RSS in the first tenth after the warm-up. */
  baselineMiB: number;
  /** Lowest RSS in the last tenth. */
  endMiB: number;
  /** Medians of the same windows. */
  baselineMedianMiB: number;
  endMedianMiB: number;
  maxAfterWarmupMiB: number;
  growthPercent: number;
  /** Least-squares slope of RSS after the warm-up. */
  slopeMiBPerHour: number;
  limitPercent: number;
  pass: boolean;
}

/** Too few samples after the warm-up to judge growth (a run not much longer than the warm-up). */
export interface SoakNotJudged {
  warmupSeconds: number;
  notJudged: string;
}

const mib = (bytes: number): number => bytes / 1024 / 1024;
const round1 = (value: number): number => Math.round(value * 10) / 10;

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2
    ? (sorted[middle] as number)
    : ((sorted[middle - 1] as number) + (sorted[middle] as number)) / 2;
}

/**
 * The warm-up: a fifth of the run, at least 5 minutes. At 100 writes/s over
 * 1,000 objects RSS saws between about 220 and 410 MiB with a period of two to
 * four minutes as the heap sizes itself (bench/results/soak/), so a judgement
 * needs windows of several minutes after that.
 */
export function warmupSeconds(durationSeconds: number): number {
  return Math.max(300, durationSeconds / 5);
}

export function judgeSoak(
  samples: SoakSample[],
  durationSeconds: number,
  limitPercent = 5,
): SoakJudgement | SoakNotJudged {
  const warmup = warmupSeconds(durationSeconds);
  const after = samples.filter((s) => s.t >= warmup);
  if (after.length < 6 || after.length < samples.length / 3) {
    return {
      warmupSeconds: warmup,
      notJudged: `${after.length} of ${samples.length} samples are after the ${warmup} s warm-up: too few to judge growth`,
    };
  }
  const tenth = Math.max(3, Math.floor(after.length / 10));
  const first = after.slice(0, tenth).map((s) => s.rssBytes);
  const last = after.slice(-tenth).map((s) => s.rssBytes);
  const baseline = Math.min(...first);
  const end = Math.min(...last);
  const growthPercent = ((end - baseline) / baseline) * 100;
  const meanT = after.reduce((sum, s) => sum + s.t, 0) / after.length;
  const meanR = after.reduce((sum, s) => sum + s.rssBytes, 0) / after.length;
  const covariance = after.reduce((sum, s) => sum + (s.t - meanT) * (s.rssBytes - meanR), 0);
  const variance = after.reduce((sum, s) => sum + (s.t - meanT) ** 2, 0);
  return {
    warmupSeconds: warmup,
    baselineMiB: round1(mib(baseline)),
    endMiB: round1(mib(end)),
    baselineMedianMiB: round1(mib(median(first))),
    endMedianMiB: round1(mib(median(last))),
    maxAfterWarmupMiB: round1(mib(Math.max(...after.map((s) => s.rssBytes)))),
    growthPercent: Math.round(growthPercent * 100) / 100,
    slopeMiBPerHour: round1(mib(variance > 0 ? (covariance / variance) * 3600 : 0)),
    limitPercent,
    pass: growthPercent < limitPercent,
  };
}

/** RSS over time as an SVG line chart, with the warm-up shaded and the floor and limit drawn. */
export function soakChart(
  samples: SoakSample[],
  judgement: SoakJudgement | SoakNotJudged,
  title: string,
): string {
  const judged = "baselineMiB" in judgement ? judgement : undefined;
  const width = 720;
  const height = 320;
  const left = 60;
  const right = 20;
  const top = 40;
  const bottom = 40;
  const maxT = Math.max(...samples.map((s) => s.t), 1);
  const values = samples.map((s) => mib(s.rssBytes));
  const limitMiB = judged ? judged.baselineMiB * (1 + judged.limitPercent / 100) : undefined;
  const low = Math.floor(Math.min(...values, judged?.baselineMiB ?? Number.POSITIVE_INFINITY) / 10) * 10;
  const high = Math.ceil(Math.max(...values, limitMiB ?? 0) / 10) * 10;
  const x = (t: number): number => left + (t / maxT) * (width - left - right);
  const y = (v: number): number => top + (1 - (v - low) / Math.max(high - low, 1)) * (height - top - bottom);
  const f = (n: number): string => n.toFixed(1);
  const points = samples.map((s) => `${f(x(s.t))},${f(y(mib(s.rssBytes)))}`).join(" ");
  const yTicks = Array.from({ length: 5 }, (_, i) => low + ((high - low) * i) / 4);
  const minutes = maxT / 60;
  const xStep = minutes > 20 ? 10 : minutes > 5 ? 2 : 1;
  const xTicks = Array.from({ length: Math.floor(minutes / xStep) + 1 }, (_, i) => i * xStep);
  return [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" font-family="sans-serif" font-size="12">`,
    `<rect width="${width}" height="${height}" fill="white"/>`,
    `<text x="${left}" y="20" font-size="14">${title}</text>`,
    `<rect x="${left}" y="${top}" width="${f(Math.min(x(judgement.warmupSeconds), width - right) - left)}" height="${height - top - bottom}" fill="#eee"/>`,
    `<text x="${left + 4}" y="${top + 14}" fill="#777">warm-up</text>`,
    ...yTicks.map(
      (v) =>
        `<line x1="${left}" x2="${width - right}" y1="${f(y(v))}" y2="${f(y(v))}" stroke="#ddd"/><text x="${left - 6}" y="${f(y(v) + 4)}" text-anchor="end">${Math.round(v)}</text>`,
    ),
    ...xTicks.map(
      (m) => `<text x="${f(x(m * 60))}" y="${height - bottom + 16}" text-anchor="middle">${m} min</text>`,
    ),
    `<text x="14" y="${top + (height - top - bottom) / 2}" transform="rotate(-90 14 ${top + (height - top - bottom) / 2})" text-anchor="middle">RSS (MiB)</text>`,
    ...(judged && limitMiB !== undefined
      ? [
          `<line x1="${f(x(judged.warmupSeconds))}" x2="${width - right}" y1="${f(y(judged.baselineMiB))}" y2="${f(y(judged.baselineMiB))}" stroke="#2a7" stroke-dasharray="4 3"/>`,
          `<line x1="${f(x(judged.warmupSeconds))}" x2="${width - right}" y1="${f(y(limitMiB))}" y2="${f(y(limitMiB))}" stroke="#c33" stroke-dasharray="4 3"/>`,
          `<text x="${width - right}" y="${f(y(limitMiB) - 4)}" text-anchor="end" fill="#c33">floor + ${judged.limitPercent} %</text>`,
        ]
      : []),
    `<polyline points="${points}" fill="none" stroke="#36c" stroke-width="1.5"/>`,
    "</svg>",
    "",
  ].join("\n");
}
