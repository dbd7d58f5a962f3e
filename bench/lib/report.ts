// Turns a run's results into the Markdown report (a column per subject, with
// ours / KSM ratios, the targets table and the micro-benchmarks) and a
// hand-written SVG chart of scrape latency and RSS against fleet size.
import type { MappingBytes, MemoryBreakdown, SpaceBytes } from "./heap-report.ts";
import { cpuPhases, measured, type RunResult, type SizeResult, type SubjectResult } from "./results.ts";
import type { SubjectId } from "./subjects.ts";
import { summarize } from "./summary.ts";
import { judge, targetsMarkdown } from "./targets.ts";

const mib = (b: number): string => (b / 1048576).toFixed(1);
const kib = (b: number): string => (b / 1024).toFixed(1);
const ms = (v: number): string => (Number.isFinite(v) ? v.toFixed(v < 10 ? 1 : 0) : "—");
const ratio = (a: number | undefined, b: number | undefined): string =>
  a === undefined || b === undefined || !Number.isFinite(a) || !Number.isFinite(b) || b === 0
    ? "—"
    : `${(a / b).toFixed(2)}×`;

interface Row {
  label: string;
  value: (s: SubjectResult, objects: number) => number | undefined;
  format: (v: number) => string;
  /** Shown per subject without a ratio column entry. */
  info?: boolean;
  /** A cell that is not one number. */
  text?: (s: SubjectResult) => string;
}

/** CPU seconds between the samples after sync, after the scrapes, after the latency phases and at the end. */
function cpuByPhase(s: SubjectResult): string {
  const phases = cpuPhases(s);
  if (!phases) return "—";
  return [phases.scrapes, phases.latency, phases.rest].map((v) => v.toFixed(2)).join(" / ");
}

const latencyRows = (i: number, rate: number): Row[] => [
  { label: `event→metric p50 (ms) @ ${rate} patches/s`, value: (s) => s.latency[i]?.p50Ms, format: ms },
  { label: `event→metric p99 (ms) @ ${rate} patches/s`, value: (s) => s.latency[i]?.p99Ms, format: ms },
  {
    label: `of which apiserver watch delivery p50 / p99 (ms) @ ${rate} patches/s`,
    value: () => undefined,
    format: String,
    info: true,
    text: (s) => {
      const l = s.latency[i];
      return l ? `${ms(l.watchDeliveryP50Ms)} / ${ms(l.watchDeliveryP99Ms)}` : "—";
    },
  },
  {
    label: `achieved patches/s, samples, scan p50 (ms) @ ${rate} patches/s`,
    value: () => undefined,
    format: String,
    info: true,
    text: (s) => {
      const l = s.latency[i];
      return l
        ? `${l.achievedRate.toFixed(0)}/s, n=${l.samples}${l.missed ? ` (+${l.missed} missed)` : ""}, ${ms(l.scanP50Ms)}`
        : "—";
    },
  },
];

