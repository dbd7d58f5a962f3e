// Which families a resource exports, from the configuration's `metrics`
// rules. kube-state-metrics' semantics: `allow` and `deny` are mutually
// exclusive (the configuration rejects both at one level); `allow` lists
// exactly the families to export (default or opt-in), `deny` removes
// families, and `optIn` adds opt-in families (kube-state-metrics'
// --metric-opt-in-list). Patterns are globs (`*`) over the full family names
// as exported, e.g. `cr_condition*`. Levels apply in order, starting from the
// default set: the global rules, then the resource entry's, so an entry
// refines the global choice (or, with `allow`, states its own).

import { globMatch } from "../selectors.ts";
import {
  aggregateFamilies,
  defaultAggregateFamilies,
  defaultObjectFamilies,
  defaultPerKindFamilies,
  objectFamilies,
  perKindFamilies,
} from "./catalog.ts";

export interface FamilyRules {
  allow: readonly string[] | undefined;
  deny: readonly string[] | undefined;
  optIn: readonly string[] | undefined;
}

export const noFamilyRules: FamilyRules = { allow: undefined, deny: undefined, optIn: undefined };

/** Bit sets over the catalog: object families by slot, aggregate and per-kind families by index. */
export interface FamilySelection {
  objects: number;
  aggregates: number;
  perKind: number;
}

export const defaultSelection: FamilySelection = {
  objects: defaultObjectFamilies,
  aggregates: defaultAggregateFamilies,
  perKind: defaultPerKindFamilies,
};

interface Selectable {
  name: string;
  group: keyof FamilySelection;
  bit: number;
}

/** Every family the rules can name, with its full name for a prefix. */
export function selectableFamilies(prefix: string): Selectable[] {
  return [
    ...objectFamilies.map((f) => ({ name: prefix + f.suffix, group: "objects" as const, bit: 1 << f.slot })),
    ...aggregateFamilies.map((f) => ({
      name: prefix + f.suffix,
      group: "aggregates" as const,
      bit: 1 << f.index,
    })),
    ...perKindFamilies.map((f) => ({
      name: prefix + f.suffix,
      group: "perKind" as const,
      bit: 1 << f.index,
    })),
  ];
}

function matching(prefix: string, patterns: readonly string[] | undefined): FamilySelection {
  const out: FamilySelection = { objects: 0, aggregates: 0, perKind: 0 };
  for (const family of selectableFamilies(prefix)) {
    if (patterns?.some((p) => globMatch(p, family.name))) out[family.group] |= family.bit;
  }
  return out;
}

/** Patterns that match no selectable family (a configuration error: a typo must not pass silently). */
export function unmatchedPatterns(prefix: string, patterns: readonly string[]): string[] {
  const names = selectableFamilies(prefix).map((f) => f.name);
  return patterns.filter((p) => !names.some((name) => globMatch(p, name)));
}

/** Applies the rules of each level (global first, then the resource entry's) to the default set. */
export function selectFamilies(prefix: string, levels: readonly FamilyRules[]): FamilySelection {
  let selected: FamilySelection = defaultSelection;
  for (const rules of levels) {
    if (rules.allow) {
      selected = matching(prefix, rules.allow);
      continue;
    }
    const added = matching(prefix, rules.optIn);
    const denied = matching(prefix, rules.deny);
    selected = {
      objects: (selected.objects | added.objects) & ~denied.objects,
      aggregates: (selected.aggregates | added.aggregates) & ~denied.aggregates,
      perKind: (selected.perKind | added.perKind) & ~denied.perKind,
    };
  }
  return selected;
}

export function sameSelection(a: FamilySelection, b: FamilySelection): boolean {
  return a.objects === b.objects && a.aggregates === b.aggregates && a.perKind === b.perKind;
}
