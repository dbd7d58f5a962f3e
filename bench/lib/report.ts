// Turns a run's results into the Markdown table (with ours / KSM ratios) and
// a hand-written SVG chart of scrape latency and RSS against fleet size.

import type { LatencyStats, ScrapeStats } from "./measure.ts";
import type { EventBench, WriteBench } from "./micro.ts";

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
}

export interface SizeResult {
  objects: number;
  createSeconds: number;
  subjects: { ours?: SubjectResult; ksm?: SubjectResult };
}

export interface RunResult {
  schema: 1;
  startedAt: string;
  finishedAt: string;
  machine: { cpus: number; cpuModel: string; node: string; kernel: string };
  options: Record<string, unknown>;
  ksmVersion: string;
  objectBytes: number;
  sizes: SizeResult[];
  micro?: { events: EventBench; write: WriteBench[] };
}

const mib = (b: number): string => (b / 1048576).toFixed(1);
const ms = (v: number): string => (Number.isFinite(v) ? v.toFixed(v < 10 ? 1 : 0) : "—");
const ratio = (a: number | undefined, b: number | undefined): string =>
  a === undefined || b === undefined || !Number.isFinite(a) || !Number.isFinite(b) || b === 0
    ? "—"
    : `${(a / b).toFixed(2)}×`;

interface Row {
  label: string;
  value: (s: SubjectResult) => number | undefined;
  format: (v: number) => string;
}

const rows: Row[] = [
  {
    label: "initial sync (s, spawn → all objects in /metrics)",
    value: (s) => s.syncSeconds,
    format: (v) => v.toFixed(2),
  },
  { label: "RSS after sync (MiB)", value: (s) => s.rssAfterSyncBytes, format: mib },
  { label: "RSS after churn (MiB)", value: (s) => s.rssAfterChurnBytes, format: mib },
  { label: "CPU to sync (s)", value: (s) => s.cpuAfterSyncSeconds, format: (v) => v.toFixed(2) },
  { label: "CPU total (s)", value: (s) => s.cpuTotalSeconds, format: (v) => v.toFixed(2) },
  { label: "scrape p50 (ms)", value: (s) => s.scrape.p50Ms, format: ms },
  { label: "scrape p99 (ms)", value: (s) => s.scrape.p99Ms, format: ms },
  { label: "scrape gzip p50 (ms)", value: (s) => s.scrape.gzipP50Ms, format: ms },
  { label: "response (MiB, plain)", value: (s) => s.scrape.bytes, format: mib },
  { label: "response (MiB, gzip)", value: (s) => s.scrape.gzipBytes, format: mib },
  { label: "series", value: (s) => s.scrape.series, format: (v) => String(v) },
  {
    label: "bytes per series (plain)",
    value: (s) => s.scrape.bytes / s.scrape.series,
    format: (v) => v.toFixed(0),
  },
  ...[0, 1].flatMap((i): Row[] => [
    {
      label: `event→metric p50 (ms) @ LATENCY_${i}`,
      value: (s) => s.latency[i]?.p50Ms,
      format: ms,
    },
    {
      label: `event→metric p99 (ms) @ LATENCY_${i}`,
      value: (s) => s.latency[i]?.p99Ms,
      format: ms,
    },
    {
      label: `  of which apiserver watch delivery p50 / p99 (ms) @ LATENCY_${i}`,
      value: () => undefined,
      format: String,
    },
    {
      label: `  achieved patches/s, samples, scan p50 (ms) @ LATENCY_${i}`,
      value: () => undefined,
      format: String,
    },
  ]),
  {
    label: "event-loop max delay during scrapes (ms)",
    value: (s) => s.scrape.eventLoopMaxDelayMs ?? undefined,
    format: ms,
  },
  {
    label: "  GCs during the scrapes: major (of them > 100 ms), minor",
    value: (s) => (s.scrape.gc ? 0 : undefined),
    format: () => "",
  },
];

function cell(row: Row, s: SubjectResult | undefined, i: number | undefined): string {
  if (!s) return "—";
  if (row.label.startsWith("  GCs")) {
    const gc = s.scrape.gc;
    if (!gc) return "—";
    const major = gc.major ?? { count: 0, over100ms: 0, seconds: 0 };
    const minor = gc.minor ?? { count: 0, over100ms: 0, seconds: 0 };
    return `${major.count} (${major.over100ms}), ${minor.count}`;
  }
  if (i !== undefined && row.label.startsWith("  of which")) {
    const l = s.latency[i];
    return l?.watchDeliveryP50Ms !== undefined
      ? `${ms(l.watchDeliveryP50Ms)} / ${ms(l.watchDeliveryP99Ms)}`
      : "—";
  }
  if (i !== undefined && row.label.startsWith("  achieved")) {
    const l = s.latency[i];
    return l
      ? `${l.achievedRate.toFixed(0)}/s, n=${l.samples}${l.missed ? ` (+${l.missed} missed)` : ""}, ${ms(l.scanP50Ms)}`
      : "—";
  }
  const v = row.value(s);
  return v === undefined ? "—" : row.format(v);
}

