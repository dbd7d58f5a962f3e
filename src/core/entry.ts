// What the store keeps per object: the projected state, its counters and
// memory, the judgement and its pre-rendered series. A type only, below every
// stage that makes or reads entries (object-update, entry-diff, aggregate,
// the collectors' store), so none of them imports another for it.

import type { HeldLabels } from "./change/label-bounds.ts";
import type { TransitionRecord } from "./change/transition-ring.ts";
import type { ObjectMemory } from "./judge/generations.ts";
import type { ObjectCounters, ObjectSeries } from "./series/render.ts";
import type { ObjectState, StatusResult } from "./state.ts";

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
}
