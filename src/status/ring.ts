// The bounded history of one object's transitions, as the status page shows
// it. Immutable: appending returns a new array of at most `capacity` entries,
// so a pure pipeline can keep it in the entry it returns. Status writes are
// not recorded (a controller rewriting status in a loop would push everything
// else out); what is recorded is what a person asks about: condition status
// changes, generation bumps and catch-ups, phase changes, termination.
import type { Transition } from "../core/state.ts";
import { capText, type TransitionRecord, viewCaps } from "./view.ts";

/** The ring entry for one transition, or undefined for the kinds the ring does not keep. */
export function recordOf(t: Transition): TransitionRecord | undefined {
  switch (t.kind) {
    case "created":
    case "terminating":
      return { at: t.at, what: t.kind };
    case "generation":
    case "observedGeneration":
      return { at: t.at, what: t.kind, from: t.from?.toString(), to: t.to?.toString() };
    case "phase":
      return { at: t.at, what: "phase", from: t.from, to: t.to };
    case "condition":
      return {
        at: t.at,
        what: "condition",
        type: t.type,
        from: t.from,
        to: t.to,
        reason: capText(t.reason, viewCaps.ringReasonChars),
        message: capText(t.message, viewCaps.ringMessageChars),
      };
    default:
      return undefined;
  }
}

/** `ring` with the recordable `transitions` appended, oldest dropped beyond `capacity`. Same array when nothing is recorded. */
export function appendTransitions(
  ring: readonly TransitionRecord[],
  transitions: readonly Transition[],
  capacity: number = viewCaps.ringCapacity,
): readonly TransitionRecord[] {
  const added: TransitionRecord[] = [];
  for (const t of transitions) {
    const record = recordOf(t);
    if (record) added.push(record);
  }
  if (added.length === 0) return ring;
  const all = ring.length === 0 ? added : [...ring, ...added];
  return all.length <= capacity ? all : all.slice(all.length - capacity);
}

/** Condition status changes at or after `since` (epoch seconds): the flapping measure. */
export function conditionChangesSince(ring: readonly TransitionRecord[], since: number): number {
  let count = 0;
  for (const record of ring) {
    // Appearing or disappearing conditions are not flapping; a status change is.
    if (
      record.what === "condition" &&
      record.at >= since &&
      record.from !== undefined &&
      record.to !== undefined
    )
      count++;
  }
  return count;
}
