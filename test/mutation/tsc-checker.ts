// A Stryker checker that drops mutants which do not type-check, using the
// TypeScript 7 compiler in node_modules through its (unstable) sync API.
// Stryker's own TypeScript checker needs the JavaScript compiler API of
// TypeScript 5/6 (`import ts from "typescript"`), which TypeScript 7 no longer
// ships, so it cannot load here. The compiler process stays up for the whole
// run; each mutant is applied to an in-memory copy of its file and the program
// re-checked incrementally (about 0.4 s a mutant on this project).
import fs from "node:fs";
import path from "node:path";
import type { Checker, CheckResult } from "@stryker-mutator/api/check";
import { CheckStatus } from "@stryker-mutator/api/check";
import type { Mutant, Position } from "@stryker-mutator/api/core";
import { commonTokens, declareClassPlugin, PluginKind, tokens } from "@stryker-mutator/api/plugin";
import { API, DiagnosticCategory } from "typescript/unstable/sync";

// Stryker positions are zero-based lines and columns.
function offsetOf(text: string, position: Position): number {
  let offset = 0;
  for (let line = 0; line < position.line; line++) {
    const newline = text.indexOf("\n", offset);
    if (newline < 0) throw new Error(`line ${position.line} is past the end of the file`);
    offset = newline + 1;
  }
  return offset + position.column;
}

/** Source text with one mutant applied. */
export function applyMutant(original: string, mutant: Pick<Mutant, "location" | "replacement">): string {
  const start = offsetOf(original, mutant.location.start);
  const end = offsetOf(original, mutant.location.end);
  return original.slice(0, start) + mutant.replacement + original.slice(end);
}

class TscChecker implements Checker {
  static inject = tokens(commonTokens.logger);
  readonly #log: { info(message: string): void };
  readonly #tsconfig = path.resolve("tsconfig.json");
  /** Files whose content the compiler reads from here instead of the disk. */
  readonly #overlay = new Map<string, string>();
  #api: API | undefined;
  #projectFiles = new Set<string>();
  /** The file the previous mutant changed: restored in the same snapshot as the next mutant is applied. */
  #lastMutated: string | undefined;

  constructor(log: { info(message: string): void }) {
    this.#log = log;
  }

  async init(): Promise<void> {
    this.#api = new API({ cwd: process.cwd(), fs: { readFile: (file) => this.#overlay.get(file) } });
    const errors = this.#diagnostics();
    if (errors.length > 0) {
      throw new Error(`the unmutated project does not type-check:\n${errors.join("\n")}`);
    }
    this.#log.info(`type-checking mutants with TypeScript 7 (${this.#projectFiles.size} files)`);
  }

  async check(mutants: Mutant[]): Promise<Record<string, CheckResult>> {
    const results: Record<string, CheckResult> = {};
    for (const mutant of mutants) results[mutant.id] = this.#checkOne(mutant);
    return results;
  }

  #checkOne(mutant: Mutant): CheckResult {
    const file = path.resolve(mutant.fileName);
    if (!this.#projectFiles.has(file)) return { status: CheckStatus.Passed };
    const changed = new Set([file]);
    if (this.#lastMutated !== undefined) {
      this.#overlay.delete(this.#lastMutated);
      changed.add(this.#lastMutated);
    }
    this.#overlay.set(file, applyMutant(fs.readFileSync(file, "utf8"), mutant));
    this.#lastMutated = file;
    const errors = this.#diagnostics([...changed]);
    return errors.length > 0
      ? { status: CheckStatus.CompileError, reason: errors.join("\n") }
      : { status: CheckStatus.Passed };
  }

  #diagnostics(changed?: string[]): string[] {
    if (!this.#api) throw new Error("the checker was not initialised");
    const snapshot = this.#api.updateSnapshot({
      openProject: this.#tsconfig,
      ...(changed ? { fileChanges: { changed } } : {}),
    });
    try {
      const errors: string[] = [];
      for (const project of snapshot.getProjects()) {
        for (const file of project.program.getSourceFileNames()) this.#projectFiles.add(path.resolve(file));
        const found = [
          ...project.program.getSyntacticDiagnostics(),
          ...project.program.getSemanticDiagnostics(),
        ];
        for (const d of found) {
          if (d.category === DiagnosticCategory.Error)
            errors.push(`${d.fileName ?? "?"}:${d.pos}: TS${d.code} ${d.text}`);
        }
      }
      return errors;
    } finally {
      snapshot.dispose();
    }
  }

  async dispose(): Promise<void> {
    this.#api?.close();
  }
}

export const strykerPlugins = [declareClassPlugin(PluginKind.Checker, "tsc", TscChecker)];