function rows(rates: number[], scrapes: number, gzipScrapes: number): Row[] {
  return [
    {
      label: "initial sync (s, spawn → all objects in /metrics)",
      value: (s) => s.syncSeconds,
      format: (v) => v.toFixed(2),
    },
    { label: "RSS after sync (MiB)", value: (s) => s.rssAfterSyncBytes, format: mib },
    { label: "RSS after churn (MiB)", value: (s) => s.rssAfterChurnBytes, format: mib },
    {
      label: "RSS after churn / after sync",
      value: (s) => s.rssAfterChurnBytes / s.rssAfterSyncBytes,
      format: (v) => `${v.toFixed(2)}×`,
      info: true,
    },
    { label: "RSS per object after sync (KiB)", value: (s, n) => s.rssAfterSyncBytes / n, format: kib },
    { label: "RSS per object after churn (KiB)", value: (s, n) => s.rssAfterChurnBytes / n, format: kib },
    {
      label: "/metrics per object (KiB, plain response / objects)",
      value: (s, n) => s.scrape.bytes / n,
      format: kib,
    },
    { label: "CPU to sync (s)", value: (s) => s.cpuAfterSyncSeconds, format: (v) => v.toFixed(2) },
    { label: "CPU total (s)", value: (s) => s.cpuTotalSeconds, format: (v) => v.toFixed(2) },
    {
      label: "of which in the scrapes / latency phases / rest of the churn (s)",
      value: () => undefined,
      format: String,
      info: true,
      text: cpuByPhase,
    },
    { label: `scrape p50 (ms, plain, n=${scrapes})`, value: (s) => s.scrape.p50Ms, format: ms },
    { label: `scrape p99 (ms, plain, n=${scrapes})`, value: (s) => s.scrape.p99Ms, format: ms },
    { label: `scrape p50 (ms, gzip, n=${gzipScrapes})`, value: (s) => s.scrape.gzipP50Ms, format: ms },
    { label: `scrape p99 (ms, gzip, n=${gzipScrapes})`, value: (s) => s.scrape.gzipP99Ms, format: ms },
    { label: "response (MiB, plain)", value: (s) => s.scrape.bytes, format: mib },
    { label: "response (MiB, gzip)", value: (s) => s.scrape.gzipBytes, format: mib },
    { label: "series (all lines)", value: (s) => s.scrape.series, format: (v) => String(v) },
    {
      label: "series per object (lines with a name label / objects)",
      value: (s) => s.scrape.seriesPerObject,
      format: (v) => v.toFixed(2),
    },
    {
      label: "bytes per series (plain)",
      value: (s) => s.scrape.bytesPerSeries,
      format: (v) => v.toFixed(0),
    },
    ...rates.flatMap((rate, i) => latencyRows(i, rate)),
    {
      label: "event-loop max delay during scrapes (ms)",
      value: (s) => s.scrape.eventLoopMaxDelayMs ?? undefined,
      format: ms,
      info: true,
    },
    {
      label: "the same, an idle process beside it (ms: the machine's share; 10 = none)",
      value: (s) => s.scrape.controlEventLoopMaxDelayMs ?? undefined,
      format: ms,
      info: true,
    },
    {
      label: "GCs during the scrapes: major (of them > 100 ms), minor",
      value: () => undefined,
      format: String,
      info: true,
      text: (s) => {
        const gc = s.scrape.gc;
        if (!gc) return "—";
        const major = gc.major ?? { count: 0, over100ms: 0, seconds: 0 };
        const minor = gc.minor ?? { count: 0, over100ms: 0, seconds: 0 };
        return `${major.count} (${major.over100ms}), ${minor.count}`;
      },
    },
  ];
}

function cell(row: Row, s: SubjectResult | undefined, objects: number, skipped: boolean): string {
  if (!s) return skipped ? "skipped" : "—";
  if (row.text) return row.text(s);
  const v = row.value(s, objects);
  return v === undefined || !Number.isFinite(v) ? "—" : row.format(v);
}

function sizeTable(run: RunResult, size: SizeResult): string[] {
  const out: string[] = [];
  const ksm = measured(size.subjects.ksm);
  const ours = run.subjects.filter((s) => s.program === "ours");
  const header = ["measure", "KSM"];
  for (const s of ours) header.push(s.label, `${s.id} / KSM`);
  out.push(
    `| ${header.join(" | ")} |`,
    `|---|${header
      .slice(1)
      .map(() => "---:")
      .join("|")}|`,
  );
  const rates = (run.options.rates as number[] | undefined) ?? [100, 500];
  const scrapes = Number(run.options.scrapes);
  for (const row of rows(rates, scrapes, Number(run.options.gzipScrapes ?? scrapes))) {
    const cells = [row.label, cell(row, ksm, size.objects, "skipped" in (size.subjects.ksm ?? {}))];
    for (const spec of ours) {
      const outcome = size.subjects[spec.id];
      const s = measured(outcome);
      cells.push(cell(row, s, size.objects, outcome !== undefined && "skipped" in outcome));
      cells.push(
        row.info || row.text || !s || !ksm
          ? ""
          : ratio(row.value(s, size.objects), row.value(ksm, size.objects)),
      );
    }
    out.push(`| ${cells.join(" | ")} |`);
  }
  out.push("");
  for (const spec of run.subjects) {
    const outcome = size.subjects[spec.id];
    if (outcome && "skipped" in outcome) out.push(`${spec.label} skipped: ${outcome.skipped}`, "");
  }
  const equal = measured(size.subjects.equal);
  if (equal && ksm && Math.abs(equal.scrape.seriesPerObject - ksm.scrape.seriesPerObject) > 0.01) {
    const perObject = Object.keys(equal.scrape.families).filter(
      (f) => (equal.scrape.families[f] ?? 0) >= size.objects,
    );
    out.push(
      `Note: the equal-information subject exports ${equal.scrape.seriesPerObject.toFixed(2)} series per object, KSM ${ksm.scrape.seriesPerObject.toFixed(2)}: ${equal.scrape.seriesPerObject > ksm.scrape.seriesPerObject ? "more, so the allow list did not limit it to the same information" : "fewer, as expected when a state set exports only the current state"}. Its per-object families: ${perObject.join(", ")}.`,
      "",
    );
  }
  return out;
}

