// Aggregate mode: counts per namespace instead of per-object series, for
// fleets too large to export one series per object.
import { renderLabels, sampleLine } from "./exposition.ts";
import { aggregateFamilies } from "./families.ts";
import { type StatusSettings, summarizeStatus } from "./kstatus.ts";
import type { ObjectState } from "./state.ts";

export interface AggregateCounts {
  objects: Map<string, number>;
  conditions: Map<string, number>;
  phases: Map<string, number>;
  statuses: Map<string, number>;
  lagging: Map<string, number>;
}

const SEP = "\u0000";

function bump(map: Map<string, number>, key: string): void {
  map.set(key, (map.get(key) ?? 0) + 1);
}

export function countObjects(
  states: Iterable<ObjectState>,
  status: StatusSettings,
  now: number,
): AggregateCounts {
  const counts: AggregateCounts = {
    objects: new Map(),
    conditions: new Map(),
    phases: new Map(),
    statuses: new Map(),
    lagging: new Map(),
  };
  for (const s of states) {
    const ns = s.namespace;
    bump(counts.objects, ns);
    for (const c of s.conditions) bump(counts.conditions, `${ns}${SEP}${c.type}${SEP}${c.status}`);
    if (s.phase !== undefined) bump(counts.phases, `${ns}${SEP}${s.phase}`);
    bump(counts.statuses, `${ns}${SEP}${summarizeStatus(s, status, now).result}`);
    if (
      s.generation !== undefined &&
      s.observedGeneration !== undefined &&
      s.generation > s.observedGeneration
    ) {
      bump(counts.lagging, ns);
    }
  }
  return counts;
}

/** Text of aggregate family `index` (see aggregateFamilies) for one kind. */
export function renderAggregate(
  index: number,
  counts: AggregateCounts,
  prefix: string,
  group: string,
  kind: string,
): string {
  const definition = aggregateFamilies[index];
  if (!definition) return "";
  const name = `${prefix}${definition.suffix}`;
  const sources = [counts.objects, counts.conditions, counts.phases, counts.statuses, counts.lagging];
  const extraNames = [[], ["type", "status"], ["phase"], ["result"], []][index] ?? [];
  let out = "";
  for (const [key, value] of sources[index] ?? []) {
    const parts = key.split(SEP);
    out += sampleLine(
      name,
      renderLabels(["group", "kind", "namespace", ...extraNames], [group, kind, ...parts]),
      value,
    );
  }
  return out;
}
