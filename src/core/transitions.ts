// What changed between two observations of one object. Pure: the caller passes
// the observation time. Coalesced updates (a relist after a gap) yield the net
// change only, which is all the API can tell us.
import type { ConditionState, ObjectState, Transition } from "./state.ts";

function byType(conditions: readonly ConditionState[]): Map<string, ConditionState> {
  return new Map(conditions.map((c) => [c.type, c]));
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

  const before = byType(previous.conditions);
  const after = byType(next.conditions);
  for (const [type, current] of after) {
    const old = before.get(type);
    if (old?.status === current.status) continue;
    out.push({
      kind: "condition",
      type,
      from: old?.status,
      to: current.status,
      at: current.lastTransitionTime ?? now,
      since: old?.lastTransitionTime,
      reason: current.reason,
      message: current.message,
    });
  }
  for (const [type, old] of before) {
    if (after.has(type)) continue;
    out.push({
      kind: "condition",
      type,
      from: old.status,
      to: undefined,
      at: now,
      since: old.lastTransitionTime,
      reason: "",
      message: "",
    });
  }

  // A write whose only effect is on metadata (labels, annotations, finalizers,
  // spec → generation) is not a status write. Otherwise a changed status digest
  // is a real status update and an unchanged one a no-op write.
  const statusChanged = previous.statusDigest !== next.statusDigest;
  const metaChanged = previous.metaDigest !== next.metaDigest;
  if (statusChanged) out.push({ kind: "statusWrite", noop: false, at: now });
  else if (!metaChanged) out.push({ kind: "statusWrite", noop: true, at: now });
  return out;
}
