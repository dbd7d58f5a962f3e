// Hand-made detection evidence and the decision on it, for tests of the
// decision and of how it is described.

import { type DecisionInput, decideShape } from "../../src/core/detect/decide.ts";
import type { DetectedShape } from "../../src/core/detect/shape.ts";
import {
  type ConditionArrayEvidence,
  emptyEvidence,
  type FieldPath,
  type ShapeEvidence,
  type StringFieldEvidence,
} from "../../src/core/detect/shape.ts";

/** A list of conditions at `path` whose schema declares Ready and lastTransitionTime. */
export const conditionList = (
  path: FieldPath,
  more: Partial<ConditionArrayEvidence> = {},
): ConditionArrayEvidence => ({
  path,
  declaredTypes: ["Ready"],
  observedTypes: [],
  lastTransitionTime: true,
  observedGeneration: false,
  ...more,
});

/** A string field at `path` without enum. */
export const stringField = (
  path: FieldPath,
  more: Partial<StringFieldEvidence> = {},
): StringFieldEvidence => ({
  path,
  declaredValues: undefined,
  observedValues: [],
  ...more,
});

/** The decision for a v1 schema with a status subresource, still sampling, on this evidence. */
export function decideOn(evidence: Partial<ShapeEvidence>, more: Partial<DecisionInput> = {}): DetectedShape {
  return decideShape({
    version: "v1",
    basis: "schema",
    statusSubresource: true,
    openStatus: false,
    statusUndeclared: false,
    samplingDone: false,
    evidence: { ...emptyEvidence, ...evidence },
    ...more,
  });
}
