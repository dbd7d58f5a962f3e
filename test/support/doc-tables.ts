// The Markdown tables of a document under the repository root, cell by cell:
// tests read what the docs state (families, defaults, classifications) and
// check the code against it, so the two cannot drift apart unnoticed.
import { readFileSync } from "node:fs";

export interface DocTable {
  header: string[];
  rows: string[][];
}

function cells(row: string): string[] {
  return row
    .trim()
    .replace(/^\||\|$/g, "")
    .split("|")
    .map((c) => c.trim());
}

/** Every table of `path` (relative to the repository root), in order. */
export function readDocTables(path: string): DocTable[] {
  const text = readFileSync(new URL(`../../${path}`, import.meta.url), "utf8");
  const tables: DocTable[] = [];
  const lines = text.split("\n");
  for (let i = 0; i + 1 < lines.length; i++) {
    const line = lines[i] as string;
    if (!line.startsWith("|") || !/^\|\s*-/.test(lines[i + 1] ?? "")) continue;
    const table: DocTable = { header: cells(line), rows: [] };
    for (i += 2; i < lines.length && (lines[i] as string).startsWith("|"); i++)
      table.rows.push(cells(lines[i] as string));
    tables.push(table);
  }
  return tables;
}

/** The one table whose first header cell matches `firstHeader`; throws when there is none. */
export function docTable(path: string, firstHeader: RegExp): DocTable {
  const table = readDocTables(path).find((t) => firstHeader.test(t.header[0] ?? ""));
  if (!table) throw new Error(`${path} has no table headed ${firstHeader}`);
  return table;
}
