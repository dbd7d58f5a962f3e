// A kstatus-like one-word summary of an object: the readiness model's
// judgement (readiness.ts), with Terminating first. Time-dependent only
// through "the ready condition away from its desired status for longer than
// failedAfterSeconds", so the result also says when it would next change.
import { judge, type ReadinessRules } from "./readiness.ts";
import type { ObjectState } from "./state.ts";

export const statusResults = ["Current", "InProgress", "Failed", "Terminating", "Unknown"] as const;
export type StatusResult = (typeof statusResults)[number];

export interface StatusSummary {
  result: StatusResult;
  /** Epoch seconds at which the result turns Failed without any new event, if pending. */
  changesAt: number | undefined;
}

export function summarizeStatus(state: ObjectState, rules: ReadinessRules, now: number): StatusSummary {
  if (state.deletionTimestamp !== undefined) return { result: "Terminating", changesAt: undefined };
  const { result, failsAt } = judge(state, rules, now);
  return { result, changesAt: failsAt };
}
