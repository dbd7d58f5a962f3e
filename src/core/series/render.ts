// An object's series, pre-rendered as exposition text per family slot (byte
// strings: see exposition.ts), each line kept without the family name and the
// object's labels, which are stored once per object and put back as /metrics
// is written (slotText). Each family has one renderer here, keyed like the
// catalog; an object change re-renders only the families whose inputs
// changed, and the /metrics writer only joins the stored text. Nothing here
// depends on the clock: times are exported as timestamps.

import type { HeldLabels } from "../change/label-bounds.ts";
import type { ConditionStatus, ObjectState, StatusResult } from "../state.ts";
import { inputMask, type ObjectFamilyKey, objectFamilies } from "./catalog.ts";
import { encodeLabelValue, formatValue, openLabels } from "./exposition.ts";

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
  /**
   * Warning event occurrences by bounded reason (cr_object_warning_events_total);
   * undefined until the first one, and kept only while that family is selected.
   */
  warnings: ReadonlyMap<string, number> | undefined;
}

export const zeroCounters: ObjectCounters = {
  statusUpdates: 0,
  noopUpdates: 0,
  generationChanges: 0,
  transitions: undefined,
  warnings: undefined,
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
  /** Bit per family slot that has lines: the slots `tails` holds, in slot order. */
  slots: number;
  /**
   * Per slot in `slots`, in slot order, what follows the family name and
   * `open` on each of the object's lines, the lines joined by "\n" (e.g.
   * `,type="Ready",status="True"} 1`). The name and the object's labels,
   * about 90 bytes of a 120-byte line, are kept once and put back by
   * slotText() as /metrics is written. Slots without lines take no place:
   * most objects have lines in a few of the catalog's families, and an
   * empty place costs 8 bytes per family and object.
   */
  tails: readonly string[];
  /** Number of series over all slots, for the per-resource cap. */
  count: number;
}

/** Where `slot`'s lines are in `series.tails`; -1 when it has none. */
export function tailIndex(series: ObjectSeries, slot: number): number {
  const bit = 1 << slot;
  if (!(series.slots & bit)) return -1;
  let before = 0;
  for (let rest = series.slots & (bit - 1); rest !== 0; rest &= rest - 1) before++;
  return before;
}

/** The lines of one slot as stored (see ObjectSeries.tails); "" when it has none. */
export function slotTails(series: ObjectSeries, slot: number): string {
  const at = tailIndex(series, slot);
  return at === -1 ? "" : (series.tails[at] as string);
}

/**
 * A slot's lines as /metrics shows them: each tail behind the family name and
 * the object's labels. A tail holds no raw newline (label values are escaped),
 * so "\n" only ever separates two of them. Pieces joined by hand: about 25 %
 * less CPU per scrape than tails.replaceAll("\n", "\n" + prefix) (500k series,
 * bench/lib/micro.ts), most slots being one line.
 */
export function slotText(name: string, open: string, tails: string): string {
  if (tails === "") return "";
  const prefix = name + open;
  let at = tails.indexOf("\n");
  if (at === -1) return `${prefix}${tails}\n`;
  let out = prefix + tails.slice(0, at + 1);
  for (let from = at + 1; ; from = at + 1) {
    at = tails.indexOf("\n", from);
    if (at === -1) return `${out}${prefix}${tails.slice(from)}\n`;
    out += prefix + tails.slice(from, at + 1);
  }
}

const conditionStatuses: readonly ConditionStatus[] = ["True", "False", "Unknown"];

export function objectLabelsOpen(kind: KindRender, state: ObjectState): string {
  const names = ["group", "kind", "namespace", "name", ...kind.extraLabelNames];
  const values = [kind.group, kind.kind, state.namespace, state.name];
  for (const name of kind.extraLabelNames) values.push(state.extraLabels[name] ?? "");
  // Built open, not cut from the closed set: a slice would keep the whole set alive beside it.
  return flat(openLabels(names, values));
}

/**
 * Forces a string built by concatenation into one flat string: stored text
 * lives for a long time, and ropes of small pieces would cost heap objects
 * and garbage-collector work for every object (ToNumber flattens its input).
 */
function flat(text: string): string {
  Number(text);
  return text;
}

type FamilyRenderer = (input: RenderInput) => string;

/** The tail of a line without labels of its own. */
const value = (v: number): string => `} ${formatValue(v)}`;

/** Tails joined as ObjectSeries keeps them. */
const joined = (tails: string, tail: string): string => (tails === "" ? tail : `${tails}\n${tail}`);