function subjectsSection(run: RunResult): string[] {
  const out = ["## Subjects", ""];
  for (const s of run.subjects) {
    out.push(`- **${s.label}** (\`${s.id}\`)${s.config ? ":" : ""}`);
    if (s.config)
      out.push(
        "",
        "  ```yaml",
        ...s.config
          .trimEnd()
          .split("\n")
          .map((l) => `  ${l}`),
        "  ```",
      );
  }
  out.push("");
  return out;
}

function idleSection(run: RunResult): string[] {
  if (!run.idle) return [];
  if ("skipped" in run.idle) return ["## Idle", "", `Skipped: ${run.idle.skipped}`, ""];
  const i = run.idle;
  const perObject = run.sizes
    .map((size) => {
      const rss = (id: SubjectId): string => {
        const s = measured(size.subjects[id]);
        return s ? `${kib((s.rssAfterSyncBytes - i.rssSettledBytes) / size.objects)} KiB (${id})` : "";
      };
      const parts = [rss("equal"), rss("default")].filter(Boolean);
      return parts.length ? `${size.objects.toLocaleString("en-US")}: ${parts.join(", ")}` : "";
    })
    .filter(Boolean);
  return [
    "## Idle (ours, sidecar config: one empty namespace, crdDiscovery off, tracing off)",
    "",
    `RSS ${mib(i.rssAtReadyBytes)} MiB when /readyz first answered 200 (${i.readySeconds.toFixed(2)} s after spawn), ${mib(i.rssSettledBytes)} MiB after ${i.settleSeconds} s more; ${i.series} series (self-metrics).`,
    ...(perObject.length ? ["", `RSS per object above idle, after sync: ${perObject.join("; ")}.`] : []),
    "",
    "```yaml",
    i.config.trimEnd(),
    "```",
    "",
  ];
}

function microSection(run: RunResult): string[] {
  if (!run.micro) return [];
  const out: string[] = [];
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
    "Exposition writing (per-object families only, default set, best of 3):",
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
  return out;
}

const mapped = (m: MemoryBreakdown, kind: keyof MappingBytes): string =>
  m.mappings ? mib(m.mappings[kind]) : "—";

/** Where our RSS goes after sync and after churn: the V8 heap by space (committed, of it used) and the rest. */
function memoryTable(run: RunResult, size: SizeResult): string[] {
  const ours = run.subjects
    .filter((s) => s.program === "ours")
    .map((s) => [s, measured(size.subjects[s.id])] as const)
    .filter(([, r]) => r?.memoryAfterSync && r.memoryAfterChurn);
  if (ours.length === 0) return [];
  const both = (part: SpaceBytes): string => `${mib(part.committed)} (${mib(part.used)})`;
  const rows: [string, (m: MemoryBreakdown) => string][] = [
    ["RSS", (m) => mib(m.rssBytes)],
    ["V8 heap, committed (used)", (m) => both(m.heap)],
    ["  old generation", (m) => both(m.oldSpace)],
    ["  young generation", (m) => both(m.newSpace)],
    ["  large objects", (m) => both(m.largeObjects)],
    ["  code and other spaces", (m) => both(m.otherSpaces)],
    ["external (Buffers, external strings)", (m) => mib(m.externalBytes)],
    ["RSS − heap committed − external", (m) => mib(m.rssBytes - m.heap.committed - m.externalBytes)],
    ["RSS by mapping: glibc main heap", (m) => mapped(m, "mallocMainHeap")],
    ["  anonymous (V8 pages, other malloc arenas, stacks)", (m) => mapped(m, "anonymous")],
    ["  generated code", (m) => mapped(m, "code")],
    ["  files (node, libraries)", (m) => mapped(m, "files")],
  ];
  const header = ["MiB"];
  for (const [s] of ours) header.push(`${s.label}, after sync`, "after churn");
  const out = [
    `Where our RSS goes (Node's diagnostic report at each RSS sample; used heap includes garbage not yet collected):`,
    "",
    `| ${header.join(" | ")} |`,
    `|---|${header
      .slice(1)
      .map(() => "---:")
      .join("|")}|`,
  ];
  for (const [label, value] of rows) {
    const cells = [label];
    for (const [, r] of ours)
      cells.push(value(r?.memoryAfterSync as MemoryBreakdown), value(r?.memoryAfterChurn as MemoryBreakdown));
    out.push(`| ${cells.join(" | ")} |`);
  }
  out.push("");
  return out;
}

