// Turns Stryker's JSON report (mutation-testing-report-schema) into the
// committed per-file summary: test/mutation/summary.json (merged, so a run
// scoped to one folder keeps the other folders' rows) and summary.md.
// Survivors explained in test/mutation/equivalent.json are listed apart, with
// the reason (still counted in the score, which stays Stryker's).
//   node test/mutation/summarize.ts <report.json>
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";

interface ReportPosition {
  line: number;
  column: number;
}
interface ReportMutant {
  id: string;
  mutatorName: string;
  replacement?: string;
  location: { start: ReportPosition; end: ReportPosition };
  status: string;
  statusReason?: string;
}
export interface MutationReport {
  files: Record<string, { source: string; mutants: ReportMutant[] }>;
}

/** A mutant worth reading: one no test noticed, or one marked equivalent in the source. */
export interface ListedMutant {
  line: number;
  mutator: string;
  original: string;
  replacement: string;
  reason?: string;
}

export interface FileScore {
  /** Killed + Timeout over Killed + Timeout + Survived + NoCoverage, in percent (Stryker's definition). */
  score: number | null;
  /** The score when the file was first measured, kept through later runs: the "before" of its tests. */
  firstScore?: number | null;
  killed: number;
  timeout: number;
  survived: number;
  noCoverage: number;
  ignored: number;
  compileErrors: number;
  runtimeErrors: number;
  survivors: ListedMutant[];
  equivalent: ListedMutant[];
}

export type Summary = Record<string, FileScore>;

/** A surviving mutant that cannot change behaviour, where an in-source marker would hide more than it. */
export interface EquivalentNote {
  file: string;
  /** Only where the same change reads alike on other lines of the file. */
  line?: number;
  mutator: string;
  original: string;
  replacement: string;
  reason: string;
}

const sameMutant = (file: string, m: ListedMutant) => (n: EquivalentNote) =>
  n.file === file &&
  (n.line === undefined || n.line === m.line) &&
  n.mutator === m.mutator &&
  n.original === m.original &&
  n.replacement === m.replacement;

// Report positions are one-based lines and columns.
function slice(source: string, { start, end }: ReportMutant["location"]): string {
  const lines = source.split("\n");
  const offset = (p: ReportPosition): number =>
    lines.slice(0, p.line - 1).reduce((sum, l) => sum + l.length + 1, 0) + p.column - 1;
  return source.slice(offset(start), offset(end));
}

/** One line of code, whitespace collapsed and cut, so the summary stays readable. */
function short(text: string, max = 80): string {
  const flat = text.replace(/\s+/g, " ").trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}

export function scoreFile(source: string, mutants: ReportMutant[]): FileScore {
  const count = (status: string): number => mutants.filter((m) => m.status === status).length;
  const listed = (m: ReportMutant): ListedMutant => ({
    line: m.location.start.line,
    mutator: m.mutatorName,
    original: short(slice(source, m.location)),
    replacement: short(m.replacement ?? ""),
    ...(m.statusReason ? { reason: m.statusReason } : {}),
  });
  const killed = count("Killed");
  const timeout = count("Timeout");
  const survived = count("Survived");
  const noCoverage = count("NoCoverage");
  const valid = killed + timeout + survived + noCoverage;
  const byLine = (a: ListedMutant, b: ListedMutant): number => a.line - b.line;
  return {
    score: valid === 0 ? null : Math.round(((killed + timeout) / valid) * 1000) / 10,
    killed,
    timeout,
    survived,
    noCoverage,
    ignored: count("Ignored"),
    compileErrors: count("CompileError"),
    runtimeErrors: count("RuntimeError"),
    survivors: mutants
      .filter((m) => m.status === "Survived" || m.status === "NoCoverage")
      .map(listed)
      .sort(byLine),
    equivalent: mutants
      .filter((m) => m.status === "Ignored")
      .map(listed)
      .sort(byLine),
  };
}

/** The previous summary with every file of this report replaced by its new score. */
export function mergeSummary(previous: Summary, report: MutationReport, root: string): Summary {
  const next: Summary = { ...previous };
  for (const [file, { source, mutants }] of Object.entries(report.files)) {
    const key = path.relative(root, path.resolve(root, file)).split(path.sep).join("/");
    const score = scoreFile(source, mutants);
    const before = previous[key];
    const firstScore = before === undefined ? score.score : (before.firstScore ?? before.score);
    next[key] = { ...score, firstScore };
  }
  return Object.fromEntries(Object.entries(next).sort(([a], [b]) => a.localeCompare(b)));
}

