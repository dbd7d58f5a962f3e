// ObjectState (the projection every object goes through) → ObjectView. The
// running exporter builds views this way from its store, and the CLI's direct
// cluster mode from a single list, so both show the same result for the same
// object.

import { requestTime } from "../core/generations.ts";
import { summarizeStatus } from "../core/kstatus.ts";
import type { ReadinessRules } from "../core/readiness.ts";
import type { ConditionState, ObjectState, ResourceIdentity } from "../core/state.ts";
import { conditionChangesSince } from "./ring.ts";
import type { ConditionView, ObjectView, TransitionRecord } from "./view.ts";

export interface ViewInputs {
  identity: Pick<ResourceIdentity, "group" | "version" | "kind">;
  state: ObjectState;
  /** The kind's readiness rules (core/readiness.ts). */
  status: ReadinessRules;
  /** Epoch seconds. */
  now: number;
  /** When the current generation was asked for, if the pipeline knows (spec write, creation, first seen). */
  generationRequestedAt?: number | undefined;
  ring?: readonly TransitionRecord[];
  flappingWindowSeconds: number;
  traceId?: string | undefined;
}

function conditionView(c: ConditionState): ConditionView {
  return {
    type: c.type,
    status: c.status,
    reason: c.reason,
    message: c.message,
    since: c.since,
    sinceSource: c.sinceSource,
    observedGeneration: c.observedGeneration,
  };
}

/** Shared by every view without transitions: an empty array per object would cost 32 bytes each. */
const noTransitions: readonly TransitionRecord[] = Object.freeze([]);

export function toObjectView(inputs: ViewInputs): ObjectView {
  const { state, identity } = inputs;
  const conditions = state.conditions.map(conditionView);
  const ring = inputs.ring ?? noTransitions;
  return {
    group: identity.group,
    version: identity.version,
    kind: identity.kind,
    namespace: state.namespace,
    name: state.name,
    uid: state.uid,
    labels: state.extraLabels,
    result: summarizeStatus(state, inputs.status, inputs.now).result,
    ready: conditions.find((c) => c.type === inputs.status.readyCondition),
    conditions,
    phase: state.phase,
    generation: state.generation,
    observedGeneration: state.observedGeneration,
    // Without the pipeline's memory (a one-shot list): creation for generation 1, else the last spec write.
    generationRequestedAt: inputs.generationRequestedAt ?? requestTime(undefined, state, false, inputs.now),
    createdAt: state.creationTimestamp,
    terminatingSince: state.deletionTimestamp,
    transitionsInWindow: conditionChangesSince(ring, inputs.now - inputs.flappingWindowSeconds),
    recentTransitions: ring,
    traceId: inputs.traceId,
  };
}
