// Phase → result, for kinds that have a phase and no readiness condition
// (phase-only kinds): a per-resource table wins; otherwise a conservative
// default that only knows names whose meaning is plain. A phase it does not
// know stays Unknown — never Current — so a new failure phase cannot pass for
// healthy. "Running" or "Pending" are progress only for run-to-completion
// kinds; for a long-running kind they may be its healthy steady state, so the
// default leaves them Unknown there.
import type { StatusResult } from "../state.ts";

export type PhaseResult = Extract<StatusResult, "Current" | "InProgress" | "Failed" | "Unknown">;

/** What a per-resource table may map a phase to. */
export type MappedPhaseResult = Exclude<PhaseResult, "Unknown">;

export interface PhaseResultRule {
  result: MappedPhaseResult;
  /** Applies to run-to-completion kinds only. */
  runsOnly: boolean;
  /** Matched without regard to case: projects spell the same phase Failed and failed. */
  phases: readonly string[];
}

export const defaultPhaseResults: readonly PhaseResultRule[] = [
  { result: "Failed", runsOnly: false, phases: ["Failed", "Error", "PartiallyFailed"] },
  { result: "InProgress", runsOnly: true, phases: ["Pending", "InProgress", "Running"] },
  { result: "Current", runsOnly: false, phases: ["Completed", "Succeeded", "Available", "Ready"] },
];

export interface PhaseMapping {
  runToCompletion: boolean;
  /** Per-resource table (phase → result), matched exactly; wins over the default. */
  overrides: Readonly<Record<string, MappedPhaseResult>>;
}

export interface PhaseVerdict {
  result: PhaseResult;
  /** override: the per-resource table; default: the default table; unmapped: neither knows it; absent: no phase. */
  source: "override" | "default" | "unmapped" | "absent";
}

const defaultIndex = (runToCompletion: boolean): Map<string, MappedPhaseResult> => {
  const index = new Map<string, MappedPhaseResult>();
  for (const rule of defaultPhaseResults) {
    if (rule.runsOnly && !runToCompletion) continue;
    for (const phase of rule.phases) index.set(phase.toLowerCase(), rule.result);
  }
  return index;
};

const defaultsForRuns = defaultIndex(true);
const defaultsForOthers = defaultIndex(false);

export function phaseResult(phase: string | undefined, mapping: PhaseMapping): PhaseVerdict {
  if (phase === undefined || phase === "") return { result: "Unknown", source: "absent" };
  const override = Object.hasOwn(mapping.overrides, phase) ? mapping.overrides[phase] : undefined;
  if (override) return { result: override, source: "override" };
  const defaults = mapping.runToCompletion ? defaultsForRuns : defaultsForOthers;
  const result = defaults.get(phase.toLowerCase());
  return result ? { result, source: "default" } : { result: "Unknown", source: "unmapped" };
}

/** The result of each known phase value, for `explain` and documentation. */
export function phaseResultTable(values: readonly string[], mapping: PhaseMapping): [string, PhaseVerdict][] {
  return values.map((value) => [value, phaseResult(value, mapping)]);
}
