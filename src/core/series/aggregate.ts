// Aggregate mode: counts per namespace instead of per-object series, for
// fleets too large to export one series per object. The counts are kept
// incrementally (an object's old contribution out, its new one in), so a
// scrape only prints them.

import type { ObjectEntry } from "../entry.ts";
import { type AggregateFamilyKey, aggregateFamilies } from "./catalog.ts";
import { formatValue, renderLabels } from "./exposition.ts";

const SEP = "\u0000";

type CountKey = AggregateFamilyKey;

/** Each aggregate family's labels, from the catalog (group, kind, namespace first). */
const familyLabels = Object.fromEntries(aggregateFamilies.map((f) => [f.key, f.labels])) as Record<
  CountKey,
  readonly string[]
>;

export class AggregateCounts {
  readonly #counts = Object.fromEntries(
    aggregateFamilies.map((f) => [f.key, new Map<string, number>()]),
  ) as Record<CountKey, Map<string, number>>;

  #bump(family: CountKey, key: string, by: number): void {
    const map = this.#counts[family];
    const value = (map.get(key) ?? 0) + by;
    if (value === 0) map.delete(key);
    else map.set(key, value);
  }

  /** Adds (sign 1) or removes (sign -1) one object's contribution; its phase and state labels are the ones it holds. */
  count(entry: ObjectEntry, sign: 1 | -1): void {
    const s = entry.state;
    const ns = s.namespace;
    this.#bump("aggregateObjects", ns, sign);
    for (const c of s.conditions)
      this.#bump("aggregateConditions", `${ns}${SEP}${c.type}${SEP}${c.status}`, sign);
    if (entry.labels.phase !== undefined)
      this.#bump("aggregatePhases", `${ns}${SEP}${entry.labels.phase}`, sign);
    this.#bump("aggregateStatuses", `${ns}${SEP}${entry.summary}`, sign);
    if (entry.lag !== undefined && entry.lag > 0) this.#bump("aggregateLagging", ns, sign);
    // The held values: bounded per field like cr_state's, and the ones this entry was counted with.
    for (const [field, value] of entry.labels.states)
      this.#bump("aggregateStates", `${ns}${SEP}${field}${SEP}${value}`, sign);
    if (s.suspended) this.#bump("aggregateSuspended", ns, sign);
  }

  /** Text of one aggregate family for one kind (a byte string). */
  render(family: CountKey, name: string, group: string, kind: string): string {
    let out = "";
    for (const [key, value] of this.#counts[family]) {
      const labels = renderLabels(familyLabels[family], [group, kind, ...key.split(SEP)]);
      out += `${name}${labels} ${formatValue(value)}\n`;
    }
    return out;
  }

  clear(): void {
    for (const map of Object.values(this.#counts)) map.clear();
  }
}

export const aggregateKeys: readonly CountKey[] = aggregateFamilies.map((f) => f.key);