const percent = (score: number | null | undefined): string =>
  score === null || score === undefined ? "–" : `${score.toFixed(1)} %`;

function totals(scores: FileScore[]): string {
  const detected = scores.reduce((s, f) => s + f.killed + f.timeout, 0);
  const valid = scores.reduce((s, f) => s + f.killed + f.timeout + f.survived + f.noCoverage, 0);
  return valid === 0 ? "–" : `${((detected / valid) * 100).toFixed(1)} %`;
}

export function renderSummary(summary: Summary, notes: EquivalentNote[] = []): string {
  const files = Object.entries(summary);
  const folders = [...new Set(files.map(([f]) => path.posix.dirname(f)))].sort();
  const out = [
    "# Mutation score per file",
    "",
    "Generated by `npm run mutation` from Stryker's JSON report (do not edit by hand; see README.md).",
    "Score = (killed + timeout) / (killed + timeout + survived + no coverage). Mutants that do not",
    "type-check and mutants marked equivalent in the source are not counted. _First run_ is the",
    "score when the file was first measured, before the tests written for its survivors.",
    "",
    "| folder | score |",
    "| --- | ---: |",
    ...folders.map(
      (folder) =>
        `| ${folder} | ${totals(files.filter(([f]) => path.posix.dirname(f) === folder).map(([, s]) => s))} |`,
    ),
    "",
    "| file | first run | score | killed | timeout | survived | no coverage | equivalent | compile errors |",
    "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |",
    ...files.map(
      ([file, s]) =>
        `| ${file} | ${percent(s.firstScore ?? s.score)} | ${percent(s.score)} | ${s.killed} | ${s.timeout} | ${s.survived} | ${s.noCoverage} | ${s.ignored} | ${s.compileErrors} |`,
    ),
  ];
  const code = (text: string): string => `\`${text.replaceAll("`", "'") || " "}\``;
  for (const [file, s] of files) {
    if (s.survivors.length === 0 && s.equivalent.length === 0) continue;
    out.push("", `## ${file}`);
    const explained = s.survivors.filter((m) => notes.some(sameMutant(file, m)));
    const open = s.survivors.filter((m) => !explained.includes(m));
    if (open.length > 0) {
      out.push("", "Surviving (no test fails when this is changed; to kill):", "");
      for (const m of open) {
        out.push(`- line ${m.line}, ${m.mutator}: ${code(m.original)} → ${code(m.replacement)}`);
      }
    }
    if (explained.length > 0) {
      out.push("", "Surviving, explained as equivalent in equivalent.json:", "");
      for (const m of explained) {
        const reason = notes.find(sameMutant(file, m))?.reason ?? "";
        out.push(`- line ${m.line}, ${m.mutator}: ${code(m.original)} → ${code(m.replacement)} (${reason})`);
      }
    }
    if (s.equivalent.length > 0) {
      out.push("", "Marked equivalent in the source:", "");
      for (const m of s.equivalent) {
        out.push(
          `- line ${m.line}, ${m.mutator}: ${code(m.original)} → ${code(m.replacement)}${m.reason ? ` (${m.reason})` : ""}`,
        );
      }
    }
  }
  return `${out.join("\n")}\n`;
}

export function writeSummary(reportFile: string, root = process.cwd()): Summary {
  const dir = path.join(root, "test/mutation");
  const jsonFile = path.join(dir, "summary.json");
  const previous: Summary = fs.existsSync(jsonFile) ? JSON.parse(fs.readFileSync(jsonFile, "utf8")) : {};
  const report = JSON.parse(fs.readFileSync(reportFile, "utf8")) as MutationReport;
  const summary = mergeSummary(previous, report, root);
  fs.writeFileSync(jsonFile, `${JSON.stringify(summary, null, 2)}\n`);
  const notesFile = path.join(dir, "equivalent.json");
  const notes: EquivalentNote[] = fs.existsSync(notesFile)
    ? JSON.parse(fs.readFileSync(notesFile, "utf8"))
    : [];
  const markdown = path.join(dir, "summary.md");
  fs.writeFileSync(markdown, renderSummary(summary, notes));
  // Aligned the way the project's formatter wants, so `biome check` stays clean.
  spawnSync(path.join(root, "node_modules/.bin/biome"), ["format", "--write", markdown], { stdio: "ignore" });
  return summary;
}

if (import.meta.main) {
  const reportFile = process.argv[2];
  if (!reportFile) {
    console.error("usage: node test/mutation/summarize.ts <stryker mutation.json>");
    process.exit(2);
  }
  writeSummary(reportFile);
}
