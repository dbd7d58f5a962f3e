// What differs between two observations of one object: the render inputs
// that changed (so only their series are rendered again), and the label
// sources (so held label values are kept when they did not change). Pure.

import type { ObjectEntry } from "../entry.ts";
import { inputBit } from "../series/catalog.ts";
import type { ObjectState } from "../state.ts";
import { sameStates } from "./label-bounds.ts";

function sameValues(a: ObjectState, b: ObjectState): boolean {
  if (a.values === b.values) return true;
  if (a.values.length !== b.values.length) return false;
  return a.values.every((v, i) => v.name === b.values[i]?.name && v.value === b.values[i]?.value);
}

function sameExtraLabels(a: ObjectState, b: ObjectState): boolean {
  for (const name in b.extraLabels) if (a.extraLabels[name] !== b.extraLabels[name]) return false;
  return true;
}

/** Which render inputs differ between two entries (a bit set over catalog inputs). */
export function changedInputs(previous: ObjectEntry | undefined, next: ObjectEntry): number {
  // Stryker disable next-line UnaryOperator: +1 is the identity bit, which every family's input mask holds, so it renders all too
  if (!previous) return -1;
  const a = previous.state;
  const b = next.state;
  let changed = 0;
  if (!sameExtraLabels(a, b)) changed |= inputBit.identity;
  const conditionBits =
    inputBit.conditionStatus |
    inputBit.conditionTime |
    inputBit.conditionReason |
    inputBit.conditionGeneration;
  if (a.conditions.length !== b.conditions.length) changed |= conditionBits;
  else {
    for (let i = 0; i < b.conditions.length; i++) {
      const x = a.conditions[i];
      const y = b.conditions[i];
      if (!x || !y || x.type !== y.type) {
        changed |= conditionBits;
        break;
      }
      if (x.status !== y.status) changed |= inputBit.conditionStatus;
      if (x.since !== y.since) changed |= inputBit.conditionTime;
      if (x.reason !== y.reason) changed |= inputBit.conditionReason;
      if (x.observedGeneration !== y.observedGeneration) changed |= inputBit.conditionGeneration;
    }
  }
  if (a.generation !== b.generation) changed |= inputBit.generation;
  if (a.observedGeneration !== b.observedGeneration) changed |= inputBit.observedGeneration;
  if (previous.lag !== next.lag) changed |= inputBit.lag;
  if (previous.memory.requestedAt !== next.memory.requestedAt) changed |= inputBit.requestedAt;
  if (a.phase !== b.phase) changed |= inputBit.phase;
  if (!sameStates(a, b)) changed |= inputBit.states;
  if (!sameValues(a, b)) changed |= inputBit.values;
  if (previous.summary !== next.summary) changed |= inputBit.summary;
  if (a.deletionTimestamp !== b.deletionTimestamp) changed |= inputBit.deletion;
  if (a.heartbeat !== b.heartbeat) changed |= inputBit.heartbeat;
  if (a.suspended !== b.suspended) changed |= inputBit.suspended;
  const c = previous.counters;
  const d = next.counters;
  if (c.statusUpdates !== d.statusUpdates) changed |= inputBit.statusWrites;
  if (c.noopUpdates !== d.noopUpdates) changed |= inputBit.noopWrites;
  if (c.generationChanges !== d.generationChanges) changed |= inputBit.generationChanges;
  if (c.transitions !== d.transitions) changed |= inputBit.conditionTransitions;
  if (c.warnings !== d.warnings) changed |= inputBit.warnings;
  return changed;
}
