// Argo CD's Application as the state-field tests see it: the health and sync
// fields read, the readiness rule over them, and a shape decided from a
// schema's evidence alone.

import { decideShape } from "../../src/core/detect/decide.ts";
import { type DetectedShape, emptyEvidence, type ShapeEvidence } from "../../src/core/detect/shape.ts";
import { defaultReadinessRules, type ReadinessRules } from "../../src/core/judge/readiness.ts";

export const argoStateSources = [
  { name: "health", path: ["status", "health", "status"] },
  { name: "sync", path: ["status", "sync", "status"] },
];

/** Healthy and Synced ready, Degraded failing: the rule zero config gives an Application. */
export const argoReadiness: ReadinessRules = {
  ...defaultReadinessRules,
  readyCondition: undefined,
  states: [
    { name: "health", ready: ["Healthy"], failed: ["Degraded"] },
    { name: "sync", ready: ["Synced"], failed: [] },
  ],
};

/** What detection decides from a closed schema with this evidence (no objects seen yet). */
export function schemaShape(evidence: Partial<ShapeEvidence>, statusSubresource = true): DetectedShape {
  return decideShape({
    version: "v1",
    basis: "schema",
    statusSubresource,
    openStatus: false,
    statusUndeclared: false,
    samplingDone: false,
    evidence: { ...emptyEvidence, ...evidence },
  });
}
