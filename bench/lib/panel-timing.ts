// Times dashboard panel queries on a real Prometheus: the server's own
// evaluation time (stats=all) and the wall time of the HTTP call, median of a
// few runs, for the instant query and for a range query of a fixed number of
// steps (what a Grafana panel of that many points asks). For queries reading
// recorded series, the same query with each recorded series replaced by the
// rule's expression is timed too: what the panel would cost without the rules.
import type { PanelQuery } from "../../dashboards/src/index.ts";

export interface Timing {
  /** Prometheus' evalTotalTime (seconds in the API), ms (median). */
  evalMs: number;
  /** Wall time of the request, response included, ms (median). */
  wallMs: number;
  /** Peak samples held while evaluating (the query's memory cost). */
  peakSamples: number;
  /** Series in the result. */
  series: number;
  /** Why the query failed (Prometheus' timeout or sample limit), if it did. */
  error?: string;
}

export interface PanelTiming {
  readonly query: PanelQuery;
  readonly instant: Timing;
  readonly range?: Timing;
  /** The same query with recorded series expanded to their rules' expressions. */
  readonly raw?: { readonly instant: Timing; readonly range?: Timing };
}

export interface RangeWindow {
  readonly start: number;
  readonly end: number;
  readonly steps: number;
}

interface QueryResponse {
  status: string;
  error?: string;
  data: {
    result: unknown[] | unknown;
    stats?: { timings?: { evalTotalTime?: number }; samples?: { peakSamples?: number } };
  };
}

/** `at`: the time of an instant query, or the window of a range query. */
async function once(
  url: string,
  expr: string,
  at: number | RangeWindow,
  timeoutSeconds: number,
): Promise<Timing> {
  const params = new URLSearchParams({ query: expr, stats: "all", timeout: `${timeoutSeconds}s` });
  const range = typeof at === "number" ? undefined : at;
  if (range) {
    params.set("start", String(range.start));
    params.set("end", String(range.end));
    params.set("step", String((range.end - range.start) / range.steps));
  } else params.set("time", String(at));
  const started = performance.now();
  const response = await fetch(`${url}/api/v1/${range ? "query_range" : "query"}`, {
    method: "POST",
    body: params,
    signal: AbortSignal.timeout((timeoutSeconds + 60) * 1000),
  });
  const body = (await response.json()) as QueryResponse;
  const wallMs = performance.now() - started;
  if (body.status !== "success") {
    // A query too costly to finish is a result here: the panel could not be drawn.
    if (/timed out|too many samples/.test(body.error ?? ""))
      return { evalMs: wallMs, wallMs, peakSamples: Number.NaN, series: 0, error: body.error ?? "" };
    throw new Error(`${expr}: ${body.error}`);
  }
  const result = body.data.result;
  return {
    evalMs: (body.data.stats?.timings?.evalTotalTime ?? Number.NaN) * 1000,
    wallMs,
    peakSamples: body.data.stats?.samples?.peakSamples ?? Number.NaN,
    series: Array.isArray(result) ? result.length : 1,
  };
}

const median = (values: number[]): number => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] as number;
};

export async function timeQuery(
  url: string,
  expr: string,
  at: number | RangeWindow,
  repeats: number,
  timeoutSeconds = 120,
): Promise<Timing> {
  const runs: Timing[] = [];
  for (let i = 0; i < repeats; i++) {
    const run = await once(url, expr, at, timeoutSeconds);
    if (run.error) return run;
    runs.push(run);
  }
  return {
    evalMs: median(runs.map((r) => r.evalMs)),
    wallMs: median(runs.map((r) => r.wallMs)),
    peakSamples: median(runs.map((r) => r.peakSamples)),
    series: runs[0]?.series ?? 0,
  };
}

/** Replaces every recorded series (with its matchers) by `(rule expression)`. */
export function expandRecords(expr: string, records: ReadonlyMap<string, string>): string {
  let out = expr;
  for (const [name, ruleExpr] of records) {
    const escaped = name.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
    // A function, so the `$1` of a rule's label_replace stays text.
    out = out.replace(new RegExp(`${escaped}(\\{[^}]*\\})?`, "g"), () => `(${ruleExpr})`);
  }
  return out;
}

const number = (ms: number): string => (ms >= 100 ? ms.toFixed(0) : ms >= 10 ? ms.toFixed(1) : ms.toFixed(2));
/** Milliseconds; a failed query as what stopped it, after how long. */
const fmt = (t: Timing | undefined, pick: (t: Timing) => number = (t) => t.evalMs): string =>
  t === undefined
    ? ""
    : t.error
      ? `${/too many samples/.test(t.error) ? "sample limit" : "timeout"} after ${number(t.wallMs)}`
      : number(pick(t));

/** The table of the report: one row per panel query, in dashboard order. */
export function timingTable(timings: readonly PanelTiming[]): string {
  const rows = timings.map((t) => {
    const q = t.query;
    const note = q.optIn.length > 0 ? " (opt-in)" : "";
    const asked = t.range ?? t.instant;
    return `| ${q.dashboard.replace(/^cr-status-/, "")} | ${q.panel}${note} | ${q.refId} | ${q.instant ? "instant" : "range"} | ${fmt(t.instant)} | ${fmt(t.range)} | ${fmt(asked, (a) => a.wallMs)} | ${Number.isNaN(asked.peakSamples) ? "" : asked.peakSamples} | ${fmt(t.raw?.instant)} | ${fmt(t.raw?.range)} |`;
  });
  return [
    "| dashboard | panel | query | kind | instant eval ms | range eval ms | wall ms (as the panel asks) | peak samples | without rules: instant eval ms | without rules: range eval ms |",
    "| --- | --- | --- | --- | ---: | ---: | ---: | ---: | ---: | ---: |",
    ...rows,
  ].join("\n");
}

/** The slowest queries as the panels ask them (range for graphs, instant for stats and tables). */
export function slowest(timings: readonly PanelTiming[], count = 5): PanelTiming[] {
  const cost = (t: PanelTiming): number => (t.range ?? t.instant).evalMs;
  return [...timings].sort((a, b) => cost(b) - cost(a)).slice(0, count);
}
