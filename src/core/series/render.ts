// An object's series, pre-rendered as exposition text per family slot (byte
// strings: see exposition.ts). Each family has one renderer here, keyed like
// the catalog; an object change re-renders only the families whose inputs
// changed, and the /metrics writer only copies the stored text. Nothing here
// depends on the clock: times are exported as timestamps.

import type { HeldLabels } from "../change/label-bounds.ts";
import type { ConditionStatus, ObjectState, StatusResult } from "../state.ts";
import { inputMask, type ObjectFamilyKey, objectFamilies } from "./catalog.ts";
import { encodeLabelValue, formatValue, renderLabels } from "./exposition.ts";

/** Per resource type: what rendering needs besides the object. */
export interface KindRender {
  group: string;
  kind: string;
  /** Full family names (prefix applied), by slot. */
  names: readonly string[];
  /** Bit per object family slot: the families this resource exports. */
  selected: number;
  extraLabelNames: readonly string[];
}

export function newKindRender(init: {
  group: string;
  kind: string;
  prefix: string;
  selected: number;
  extraLabelNames?: readonly string[];
}): KindRender {
  return {
    group: init.group,
    kind: init.kind,
    names: objectFamilies.map((f) => init.prefix + f.suffix),
    selected: init.selected,
    extraLabelNames: init.extraLabelNames ?? [],
  };
}

export interface ObjectCounters {
  statusUpdates: number;
  noopUpdates: number;
  generationChanges: number;
  /** Condition transitions by `${type}\u0000${new status}`; undefined until the first one. */
  transitions: ReadonlyMap<string, number> | undefined;
}

export const zeroCounters: ObjectCounters = {
  statusUpdates: 0,
  noopUpdates: 0,
  generationChanges: 0,
  transitions: undefined,
};

/** Everything an object's series are rendered from. */
export interface RenderInput {
  state: ObjectState;
  counters: ObjectCounters;
  /** Generation lag (status, else ready condition), undefined when unknown. */
  lag: number | undefined;
  requestedAt: number | undefined;
  summary: StatusResult;
  /** Phase, reason and state-field label values, bounded per kind (see label-bounds.ts). */
  labels: HeldLabels;
}

export interface ObjectSeries {
  /** `{group="…",kind="…",namespace="…",name="…",extra="…"` without the closing brace. */
  open: string;
  /** Text per family slot; "" when the object has no series in that family (or it is not selected). */
  slots: readonly string[];
  /** Number of series over all slots, for the per-resource cap. */
  count: number;
}

const conditionStatuses: readonly ConditionStatus[] = ["True", "False", "Unknown"];

export function objectLabelsOpen(kind: KindRender, state: ObjectState): string {
  const names = ["group", "kind", "namespace", "name", ...kind.extraLabelNames];
  const values = [kind.group, kind.kind, state.namespace, state.name];
  for (const name of kind.extraLabelNames) values.push(state.extraLabels[name] ?? "");
  return renderLabels(names, values).slice(0, -1);
}

/**
 * Forces a string built by concatenation into one flat string: stored text
 * lives for a long time, and ropes of small pieces would cost heap objects
 * and garbage-collector work for every object (ToNumber flattens its input).
 */
function flat(text: string): string {
  // Stryker disable next-line CallExpression: ToNumber only flattens the string; its result is not used
  Number(text);
  return text;
}

type FamilyRenderer = (name: string, open: string, input: RenderInput) => string;

const line = (name: string, open: string, value: number): string => `${name}${open}} ${formatValue(value)}\n`;

