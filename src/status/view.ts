// The read-only view of one object that the status page, the JSON API and the
// CLI work on: identity, the kstatus-like result, conditions with their
// messages, generation lag, termination, and the recent transitions this
// exporter saw. It holds only what a person looks at; the query layer never
// reads raw objects or the metric store.
import type { StatusResult } from "../core/kstatus.ts";
import type { ConditionStatus, ConditionTimeSource } from "../core/state.ts";

export interface ConditionView {
  type: string;
  status: ConditionStatus;
  reason: string;
  /** Already capped (see messageMaxChars); shown as text, never used as a label. */
  message: string;
  /** Epoch seconds of lastTransitionTime, else of when the exporter first saw the status. */
  since: number | undefined;
  /** Where `since` comes from: exporter_start says "since exporter start" (a lower bound). */
  sinceSource: ConditionTimeSource | undefined;
  observedGeneration: number | undefined;
}

/** One entry of an object's transition ring. */
export interface TransitionRecord {
  /** Epoch seconds. */
  at: number;
  what: "created" | "condition" | "generation" | "observedGeneration" | "phase" | "terminating";
  /** Condition type, for `condition`. */
  type?: string;
  from?: string;
  to?: string;
  /** Capped like condition reasons and messages. */
  reason?: string;
  message?: string;
}

export interface ObjectView {
  group: string;
  version: string;
  kind: string;
  /** "" for cluster-scoped objects. */
  namespace: string;
  name: string;
  uid: string;
  /** The allow-listed extra labels (config `labels`), for label selectors. */
  labels: Readonly<Record<string, string>>;
  result: StatusResult;
  /** The configured Ready condition, undefined when the object has none. */
  ready: ConditionView | undefined;
  conditions: readonly ConditionView[];
  phase: string | undefined;
  generation: number | undefined;
  observedGeneration: number | undefined;
  /** Epoch seconds at which the current generation was asked for (spec write, creation, or first seen). */
  generationRequestedAt: number | undefined;
  /** Epoch seconds. */
  createdAt: number | undefined;
  /** Epoch seconds of metadata.deletionTimestamp while terminating. */
  terminatingSince: number | undefined;
  /** Condition status changes inside the source's flapping window (saturates at the ring's capacity). */
  transitionsInWindow: number;
  /** Newest last; at most ringCapacity entries. */
  recentTransitions: readonly TransitionRecord[];
  /** Trace id of the open generation span, when tracing is on and one is open. */
  traceId: string | undefined;
}

export interface KindRef {
  group: string;
  version: string;
  kind: string;
}

/** What the routes and the CLI read from; the running exporter and a one-shot cluster list both provide one. */
export interface ViewSource {
  /** Every kind being watched, also those with no objects yet. */
  kinds(): readonly KindRef[];
  objects(): Iterable<ObjectView>;
  get(uid: string): ObjectView | undefined;
  /** Epoch seconds. */
  now(): number;
}

/** Per-object text and history caps: what bounds the memory the view costs. */
export const viewCaps = {
  /** Entries kept in each object's transition ring. */
  ringCapacity: 8,
  /** Characters of a condition message kept in a ring entry (the current message keeps the projection's cap). */
  ringMessageChars: 80,
  /** Characters of a reason kept in a ring entry. */
  ringReasonChars: 48,
} as const;

/**
 * Cuts text to `max` characters, marking the cut with "...". A cut string is
 * copied: V8 keeps the whole original alive behind a plain slice, so a 10 KB
 * message sliced to 120 characters would still cost 10 KB. The ASCII marker
 * keeps an ASCII message at one byte per character.
 */
export function capText(text: string, max: number): string {
  if (text.length <= max) return text;
  return Buffer.from(`${text.slice(0, Math.max(0, max - 3))}...`, "utf8").toString("utf8");
}
