// Output of `cr-status-exporter status`: a kubectl-style table (or wide), or
// the API's own item objects as JSON or YAML. Pure: items in, text out.
import { stringify } from "yaml";
import { shortDuration } from "../status/format.ts";
import type { ObjectItemJson } from "../status/json.ts";

export const outputFormats = ["table", "wide", "json", "yaml"] as const;
export type OutputFormat = (typeof outputFormats)[number];

function dash(value: string | number | null | undefined): string {
  return value === null || value === undefined || value === "" ? "-" : String(value);
}

function lag(item: ObjectItemJson): string {
  if (!item.lagging) return "-";
  const generations = item.generationLag === null ? "stale" : String(item.generationLag);
  // The wait is shown whenever its start is known, "0s" too (a spec changed this very second).
  return item.generationRequestedAt === null
    ? generations
    : `${generations} (${shortDuration(item.lagSeconds)})`;
}

/** One line of a message: tables stay one row per object. */
function oneLine(text: string, max: number): string {
  const flat = text.replace(/\s+/g, " ").trim();
  return flat.length <= max ? flat : `${flat.slice(0, max - 1)}…`;
}

function columns(item: ObjectItemJson, wide: boolean): string[] {
  const notReadyReason = item.ready && item.ready.status !== "True" ? item.ready.reason : "";
  const base = [
    item.kind,
    dash(item.namespace),
    item.name,
    dash(item.ready?.status),
    dash(notReadyReason),
    item.sinceSeconds === null ? "-" : shortDuration(item.sinceSeconds),
    lag(item),
    item.ageSeconds === null ? "-" : shortDuration(item.ageSeconds),
  ];
  if (!wide) return base;
  const message = item.ready && item.ready.status !== "True" ? oneLine(item.ready.message, 80) : "";
  return [
    ...base,
    item.result,
    dash(item.generation),
    dash(item.observedGeneration),
    dash(item.phase),
    item.flapping ? `yes (${item.transitionsInWindow})` : "-",
    dash(message),
    warning(item),
  ];
}

/** The latest Kubernetes Warning event: reason, how long ago, and its message on one line. */
function warning(item: ObjectItemJson): string {
  const w = item.warning;
  if (!w) return "-";
  const ago = w.ageSeconds === null ? "" : ` (${shortDuration(w.ageSeconds)} ago)`;
  return `${w.reason}${ago}${w.message ? `: ${oneLine(w.message, 80)}` : ""}`;
}

const header = ["KIND", "NAMESPACE", "NAME", "READY", "REASON", "SINCE", "LAG", "AGE"];
const wideHeader = [...header, "STATUS", "GEN", "OBSERVED", "PHASE", "FLAPPING", "MESSAGE", "LAST WARNING"];

/** Columns padded to their widest cell, three spaces apart, as kubectl prints them. */
export function formatTable(rows: readonly string[][]): string {
  const widths: number[] = [];
  for (const row of rows) {
    row.forEach((cell, i) => {
      widths[i] = Math.max(widths[i] ?? 0, cell.length);
    });
  }
  return rows
    .map((row) =>
      row.map((cell, i) => (i === row.length - 1 ? cell : cell.padEnd(widths[i] ?? 0))).join("   "),
    )
    .join("\n")
    .concat("\n");
}

export function formatItems(items: readonly ObjectItemJson[], format: OutputFormat): string {
  switch (format) {
    case "json":
      return `${JSON.stringify({ items }, null, 2)}\n`;
    case "yaml":
      return stringify({ items });
    default: {
      const wide = format === "wide";
      return formatTable([wide ? wideHeader : header, ...items.map((item) => columns(item, wide))]);
    }
  }
}