export function markdown(run: RunResult): string {
  const out: string[] = [];
  out.push(`# Benchmark: cr-status-exporter vs kube-state-metrics ${run.ksmVersion}`, "");
  out.push(
    `Run ${run.startedAt} → ${run.finishedAt} on ${run.machine.cpus} × ${run.machine.cpuModel}, Node ${run.machine.node}, Linux ${run.machine.kernel}.`,
    `Widgets of ~${(run.objectBytes / 1024).toFixed(1)} KB (4 conditions) across 50 namespaces; both programs run one after the other against the same apiserver and fleet.`,
    `Options: \`${JSON.stringify(run.options)}\`.`,
    "",
  );
  for (const size of run.sizes) {
    const { ours, ksm } = size.subjects;
    out.push(
      `## ${size.objects.toLocaleString("en-US")} objects (fleet created in ${size.createSeconds.toFixed(0)} s)`,
      "",
    );
    out.push("| measure | ours | KSM | ours / KSM |", "|---|---:|---:|---:|");
    for (const row of rows) {
      const rateIndex = row.label.match(/LATENCY_(\d)/)?.[1];
      const i = rateIndex === undefined ? undefined : Number(rateIndex);
      const rate = i === undefined ? undefined : (ours ?? ksm)?.latency[i]?.targetRate;
      const label =
        i === undefined ? row.label : row.label.replace(`LATENCY_${i}`, `${rate ?? "?"} patches/s`);
      const isInfo = row.label.startsWith("  ") || row.label.startsWith("event-loop");
      const r = isInfo ? "" : ratio(ours ? row.value(ours) : undefined, ksm ? row.value(ksm) : undefined);
      out.push(`| ${label.trim()} | ${cell(row, ours, i)} | ${cell(row, ksm, i)} | ${r} |`);
    }
    out.push("");
  }
  if (run.micro) {
    const e = run.micro.events;
    out.push("## Micro-benchmarks (ours, in-process)", "");
    out.push(
      `Watch-event processing, ${e.events.toLocaleString("en-US")} recorded MODIFIED events over ${e.distinctObjects} objects (${(e.meanEventBytes / 1024).toFixed(1)} KB each), per CPU second:`,
      "",
      "| path | events/s/core |",
      "|---|---:|",
      `| bare JSON.parse (the limit) | ${e.parseOnlyEventsPerCoreSecond.toFixed(0)} |`,
      `| JSON.parse + ingest (projection + pre-render) | ${e.ingestEventsPerCoreSecond.toFixed(0)} (${(e.ratioToParseOnly * 100).toFixed(0)}% of the limit) |`,
      "",
      "Exposition writing (writeExposition, per-object families only, best of 3):",
      "",
      "| series | objects | MiB | ms | series/s | CPU s | max event-loop delay (ms) |",
      "|---:|---:|---:|---:|---:|---:|---:|",
    );
    for (const w of run.micro.write) {
      out.push(
        `| ${w.series.toLocaleString("en-US")} | ${w.objects.toLocaleString("en-US")} | ${mib(w.bytes)} | ${w.ms.toFixed(0)} | ${(w.seriesPerSecond / 1e6).toFixed(2)} M | ${w.cpuSeconds.toFixed(2)} | ${w.maxEventLoopDelayMs.toFixed(1)} |`,
      );
    }
    out.push("");
  }
  return `${out.join("\n")}\n`;
}

