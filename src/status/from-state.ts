// ObjectState (the projection every object goes through) → ObjectView. The
// running exporter builds views this way from its store, and the CLI's direct
// cluster mode from a single list, so both show the same result for the same
// object.

import { conditionChangesSince, emptyRing, type TransitionRecord } from "../core/change/transition-ring.ts";
import type { LatestWarning } from "../core/events/warning-event.ts";
import { requestTime } from "../core/judge/generations.ts";
import type { ReadinessRules } from "../core/judge/readiness.ts";
import { summarizeStatus } from "../core/judge/readiness.ts";
import type { ConditionState, ObjectState, ResourceIdentity, StatusResult } from "../core/state.ts";
import type { ConditionView, ObjectView } from "./view.ts";

export interface ViewInputs {
  identity: Pick<ResourceIdentity, "group" | "version" | "kind" | "resource">;
  state: ObjectState;
  /** The kind's readiness rules (core/judge/readiness.ts). */
  status: ReadinessRules;
  /** Epoch seconds. */
  now: number;
  /** The result the pipeline keeps current (the one cr_status shows); computed at `now` when absent. */
  result?: StatusResult | undefined;
  /** When the current generation was asked for, if the pipeline knows (spec write, creation, first seen). */
  generationRequestedAt?: number | undefined;
  ring?: readonly TransitionRecord[];
  flappingWindowSeconds: number;
  traceId?: string | undefined;
  /** The object's latest Warning event, when the pipeline watches them. */
  warning?: LatestWarning | undefined;
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

export function toObjectView(inputs: ViewInputs): ObjectView {
  const { state, identity } = inputs;
  const conditions = state.conditions.map(conditionView);
  const ring = inputs.ring ?? emptyRing;
  return {
    group: identity.group,
    version: identity.version,
    kind: identity.kind,
    resource: identity.resource,
    namespace: state.namespace,
    name: state.name,
    uid: state.uid,
    labels: state.extraLabels,
    result: inputs.result ?? summarizeStatus(state, inputs.status, inputs.now).result,
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
    warning: inputs.warning,
  };
}