const renderers: Record<ObjectFamilyKey, FamilyRenderer> = {
  condition: ({ state }) => {
    let out = "";
    for (const c of state.conditions)
      out = joined(out, `,type="${encodeLabelValue(c.type)}",status="${c.status}"} 1`);
    return out;
  },
  conditionLastTransition: ({ state }) => {
    let out = "";
    for (const c of state.conditions) {
      if (c.since !== undefined) out = joined(out, `,type="${encodeLabelValue(c.type)}"} ${c.since}`);
    }
    return out;
  },
  conditionReason: ({ state, labels }) => {
    let out = "";
    for (let i = 0; i < state.conditions.length; i++) {
      const c = state.conditions[i] as (typeof state.conditions)[number];
      if (c.reason === "") continue;
      const reason = encodeLabelValue(labels.reasons[i] ?? c.reason);
      out = joined(out, `,type="${encodeLabelValue(c.type)}",reason="${reason}"} 1`);
    }
    return out;
  },
  conditionStale: ({ state }) => {
    if (state.generation === undefined) return "";
    let out = "";
    for (const c of state.conditions) {
      if (c.observedGeneration === undefined) continue;
      out = joined(
        out,
        `,type="${encodeLabelValue(c.type)}"} ${c.observedGeneration < state.generation ? 1 : 0}`,
      );
    }
    return out;
  },
  generation: ({ state }) => (state.generation === undefined ? "" : value(state.generation)),
  observedGeneration: ({ state }) =>
    state.observedGeneration === undefined ? "" : value(state.observedGeneration),
  generationLag: ({ lag }) => (lag === undefined ? "" : value(lag)),
  generationRequested: ({ requestedAt }) => (requestedAt === undefined ? "" : value(requestedAt)),
  phase: ({ state, labels }) =>
    state.phase === undefined ? "" : `,phase="${encodeLabelValue(labels.phase ?? state.phase)}"} 1`,
  state: ({ labels }) => {
    let out = "";
    for (const [field, v] of labels.states) {
      out = joined(out, `,field="${encodeLabelValue(field)}",value="${encodeLabelValue(v)}"} 1`);
    }
    return out;
  },
  value: ({ state }) => {
    let out = "";
    for (const v of state.values) out = joined(out, `,field="${encodeLabelValue(v.name)}"} ${v.value}`);
    return out;
  },
  status: ({ summary }) => `,result="${summary}"} 1`,
  deletion: ({ state }) => (state.deletionTimestamp === undefined ? "" : value(state.deletionTimestamp)),
  suspended: ({ state }) => (state.suspended ? value(1) : ""),
  heartbeat: ({ state }) => (state.heartbeat === undefined ? "" : value(state.heartbeat)),
  statusUpdates: ({ counters }) => value(counters.statusUpdates),
  noopUpdates: ({ counters }) => value(counters.noopUpdates),
  specGenerationChanges: ({ counters }) => value(counters.generationChanges),
  conditionTransitions: ({ state, counters }) => {
    let out = "";
    for (const c of state.conditions) {
      const typed = `,type="${encodeLabelValue(c.type)}",status="`;
      for (const s of conditionStatuses)
        out = joined(out, `${typed}${s}"} ${counters.transitions?.get(`${c.type}\u0000${s}`) ?? 0}`);
    }
    return out;
  },
  objectWarningEvents: ({ counters }) => {
    let out = "";
    for (const [reason, n] of counters.warnings ?? [])
      out = joined(out, `,reason="${encodeLabelValue(reason)}"} ${n}`);
    return out;
  },
};

const identityInput = inputMask(["identity"]);
const rendererBySlot: readonly FamilyRenderer[] = objectFamilies.map((f) => renderers[f.key]);

/** Series in one slot's tails: one per tail. */
function countTails(tails: string): number {
  if (tails === "") return 0;
  let n = 1;
  for (let at = tails.indexOf("\n"); at !== -1; at = tails.indexOf("\n", at + 1)) n++;
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
  const bySlot = reuse ? tailsBySlot(previous) : new Array<string>(objectFamilies.length).fill("");
  let count = reuse ? previous.count : 0;
  for (const family of objectFamilies) {
    if (!(kind.selected & (1 << family.slot))) continue;
    if (reuse && !(family.inputMask & changedInputs)) continue;
    const text = flat((rendererBySlot[family.slot] as FamilyRenderer)(input));
    // A fresh slot is "": nothing to take off.
    count += countTails(text) - countTails(bySlot[family.slot] as string);
    bySlot[family.slot] = text;
  }
  return { open, ...packedTails(bySlot), count };
}

/** Every slot's lines, "" where it has none: the working form of a render. */
function tailsBySlot(series: ObjectSeries): string[] {
  const bySlot = new Array<string>(objectFamilies.length).fill("");
  let at = 0;
  for (let slot = 0; slot < bySlot.length; slot++)
    if (series.slots & (1 << slot)) bySlot[slot] = series.tails[at++] as string;
  return bySlot;
}

/** The slots with lines and their lines, in an array of exactly their number (pushing would leave spare room). */
function packedTails(bySlot: readonly string[]): Pick<ObjectSeries, "slots" | "tails"> {
  let slots = 0;
  let kept = 0;
  for (let slot = 0; slot < bySlot.length; slot++)
    if (bySlot[slot] !== "") {
      slots |= 1 << slot;
      kept++;
    }
  const tails = new Array<string>(kept);
  let at = 0;
  for (const text of bySlot) if (text !== "") tails[at++] = text;
  return { slots, tails };
}
