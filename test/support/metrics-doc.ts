// The metric families listed in docs/metrics.md: every table row whose first
// cell is a backticked family name, read by the table's header, and the
// default-set table (family → series for the benchmark widget).
import { type DocTable, readDocTables } from "./doc-tables.ts";

export interface DocumentedFamily {
  type: string;
  /** Label names; "object labels" is listed as such. */
  labels: string[];
  /** "yes" or "opt-in" where the table has a Default column. */
  defaultSet: string | undefined;
  /** The cost formula where the table has a cost column. */
  cost: string | undefined;
}

const readTables = (): DocTable[] => readDocTables("docs/metrics.md");

export function documentedFamilies(): Map<string, DocumentedFamily> {
  const families = new Map<string, DocumentedFamily>();
  for (const { header, rows } of readTables()) {
    const column = (pattern: RegExp): number => header.findIndex((h) => pattern.test(h));
    const name = column(/^Name$/);
    const type = column(/^Type$/);
    const labels = column(/^Labels$/);
    const defaultSet = column(/^Default$/);
    const cost = column(/^Cost/);
    if (name < 0 || type < 0) continue;
    for (const row of rows) {
      const family = /^`([a-z_:][a-z0-9_:]*)`$/.exec(row[name] ?? "")?.[1];
      if (!family) continue;
      const labelText = labels >= 0 ? (row[labels] ?? "") : "";
      families.set(family, {
        type: row[type] ?? "",
        labels: [
          ...(labelText.includes("object labels") ? ["object labels"] : []),
          ...[...labelText.matchAll(/`([a-z_]+)`/g)].map((m) => m[1] as string),
        ],
        defaultSet: defaultSet >= 0 ? row[defaultSet] : undefined,
        cost: cost >= 0 ? row[cost] : undefined,
      });
    }
  }
  return families;
}

/** The default-set table: family → series for the benchmark widget, and the documented total. */
export function documentedDefaultSet(): { rows: Map<string, number>; total: number | undefined } {
  const table = readTables().find((t) => /^Family \(benchmark widget\)$/.test(t.header[0] ?? ""));
  const rows = new Map<string, number>();
  let total: number | undefined;
  for (const row of table?.rows ?? []) {
    const family = /^`([a-z_]+)`$/.exec(row[0] ?? "")?.[1];
    const value = Number((row[1] ?? "").replaceAll("*", ""));
    if (family) rows.set(family, value);
    else if (/default set/.test(row[0] ?? "")) total = value;
  }
  return { rows, total };
}
