// The read-only view of one object that the status page, the JSON API and the
// CLI work on: identity, the kstatus-like result, conditions with their
// messages, generation lag, termination, and the recent transitions this
// exporter saw. It holds only what a person looks at; the query layer never
// reads raw objects or the metric store.

import type { TransitionRecord } from "../core/change/transition-ring.ts";
import type { LatestWarning } from "../core/events/warning-event.ts";
import type { ConditionStatus, ConditionTimeSource, StatusResult } from "../core/state.ts";

export type { LatestWarning, TransitionRecord };

export interface ConditionView {
  type: string;
  status: ConditionStatus;
  reason: string;
  /** Already capped (the projection's messageMaxLength); shown as text, never used as a label. */
  message: string;
  /** Epoch seconds of lastTransitionTime, else of when the exporter first saw the status. */
  since: number | undefined;
  /** Where `since` comes from: exporter_start says "since exporter start" (a lower bound). */
  sinceSource: ConditionTimeSource | undefined;
  observedGeneration: number | undefined;
}

export interface ObjectView {
  group: string;
  version: string;
  kind: string;
  /** The plural resource name. */
  resource: string;
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
  /** Newest last; at most ringCaps.capacity entries (core/change/transition-ring.ts). */
  recentTransitions: readonly TransitionRecord[];
  /** Trace id of the open generation span, when tracing is on and one is open. */
  traceId: string | undefined;
  /** The newest Kubernetes Warning event about the object (warningEvents), message cut to 256 characters. */
  warning: LatestWarning | undefined;
}

export interface KindRef {
  group: string;
  version: string;
  kind: string;
  /** The plural resource name (for kind filters given as `widgets` or `widgets.example.com`). */
  resource: string;
}

/** What the routes and the CLI read from; the running exporter and a one-shot cluster list both provide one. */
export interface ViewSource {
  /** Every kind being watched, also those with no objects yet. */
  kinds(): readonly KindRef[];
  objects(): Iterable<ObjectView>;
  get(uid: string): ObjectView | undefined;
  /**
   * The trace id of a view from objects() whose own is not filled in because
   * the lookup costs (a hash per object): asked only for the objects shown.
   */
  traceId?(view: ObjectView): string | undefined;
  /** Epoch seconds. */
  now(): number;
}
