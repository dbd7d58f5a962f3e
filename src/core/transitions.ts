// What changed between two observations of one object. Pure: the caller passes
// the observation time. Coalesced updates (a relist after a gap) yield the net
// change only, which is all the API can tell us.
import type { ConditionState, ObjectState, Transition } from "./state.ts";

function find(conditions: readonly ConditionState[], type: string): ConditionState | undefined {
  for (const c of conditions) if (c.type === type) return c;
  return undefined;
}

/**
 * What counts as a meaningful status change: a condition's status, reason,
 * observedGeneration or transition time (or the list of conditions itself),
 * phase, observedGeneration, heartbeat. Messages and untracked status fields
 * are not: a write that only rewrites them is a no-op write.
 */
export function statusChanged(previous: ObjectState, next: ObjectState): boolean {
  if (
    previous.observedGeneration !== next.observedGeneration ||
    previous.phase !== next.phase ||
    previous.heartbeat !== next.heartbeat ||
    previous.conditions.length !== next.conditions.length
  ) {
    return true;
  }
  for (let i = 0; i < next.conditions.length; i++) {
    const a = previous.conditions[i] as ConditionState;
    const b = next.conditions[i] as ConditionState;
    if (
      a.type !== b.type ||
      a.status !== b.status ||
      a.reason !== b.reason ||
      a.observedGeneration !== b.observedGeneration ||
      a.lastTransitionTime !== b.lastTransitionTime
    ) {
      return true;
    }
  }
  return false;
}

export function diffStates(previous: ObjectState | undefined, next: ObjectState, now: number): Transition[] {
  if (!previous) return [{ kind: "created", at: next.creationTimestamp ?? now }];
  if (previous.resourceVersion === next.resourceVersion && previous.resourceVersion !== "") return [];
  const out: Transition[] = [];
  if (previous.generation !== next.generation) {
    out.push({
      kind: "generation",
      from: previous.generation,
      to: next.generation,
      at: next.specChangedAt ?? now,
    });
  }
  if (previous.observedGeneration !== next.observedGeneration) {
    out.push({
      kind: "observedGeneration",
      from: previous.observedGeneration,
      to: next.observedGeneration,
      at: now,
    });
  }
  if (previous.phase !== next.phase)
    out.push({ kind: "phase", from: previous.phase, to: next.phase, at: now });
  if (previous.deletionTimestamp === undefined && next.deletionTimestamp !== undefined) {
    out.push({ kind: "terminating", at: next.deletionTimestamp });
  }

  for (const current of next.conditions) {
    const old = find(previous.conditions, current.type);
    if (old?.status === current.status) continue;
    out.push({
      kind: "condition",
      type: current.type,
      from: old?.status,
      to: current.status,
      at: current.lastTransitionTime ?? now,
      since: old?.lastTransitionTime,
      reason: current.reason,
      message: current.message,
    });
  }
  for (const old of previous.conditions) {
    if (find(next.conditions, old.type)) continue;
    out.push({
      kind: "condition",
      type: old.type,
      from: old.status,
      to: undefined,
      at: now,
      since: old.lastTransitionTime,
      reason: "",
      message: "",
    });
  }

  // A write whose only effect is on metadata (labels, annotations, finalizers,
  // spec → generation) is not a status write. Otherwise a changed status is a
  // real status update and an unchanged one a no-op write.
  if (statusChanged(previous, next)) out.push({ kind: "statusWrite", noop: false, at: now });
  else if (previous.metaDigest === next.metaDigest) out.push({ kind: "statusWrite", noop: true, at: now });
  return out;
}