export function markdown(run: RunResult): string {
  const out: string[] = [];
  const sizesRun = new Set(run.sizes.map((s) => String(s.objects)));
  out.push(`# Benchmark: cr-status-exporter vs kube-state-metrics ${run.ksmVersion}`, "");
  out.push(
    `Run ${run.startedAt} → ${run.finishedAt} on ${run.machine.cpus} × ${run.machine.cpuModel}, Node ${run.machine.node}, Linux ${run.machine.kernel}.`,
    `Widgets of ~${(run.objectBytes / 1024).toFixed(1)} KB (4 conditions) across 50 namespaces; the programs run one after the other against the same apiserver and fleet.`,
    `Options: \`${JSON.stringify(run.options)}\`.`,
    "",
    "## Targets",
    "",
    "At the sizes of this run (latest.json has every judged size; bench/README.md explains the targets).",
    "",
    targetsMarkdown(judge(summarize(run)).filter((r) => r.at === "run" || sizesRun.has(r.at))),
  );
  for (const size of run.sizes) {
    out.push(
      `## ${size.objects.toLocaleString("en-US")} objects (fleet created in ${size.createSeconds.toFixed(0)} s)`,
      "",
      ...sizeTable(run, size),
      ...memoryTable(run, size),
    );
  }
  out.push(...idleSection(run), ...microSection(run), ...subjectsSection(run));
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
  const colors: Record<SubjectId, string> = { ksm: "#d62728", equal: "#2ca02c", default: "#1f77b4" };
  const who: SubjectId[] = ["ksm", "equal", "default"];
  const parts: string[] = [];
  parts.push(
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" font-family="sans-serif" font-size="12">`,
    "<title>Scrape latency and RSS against the number of objects: kube-state-metrics and cr-status-exporter (equal information, default set)</title>",
    `<rect width="100%" height="100%" fill="white"/>`,
    `<text x="${width / 2}" y="24" text-anchor="middle" font-size="15">kube-state-metrics (red), ours with equal information (green), ours default set (blue)</text>`,
  );
  const panels: {
    title: string;
    unit: string;
    lines: { dash: string; get: (s: SubjectResult) => number }[];
  }[] = [
    {
      title: "/metrics scrape latency, plain (solid p50, dashed p99)",
      unit: "ms",
      lines: [
        { dash: "", get: (s) => s.scrape.p50Ms },
        { dash: "6 4", get: (s) => s.scrape.p99Ms },
      ],
    },
    {
      title: "RSS (solid after sync, dashed after churn)",
      unit: "MiB",
      lines: [
        { dash: "", get: (s) => s.rssAfterSyncBytes / 1048576 },
        { dash: "6 4", get: (s) => s.rssAfterChurnBytes / 1048576 },
      ],
    },
  ];
  const subjectAt = (n: number, id: SubjectId): SubjectResult | undefined =>
    measured(points.get(n)?.subjects[id]);
  const logMin = Math.log10(Math.min(...sizes) * 0.8);
  const logMax = Math.log10(Math.max(...sizes) * 1.25);
  panels.forEach((p, index) => {
    const left = lefts[index] as number;
    const values = sizes.flatMap((n) =>
      who.flatMap((id) =>
        p.lines.map((line) => {
          const subject = subjectAt(n, id);
          return subject ? line.get(subject) : 0;
        }),
      ),
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
    for (const id of who) {
      for (const line of p.lines) {
        const pts = sizes
          .map((n) => [n, subjectAt(n, id)] as const)
          .filter((e): e is readonly [number, SubjectResult] => e[1] !== undefined)
          .map(([n, subject]) => `${x(n).toFixed(1)},${y(line.get(subject)).toFixed(1)}`);
        if (pts.length === 0) continue;
        parts.push(
          `<polyline points="${pts.join(" ")}" fill="none" stroke="${colors[id]}" stroke-width="2" ${line.dash ? `stroke-dasharray="${line.dash}"` : ""}/>`,
        );
        for (const pt of pts) {
          const [cx, cy] = pt.split(",");
          parts.push(`<circle cx="${cx}" cy="${cy}" r="3" fill="${colors[id]}"/>`);
        }
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
