// Kinds judged by state fields (Argo CD's Application: health and sync, no
// conditions) get their episodes traced like any other kind: the planner is
// built on a readiness condition, so for tracing only, one condition stands
// for the state rule — True while every gating field holds a ready value,
// else False with the first field away as its reason (Unknown while a field
// is missing). Never exported as a series. Pure.
import { findCondition, type ReadinessRules } from "../../core/judge/readiness.ts";
import type { ConditionState, ObjectState } from "../../core/state.ts";
import type { ObjectObservation } from "../state-tracer.ts";
import type { Episode } from "./model.ts";

/** The type of the condition standing for a state rule in spans. */
export const stateReadinessType = "Ready";

function standIn(state: ObjectState, rules: ReadinessRules): ObjectState {
  if (findCondition(state, stateReadinessType)) return state;
  let away: ConditionState | undefined;
  let since: number | undefined;
  for (const rule of rules.states) {
    if (rule.ready.length === 0) continue;
    const value = state.states.find((s) => s.name === rule.name);
    if (value?.since !== undefined && (since === undefined || value.since > since)) since = value.since;
    if (away || (value && rule.ready.includes(value.value))) continue;
    away = {
      type: stateReadinessType,
      status: value ? "False" : "Unknown",
      reason: value ? value.value : `${rule.name}Missing`,
      message: value ? `${rule.name} is ${value.value}` : `${rule.name} is not reported`,
      lastTransitionTime: value?.sinceSource === "lastTransitionTime" ? value.since : undefined,
      since: value?.since,
      sinceSource: value?.sinceSource,
      observedGeneration: undefined,
    };
  }
  const ready: ConditionState = away ?? {
    type: stateReadinessType,
    status: "True",
    reason: "",
    message: "",
    lastTransitionTime: undefined,
    since,
    sinceSource: since === undefined ? undefined : "first_seen",
    observedGeneration: undefined,
  };
  return { ...state, conditions: [...state.conditions, ready] };
}

/**
 * While the object stays away from ready, the stand-in keeps the time and
 * status of the open degraded episode (its key, see stamps.ts sinceKey): one
 * field after another being away (OutOfSync, then Progressing) is one
 * episode, the changes its reasons.
 */
function keepEpisode(state: ObjectState, open: Episode | undefined): ObjectState {
  const stand = state.conditions.at(-1);
  const key = open?.kind === "degraded" ? open.degradedSince : undefined;
  if (!stand || stand.type !== stateReadinessType || stand.status === "True" || key === undefined)
    return state;
  const [at = "", status] = key.split("|");
  const observed = at.startsWith("observed:");
  const since = observed ? Number(at.slice("observed:".length)) / 1000 : Number(at);
  if (!Number.isFinite(since) || (status !== "False" && status !== "Unknown")) return state;
  const kept: ConditionState = {
    ...stand,
    status,
    since,
    sinceSource: observed ? "first_seen" : "lastTransitionTime",
    lastTransitionTime: observed ? undefined : since,
  };
  return { ...state, conditions: [...state.conditions.slice(0, -1), kept] };
}

/**
 * The observation as tracing sees it: unchanged unless the kind's readiness
 * is a state rule. `open`: the object's open episode, if any.
 */
export function tracedStates(o: ObjectObservation, open: Episode | undefined): ObjectObservation {
  const rules = o.readiness;
  if (rules.readyCondition !== undefined || !rules.states.some((r) => r.ready.length > 0)) return o;
  return {
    ...o,
    readiness: { ...rules, readyCondition: stateReadinessType, states: [] },
    previous: o.previous && standIn(o.previous, rules),
    current: o.current && keepEpisode(standIn(o.current, rules), open),
  };
}
