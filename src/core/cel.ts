// A CEL expression of the configuration (`readiness.cel`, a `values` entry's
// `cel`) as the core sees it: a plain value compiled once at configuration
// load (src/cel/compile.ts) and passed in with the kind's settings. The core
// never loads the CEL library; it asks a program for its result on an object
// and gets a value or a bounded reason, never an exception.

/**
 * Why an evaluation gave no result (the `reason` label of
 * cr_exporter_cel_errors_total): a field or key the object lacks, an operator
 * or function applied to the wrong types, a result the field does not take
 * (readiness: not Current, InProgress, Failed or a bool; a value: not a
 * number, bool, timestamp or duration), the evaluation's cost limit, or
 * anything else (division by zero, overflow, a malformed timestamp string).
 */
export const celFailures = ["no_such_key", "wrong_type", "bad_result", "cost_limit", "other"] as const;
export type CelFailure = (typeof celFailures)[number];

export type CelOutcome<T> =
  | { ok: true; value: T }
  | {
      ok: false;
      reason: CelFailure;
      /** What went wrong, for the log (never a label). */
      message: string;
    };

export interface CelProgram<T> {
  /** The expression as written. */
  readonly source: string;
  /** The result on `object` (a custom resource as the API returned it). Never throws. */
  evaluate(object: Record<string, unknown>): CelOutcome<T>;
}

/** What a readiness expression decides: cr_status's result. */
export type CelReadinessResult = "Current" | "InProgress" | "Failed";

/**
 * A value expression's result as a number; null when the expression says
 * there is none (it returned null): no series, and no error.
 */
export type CelValueResult = number | null;

/** An evaluation that failed, for the count and the log (ObjectCuts). */
export interface CelError {
  /** `readiness.cel`, or the value's name (cr_value's field). */
  field: string;
  reason: CelFailure;
  message: string;
}

/** The `field` label of the readiness expression's errors (a value's name never has a dot). */
export const readinessCelField = "readiness.cel";
