// Condition times for kinds whose conditions carry no lastTransitionTime (the
// schema lacks the field, and the API server prunes it): the exporter
// remembers when it first saw each condition in its current status, so
// failedAfter, state durations and "since when" work for them too. Pure.
import { findCondition } from "./readiness.ts";
import type { ObjectState } from "./state.ts";

/**
 * Conditions without a lastTransitionTime get the time the exporter first saw
 * them in their current status, carried from the previous observation while
 * the status holds; for an object already in it when the exporter started,
 * that is "since exporter start". Changes `state`'s fresh conditions in place.
 */
export function rememberConditionTimes(
  previous: ObjectState | undefined,
  state: ObjectState,
  now: number,
  listedAtStart: boolean,
): void {
  for (const c of state.conditions) {
    if (c.since !== undefined) continue;
    const before = previous ? findCondition(previous, c.type) : undefined;
    if (
      before?.status === c.status &&
      before.since !== undefined &&
      before.lastTransitionTime === undefined
    ) {
      c.since = before.since;
      c.sinceSource = before.sinceSource;
    } else {
      // Whole seconds, as the API's times are.
      c.since = Math.floor(now);
      c.sinceSource = previous === undefined && listedAtStart ? "exporter_start" : "first_seen";
    }
  }
}

/** The same for state fields without a lastTransitionTime next to them. */
export function rememberStateTimes(
  previous: ObjectState | undefined,
  state: ObjectState,
  now: number,
  listedAtStart: boolean,
): void {
  for (const s of state.states) {
    if (s.since !== undefined) continue;
    const before = previous?.states.find((p) => p.name === s.name);
    if (
      before?.value === s.value &&
      before.since !== undefined &&
      before.sinceSource !== "lastTransitionTime"
    ) {
      s.since = before.since;
      s.sinceSource = before.sinceSource;
    } else {
      s.since = Math.floor(now);
      s.sinceSource = previous === undefined && listedAtStart ? "exporter_start" : "first_seen";
    }
  }
}
