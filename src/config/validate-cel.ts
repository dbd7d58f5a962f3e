// The configuration's CEL expressions (`readiness.cel`, a `values` entry's
// `cel`): each compiled here, once per load, so a bad one is a problem named
// by its path (`resources[0].readiness.cel: undeclared reference to 'objct'
// at 1:1`) and the last good configuration keeps running; and the readiness
// expression's place among the other readiness options.
import { compileCel, maxCelLength } from "../cel/compile.ts";
import type { CelProgram, CelReadinessResult, CelValueResult } from "../core/cel.ts";
import type { Checker, Raw } from "./checker.ts";
import type { Schema } from "./option.ts";

/** `readiness: { cel }`: an expression that decides cr_status for the kind. */
export interface ReadinessOption {
  cel: CelProgram<CelReadinessResult>;
}

/** What a file may hold at an expression. */
export const celSchema: Schema = (Type) => Type.String({ minLength: 1, maxLength: maxCelLength });

/** What a file may hold at `readiness`. */
export const readinessSchema: Schema = (Type) =>
  Type.Object({ cel: celSchema(Type) }, { additionalProperties: false });

type ResultOf<P extends "readiness" | "value"> = P extends "readiness" ? CelReadinessResult : CelValueResult;

/** The expression at `path` compiled, or undefined (absent, or a problem recorded). */
export function celExpression<P extends "readiness" | "value">(
  c: Checker,
  path: string,
  value: unknown,
  purpose: P,
): CelProgram<ResultOf<P>> | undefined {
  const source = c.string(path, value);
  if (source === undefined) return undefined;
  const compiled = compileCel(source, purpose);
  if ("problem" in compiled) {
    c.problems.push(`${path}: ${compiled.problem}`);
    return undefined;
  }
  return compiled.program;
}

/** `readiness: { cel }`; undefined when absent. */
export function readinessOption(c: Checker, path: string, value: unknown): ReadinessOption | undefined {
  if (value === undefined) return undefined;
  const raw = c.object(path, value, ["cel"]);
  if (!raw) return undefined;
  if (raw.cel === undefined) {
    c.problems.push(
      `${path}.cel: required (an expression over object returning Current, InProgress, Failed or a bool)`,
    );
    return undefined;
  }
  const cel = celExpression(c, `${path}.cel`, raw.cel, "readiness");
  return cel && { cel };
}

/**
 * The options a readiness expression takes the place of: in one mapping (a
 * resource entry, or one `kinds` override) giving both is a problem naming
 * them; where a `kinds` override gives one and its entry the other, the
 * override's wins for that kind (mergeReadiness).
 */
export const displacedByReadiness = ["readyCondition", "phaseResults"] as const;

/** States with `ready` or `failed` values are part of readiness too: with an expression they would do nothing. */
function judgingStates(raw: Raw): number[] {
  if (!Array.isArray(raw.states)) return [];
  return raw.states.flatMap((s: unknown, i) =>
    typeof s === "object" && s !== null && ("ready" in s || "failed" in s) ? [i] : [],
  );
}

/** Problems of a mapping that gives a readiness expression and what it replaces. */
export function readinessConflicts(c: Checker, path: string, raw: Raw): void {
  if (raw.readiness === undefined) return;
  const at = (key: string) => (path ? `${path}.${key}` : key);
  for (const key of displacedByReadiness) {
    if (raw[key] !== undefined)
      c.problems.push(
        `${at(key)}: readiness.cel decides cr_status for this kind; give ${key} or readiness.cel, not both`,
      );
  }
  for (const i of judgingStates(raw))
    c.problems.push(
      `${at(`states[${i}]`)}: ready/failed take part in readiness, which readiness.cel decides for this kind; drop them (the state is still exported) or the expression`,
    );
}

/**
 * A `kinds` override's options over its entry's: what the override gives
 * replaces the entry's value; a readiness expression and the options it
 * takes the place of replace each other.
 */
export function mergeReadiness(entry: Raw, given: Raw): Raw {
  const merged: Raw = { ...entry, ...given };
  if (given.readiness !== undefined) for (const key of displacedByReadiness) delete merged[key];
  if (displacedByReadiness.some((key) => given[key] !== undefined)) delete merged.readiness;
  return merged;
}
