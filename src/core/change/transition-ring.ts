// The bounded history of one object's transitions that the status page and
// its API show. Immutable: appending returns a new array of at most
// `ringCaps.capacity` entries, so the pure per-object pipeline keeps it in the
// entry it returns. Status writes are not recorded (a controller rewriting
// status in a loop would push everything else out); what is recorded is what
// a person asks about: condition status changes, generation bumps and
// catch-ups, phase changes, termination.
import type { Transition } from "../state.ts";

/** One entry of an object's transition ring. */
export interface TransitionRecord {
  /** Epoch seconds. */
  at: number;
  what: "condition" | "generation" | "observedGeneration" | "phase" | "terminating";
  /** Condition type, for `condition`. */
  type?: string;
  from?: string;
  to?: string;
  /** Capped (ringCaps). */
  reason?: string;
  message?: string;
}

/** What bounds the memory one object's ring costs. */
export const ringCaps = {
  /** Entries kept per object. */
  capacity: 8,
  /** Characters of a condition message kept in an entry (the current message keeps the projection's cap). */
  messageChars: 80,
  /** Characters of a reason kept in an entry. */
  reasonChars: 48,
} as const;

/** Shared by every object with no recorded transition: a field pointing here is all such an object pays. */
export const emptyRing: readonly TransitionRecord[] = Object.freeze([]);

/**
 * Cuts text to `max` characters, marking the cut with "...". A cut string is
 * copied: V8 keeps the whole original alive behind a plain slice, so a 10 KB
 * message sliced to 80 characters would still cost 10 KB. The ASCII marker
 * keeps an ASCII message at one byte per character.
 */
export function capText(text: string, max: number): string {
  if (text.length <= max) return text;
  return Buffer.from(`${text.slice(0, Math.max(0, max - 3))}...`, "utf8").toString("utf8");
}

/** The ring entry for one transition, or undefined for the kinds the ring does not keep. */
export function recordOf(t: Transition): TransitionRecord | undefined {
  switch (t.kind) {
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
        reason: capText(t.reason, ringCaps.reasonChars),
        message: capText(t.message, ringCaps.messageChars),
      };
  }
  // created (the first sight is the current state, not a change), deleted, statusWrite.
  return undefined;
}

/** `ring` with the recordable `transitions` appended, oldest dropped beyond `capacity`. Same array when nothing is recorded. */
export function appendTransitions(
  ring: readonly TransitionRecord[],
  transitions: readonly Transition[],
  capacity: number = ringCaps.capacity,
): readonly TransitionRecord[] {
  // Most changes are status writes only: nothing is allocated for them.
  let added: TransitionRecord[] | undefined;
  for (const t of transitions) {
    const record = recordOf(t);
    if (!record) continue;
    if (added) added.push(record);
    else added = [record];
  }
  if (!added) return ring;
  // concat and slice allocate exactly what they hold; `added` grew by push and has room for 17.
  const all = ring.concat(added);
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
