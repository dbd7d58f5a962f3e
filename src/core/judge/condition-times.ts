// Condition times for kinds whose conditions carry no lastTransitionTime (the
// schema lacks the field, and the API server prunes it): the exporter
// remembers when it first saw each condition in its current status, so
// failedAfter, state durations and "since when" work for them too. The same
// for state fields (states) with no lastTransitionTime next to them. Pure.

import type { ConditionTimeSource, ObjectState } from "../state.ts";
import { findCondition } from "./readiness.ts";

interface Timed {
  since: number | undefined;
  sinceSource: ConditionTimeSource | undefined;
}

/**
 * Fills `since` of `item` (which has none from the API): carried from `before`
 * when it held the same value and its time was the exporter's too, else now
 * — for an object already in it when the exporter started, "since exporter
 * start".
 */
function remember(item: Timed, before: Timed | undefined, now: number, atStart: boolean): void {
  if (before?.since !== undefined && before.sinceSource !== "lastTransitionTime") {
    item.since = before.since;
    item.sinceSource = before.sinceSource;
  } else {
    // Whole seconds, as the API's times are.
    item.since = Math.floor(now);
    item.sinceSource = atStart ? "exporter_start" : "first_seen";
  }
}

/**
 * Conditions without a lastTransitionTime get the time the exporter first saw
 * them in their current status, carried from the previous observation while
 * the status holds; state fields likewise while their value holds. Changes
 * `state`'s fresh conditions and states in place.
 */
export function rememberTimes(
  previous: ObjectState | undefined,
  state: ObjectState,
  now: number,
  listedAtStart: boolean,
): void {
  const atStart = previous === undefined && listedAtStart;
  for (const c of state.conditions) {
    if (c.since !== undefined) continue;
    const before = previous ? findCondition(previous, c.type) : undefined;
    remember(c, before?.status === c.status ? before : undefined, now, atStart);
  }
  for (const s of state.states) {
    if (s.since !== undefined) continue;
    const before = previous?.states.find((p) => p.name === s.name);
    remember(s, before?.value === s.value ? before : undefined, now, atStart);
  }
}
