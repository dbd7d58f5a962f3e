// What changed between two observations of one object. Pure: the caller passes
// the observation time. Coalesced updates (a relist after a gap) yield the net
// change only, which is all the API can tell us.
import { findCondition } from "../judge/readiness.ts";
import type { ObjectState, Transition } from "../state.ts";

/**
 * A status change: anything in status other than the volatile timestamps
 * (project.ts: heartbeats, probe, update and reconcile stamps). A condition's
 * new message (progress text) is a change; a write that only restamps a
 * heartbeat is not — it is a no-op status write.
 */
export function statusChanged(previous: ObjectState, next: ObjectState): boolean {
  return previous.statusDigest !== next.statusDigest;
}

/** A generation bump that changed the spec (without a spec digest, every bump did). */
function specChanged(previous: ObjectState, next: ObjectState): boolean {
  if (previous.generation === next.generation) return false;
  return previous.specDigest === undefined || previous.specDigest !== next.specDigest;
}

export function diffStates(previous: ObjectState | undefined, next: ObjectState, now: number): Transition[] {
  if (!previous) return [{ kind: "created", at: next.creationTimestamp ?? now }];
  if (previous.resourceVersion === next.resourceVersion && previous.resourceVersion !== "") return [];
  const out: Transition[] = [];
  const specWrite = specChanged(previous, next);
  if (previous.generation !== next.generation) {
    out.push({
      kind: "generation",
      from: previous.generation,
      to: next.generation,
      at: next.specChangedAt ?? now,
      specChanged: specWrite,
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
    const old = findCondition(previous, current.type);
    if (old?.status === current.status) continue;
    out.push({
      kind: "condition",
      type: current.type,
      from: old?.status,
      to: current.status,
      at: current.since ?? now,
      since: old?.since,
      reason: current.reason,
      message: current.message,
    });
  }
  for (const old of previous.conditions) {
    if (findCondition(next, old.type)) continue;
    out.push({
      kind: "condition",
      type: old.type,
      from: old.status,
      to: undefined,
      at: now,
      since: old.since,
      reason: "",
      message: "",
    });
  }

  // A write whose only effect is on metadata (labels, annotations, finalizers)
  // or spec is not a status write. Otherwise a changed status is a real status
  // update and an unchanged one (volatile timestamps aside) a no-op write.
  if (statusChanged(previous, next)) out.push({ kind: "statusWrite", noop: false, at: now });
  else if (previous.metaDigest === next.metaDigest && !specWrite)
    out.push({ kind: "statusWrite", noop: true, at: now });
  return out;
}