/** Two panels side by side: scrape p50/p99 and RSS after sync, against N (log-scaled x). */
export function chart(runs: RunResult[]): string {
  const points = new Map<number, SizeResult>();
  for (const run of runs) for (const size of run.sizes) points.set(size.objects, size);
  const sizes = [...points.keys()].sort((a, b) => a - b);
  const width = 920;
  const height = 360;
  const panel = { w: 380, h: 240, top: 60 };
  const lefts = [70, 530];
  const colors = { ours: "#1f77b4", ksm: "#d62728" };
  const parts: string[] = [];
  parts.push(
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" font-family="sans-serif" font-size="12">`,
    "<title>Scrape latency and RSS against the number of objects: cr-status-exporter and kube-state-metrics</title>",
    `<rect width="100%" height="100%" fill="white"/>`,
    `<text x="${width / 2}" y="24" text-anchor="middle" font-size="15">cr-status-exporter (blue) vs kube-state-metrics (red)</text>`,
  );
  const panels: {
    title: string;
    unit: string;
    series: { who: "ours" | "ksm"; dash: string; get: (s: SubjectResult) => number }[];
  }[] = [
    {
      title: "/metrics scrape latency (solid p50, dashed p99)",
      unit: "ms",
      series: [
        { who: "ours", dash: "", get: (s) => s.scrape.p50Ms },
        { who: "ours", dash: "6 4", get: (s) => s.scrape.p99Ms },
        { who: "ksm", dash: "", get: (s) => s.scrape.p50Ms },
        { who: "ksm", dash: "6 4", get: (s) => s.scrape.p99Ms },
      ],
    },
    {
      title: "RSS (solid after sync, dashed after churn)",
      unit: "MiB",
      series: [
        { who: "ours", dash: "", get: (s) => s.rssAfterSyncBytes / 1048576 },
        { who: "ours", dash: "6 4", get: (s) => s.rssAfterChurnBytes / 1048576 },
        { who: "ksm", dash: "", get: (s) => s.rssAfterSyncBytes / 1048576 },
        { who: "ksm", dash: "6 4", get: (s) => s.rssAfterChurnBytes / 1048576 },
      ],
    },
  ];
  const logMin = Math.log10(Math.min(...sizes) * 0.8);
  const logMax = Math.log10(Math.max(...sizes) * 1.25);
  panels.forEach((p, index) => {
    const left = lefts[index] as number;
    const values = sizes.flatMap((n) =>
      p.series.map((s) => {
        const subject = points.get(n)?.subjects[s.who];
        return subject ? s.get(subject) : 0;
      }),
    );
    const maxY = niceCeiling(Math.max(1, ...values));
    const x = (n: number): number => left + ((Math.log10(n) - logMin) / (logMax - logMin)) * panel.w;
    const y = (v: number): number => panel.top + panel.h - (v / maxY) * panel.h;
    parts.push(
      `<text x="${left + panel.w / 2}" y="${panel.top - 12}" text-anchor="middle" font-size="13">${p.title}</text>`,
    );
    parts.push(
      `<rect x="${left}" y="${panel.top}" width="${panel.w}" height="${panel.h}" fill="none" stroke="#999"/>`,
    );
    for (let k = 0; k <= 4; k++) {
      const v = (maxY * k) / 4;
      parts.push(
        `<line x1="${left}" x2="${left + panel.w}" y1="${y(v)}" y2="${y(v)}" stroke="#eee"/>`,
        `<text x="${left - 6}" y="${y(v) + 4}" text-anchor="end">${trim(v)}</text>`,
      );
    }
    parts.push(
      `<text x="${left - 50}" y="${panel.top + panel.h / 2}" transform="rotate(-90 ${left - 50} ${panel.top + panel.h / 2})" text-anchor="middle">${p.unit}</text>`,
    );
    for (const n of sizes) {
      parts.push(
        `<text x="${x(n)}" y="${panel.top + panel.h + 16}" text-anchor="middle">${n >= 1000 ? `${n / 1000}k` : n}</text>`,
      );
    }
    parts.push(
      `<text x="${left + panel.w / 2}" y="${panel.top + panel.h + 34}" text-anchor="middle">objects (log scale)</text>`,
    );
    for (const s of p.series) {
      const pts = sizes
        .map((n) => [n, points.get(n)?.subjects[s.who]] as const)
        .filter((e): e is readonly [number, SubjectResult] => e[1] !== undefined)
        .map(([n, subject]) => `${x(n).toFixed(1)},${y(s.get(subject)).toFixed(1)}`);
      if (pts.length === 0) continue;
      parts.push(
        `<polyline points="${pts.join(" ")}" fill="none" stroke="${colors[s.who]}" stroke-width="2" ${s.dash ? `stroke-dasharray="${s.dash}"` : ""}/>`,
      );
      for (const pt of pts) {
        const [cx, cy] = pt.split(",");
        parts.push(`<circle cx="${cx}" cy="${cy}" r="3" fill="${colors[s.who]}"/>`);
      }
    }
  });
  parts.push("</svg>");
  return `${parts.join("\n")}\n`;
}

function niceCeiling(v: number): number {
  const magnitude = 10 ** Math.floor(Math.log10(v));
  for (const step of [1, 2, 2.5, 5, 10]) if (step * magnitude >= v) return step * magnitude;
  return 10 * magnitude;
}

function trim(v: number): string {
  return Number.isInteger(v) ? String(v) : v.toFixed(1);
}
