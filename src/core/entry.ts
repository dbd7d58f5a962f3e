// What the store keeps per object: the projected state, its counters and
// memory, the judgement and its pre-rendered series. A type only, below every
// stage that makes or reads entries (object-update, entry-diff, aggregate,
// the collectors' store), so none of them imports another for it.

import type { HeldLabels } from "./change/label-bounds.ts";
import type { TransitionRecord } from "./change/transition-ring.ts";
import type { LatestWarning } from "./events/warning-event.ts";
import type { ObjectMemory } from "./judge/generations.ts";
import type { ObjectCounters, ObjectSeries } from "./series/render.ts";
import type { ObjectState, StatusResult } from "./state.ts";

/**
 * What tracing keeps of an object between its changes (its span planner's
 * state, src/tracing/planner/model.ts): kept here, in the object's one
 * record, and only carried along by the core.
 */
export interface TraceRecord {
  /** Set while a root span (a generation, a degraded interval) is open. */
  readonly open: unknown;
  /** The newest generation that got a root span: its trace id names the exemplar and the status page's link. */
  readonly tracedGeneration: number | undefined;
}

export interface ObjectEntry {
  state: ObjectState;
  counters: ObjectCounters;
  memory: ObjectMemory;
  lag: number | undefined;
  summary: StatusResult;
  /** Epoch seconds at which `summary` changes with no new event (Ready=False turning Failed). */
  changesAt: number | undefined;
  /** The bounded phase and reason label values this entry holds in the kind's learned sets. */
  labels: HeldLabels;
  /** undefined in aggregate mode, or when the series cap left this object out. */
  series: ObjectSeries | undefined;
  /**
   * What changed while this process watched the object, newest last (bounded:
   * see transition-ring.ts), for the status page. It starts empty at first
   * sight: what the object was then is its state, not a change.
   */
  ring: readonly TransitionRecord[];
  /** Tracing's record of the object (undefined: tracing off, or nothing to keep). */
  trace: TraceRecord | undefined;
  /** The newest Kubernetes Warning event about the object (reason, cut message, time); undefined: none seen. */
  warning: LatestWarning | undefined;
}
