// A DetectedShape in one line per aspect, so table tests read like the
// decision table they check.
import { type DetectedShape, dotted } from "../../src/core/detect/shape.ts";

export interface ShapeSummary {
  basis: string;
  /** Path of the conditions used, "-" for none. */
  conditions: string;
  /** Condition entries carry lastTransitionTime; "-" without conditions. */
  times: string;
  /** "<source> <path>" of the object-level observedGeneration. */
  generation: string;
  /** "<path> [<values>]", "-" for none. */
  phase: string;
  /** "<condition> (<source>)", "? (pending)" while it is to be learned, "- (<source>)" for none. */
  ready: string;
  run: boolean;
  states: string;
  suspend: string;
  learning: boolean;
}

/** The summary aspects of a kind without conditions (and so without condition times or observedGeneration). */
export const withoutConditions = { conditions: "-", times: "-", generation: "none" } as const;

export function summarize(shape: DetectedShape): ShapeSummary {
  const { readiness } = shape;
  const ready = readiness.pending
    ? `${readiness.condition ?? "?"} (pending)`
    : `${readiness.condition ?? "-"} (${readiness.source})`;
  return {
    basis: shape.basis,
    conditions: shape.conditions ? dotted(shape.conditions.path) : "-",
    times: shape.conditions
      ? shape.conditions.lastTransitionTime
        ? "lastTransitionTime"
        : "first seen"
      : "-",
    generation: `${shape.observedGeneration.source}${shape.observedGeneration.path ? ` ${dotted(shape.observedGeneration.path)}` : ""}`,
    phase: shape.phase ? `${dotted(shape.phase.path)} [${shape.phase.values.join(",")}]` : "-",
    ready,
    run: shape.runToCompletion.value,
    states: shape.states.map((s) => `${dotted(s.path)}=${s.readyValue}`).join(" ") || "-",
    suspend: shape.suspendPath ? dotted(shape.suspendPath) : "-",
    learning: shape.learning,
  };
}

/** The aspects objects can change (basis and learning say how far learning got, not what was decided). */
export function decisions(summary: ShapeSummary): Omit<ShapeSummary, "basis" | "learning"> {
  const { basis: _basis, learning: _learning, ...rest } = summary;
  return rest;
}
