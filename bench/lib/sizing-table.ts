// The sizing table of docs/sizing.md, from a benchmark run (bench/results/
// latest.json): our default set per size, idle memory, and kube-state-metrics
// beside it. bench/run.ts writes it between the markers when it writes
// latest.json; a unit test keeps the committed docs equal to latest.json, so
// the figures users size pods by are always the last run's.
import { measured, type RunResult } from "./results.ts";

const begin = "<!-- sizing:begin -->";
const end = "<!-- sizing:end -->";

const mib = (bytes: number): string => (bytes / 2 ** 20).toFixed(0);
const count = (n: number): string => n.toLocaleString("en-US");
const seconds = (s: number): string => `${s < 10 ? s.toFixed(1) : s.toFixed(0)} s`;
const ms = (v: number): string => (v >= 1000 ? `${(v / 1000).toFixed(2)} s` : `${v.toFixed(0)} ms`);

/** A right-aligned markdown table, padded as the formatter (Biome) writes it, so the docs stay as generated. */
function table(rows: string[][]): string[] {
  const widths = (rows[0] ?? []).map((_, i) => Math.max(3, ...rows.map((r) => (r[i] ?? "").length)));
  const line = (cells: string[]) => `| ${cells.map((c, i) => c.padStart(widths[i] ?? 0)).join(" | ")} |`;
  const [header = [], ...body] = rows;
  return [line(header), `| ${widths.map((w) => `${"-".repeat(w - 1)}:`).join(" | ")} |`, ...body.map(line)];
}

/** The generated part of docs/sizing.md: where the figures come from, the table, the comparison. */
export function sizingBlock(run: RunResult): string {
  const options = run.options as { churnSeconds?: number; scrapes?: number };
  const idle = measured(run.idle);
  const rows: string[][] = [
    [
      "Objects watched",
      "Series",
      "Memory (RSS) after sync / churn",
      "CPU to sync",
      "`/metrics` plain / gzip",
      "Scrape p50 / p99",
    ],
    ...(idle ? [["0", count(idle.series), `${mib(idle.rssSettledBytes)} MiB`, "—", "—", "—"]] : []),
  ];
  const comparison: string[] = [];
  let seriesPerObject = Number.NaN;
  for (const size of run.sizes) {
    const ours = measured(size.subjects.default);
    if (!ours) continue;
    seriesPerObject = ours.scrape.seriesPerObject ?? seriesPerObject;
    rows.push([
      count(size.objects),
      count(ours.scrape.series),
      `${mib(ours.rssAfterSyncBytes)} / ${mib(ours.rssAfterChurnBytes)} MiB`,
      seconds(ours.cpuAfterSyncSeconds),
      `${mib(ours.scrape.bytes)} / ${(ours.scrape.gzipBytes / 2 ** 20).toFixed(1)} MiB`,
      `${ms(ours.scrape.p50Ms)} / ${ms(ours.scrape.p99Ms)}`,
    ]);
    const ksm = measured(size.subjects.ksm);
    if (ksm) {
      comparison.push(
        `at ${count(size.objects)} objects ${mib(ksm.rssAfterSyncBytes)} / ${mib(ksm.rssAfterChurnBytes)} MiB after sync / churn (ours ${(ours.rssAfterChurnBytes / ksm.rssAfterChurnBytes).toFixed(2)}× after churn), ${seconds(ksm.syncSeconds)} to sync (ours ${seconds(ours.syncSeconds)}), scrape p50 ${ms(ksm.scrape.p50Ms)}`,
      );
    }
  }
  return [
    `From [bench/results/latest.json](../bench/results/latest.json): the run of ${run.startedAt} on ${run.machine.cpus} × ${run.machine.cpuModel}, the default set (${seriesPerObject} series per object), ${options.churnSeconds ?? "?"} s of churn, ${options.scrapes ?? "?"} scrapes.`,
    "",
    ...table(rows),
    "",
    ...(comparison.length > 0
      ? [
          `kube-state-metrics ${run.ksmVersion} with a custom-resource-state configuration of the same information, in the same run: ${comparison.join("; ")}.`,
        ]
      : []),
  ].join("\n");
}

/** docs/sizing.md with its generated part replaced by `block`. */
export function spliceSizing(doc: string, block: string): string {
  const from = doc.indexOf(begin);
  const to = doc.indexOf(end);
  if (from < 0 || to < from) throw new Error(`docs/sizing.md: markers ${begin} … ${end} not found`);
  return `${doc.slice(0, from + begin.length)}\n\n${block.trimEnd()}\n\n${doc.slice(to)}`;
}