const renderers: Record<ObjectFamilyKey, FamilyRenderer> = {
  condition: (name, open, { state }) => {
    let out = "";
    for (const c of state.conditions)
      out += `${name}${open},type="${encodeLabelValue(c.type)}",status="${c.status}"} 1\n`;
    return out;
  },
  conditionLastTransition: (name, open, { state }) => {
    let out = "";
    for (const c of state.conditions) {
      if (c.since !== undefined) out += `${name}${open},type="${encodeLabelValue(c.type)}"} ${c.since}\n`;
    }
    return out;
  },
  conditionReason: (name, open, { state, labels }) => {
    let out = "";
    for (let i = 0; i < state.conditions.length; i++) {
      const c = state.conditions[i] as (typeof state.conditions)[number];
      if (c.reason === "") continue;
      const reason = encodeLabelValue(labels.reasons[i] ?? c.reason);
      out += `${name}${open},type="${encodeLabelValue(c.type)}",reason="${reason}"} 1\n`;
    }
    return out;
  },
  conditionStale: (name, open, { state }) => {
    if (state.generation === undefined) return "";
    let out = "";
    for (const c of state.conditions) {
      if (c.observedGeneration === undefined) continue;
      out += `${name}${open},type="${encodeLabelValue(c.type)}"} ${c.observedGeneration < state.generation ? 1 : 0}\n`;
    }
    return out;
  },
  generation: (name, open, { state }) =>
    state.generation === undefined ? "" : line(name, open, state.generation),
  observedGeneration: (name, open, { state }) =>
    state.observedGeneration === undefined ? "" : line(name, open, state.observedGeneration),
  generationLag: (name, open, { lag }) => (lag === undefined ? "" : line(name, open, lag)),
  generationRequested: (name, open, { requestedAt }) =>
    requestedAt === undefined ? "" : line(name, open, requestedAt),
  phase: (name, open, { state, labels }) =>
    state.phase === undefined
      ? ""
      : `${name}${open},phase="${encodeLabelValue(labels.phase ?? state.phase)}"} 1\n`,
  state: (name, open, { labels }) => {
    let out = "";
    for (const [field, value] of labels.states) {
      out += `${name}${open},field="${encodeLabelValue(field)}",value="${encodeLabelValue(value)}"} 1\n`;
    }
    return out;
  },
  status: (name, open, { summary }) => `${name}${open},result="${summary}"} 1\n`,
  deletion: (name, open, { state }) =>
    state.deletionTimestamp === undefined ? "" : line(name, open, state.deletionTimestamp),
  suspended: (name, open, { state }) => (state.suspended ? line(name, open, 1) : ""),
  heartbeat: (name, open, { state }) =>
    state.heartbeat === undefined ? "" : line(name, open, state.heartbeat),
  statusUpdates: (name, open, { counters }) => line(name, open, counters.statusUpdates),
  noopUpdates: (name, open, { counters }) => line(name, open, counters.noopUpdates),
  specGenerationChanges: (name, open, { counters }) => line(name, open, counters.generationChanges),
  conditionTransitions: (name, open, { state, counters }) => {
    let out = "";
    for (const c of state.conditions) {
      const typed = `${name}${open},type="${encodeLabelValue(c.type)}",status="`;
      for (const s of conditionStatuses)
        out += `${typed}${s}"} ${counters.transitions?.get(`${c.type}\u0000${s}`) ?? 0}\n`;
    }
    return out;
  },
};

const identityInput = inputMask(["identity"]);
const rendererBySlot: readonly FamilyRenderer[] = objectFamilies.map((f) => renderers[f.key]);

function countLines(text: string): number {
  let n = 0;
  for (let at = text.indexOf("\n"); at !== -1; at = text.indexOf("\n", at + 1)) n++;
  return n;
}

/**
 * Renders the selected families whose inputs changed (`changedInputs`, a bit
 * set over catalog inputs), reusing the previous text of all others. With no
 * previous series (or new object labels) every selected family is rendered.
 */
export function renderSeries(
  kind: KindRender,
  previous: ObjectSeries | undefined,
  changedInputs: number,
  input: RenderInput,
): ObjectSeries {
  const open =
    previous && !(changedInputs & identityInput) ? previous.open : objectLabelsOpen(kind, input.state);
  const reuse = previous !== undefined && previous.open === open;
  const slots = reuse ? [...previous.slots] : new Array<string>(objectFamilies.length).fill("");
  let count = reuse ? previous.count : 0;
  for (const family of objectFamilies) {
    if (!(kind.selected & (1 << family.slot))) continue;
    if (reuse && !(family.inputMask & changedInputs)) continue;
    const text = flat(
      (rendererBySlot[family.slot] as FamilyRenderer)(kind.names[family.slot] as string, open, input),
    );
    const old = slots[family.slot] as string;
    // A fresh slot is "": nothing to take off.
    count += countLines(text) - countLines(old);
    slots[family.slot] = text;
  }
  return { open, slots, count };
}
