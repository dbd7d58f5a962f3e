// The metric family catalog, as data: every family the exporter can emit,
// with its type, help, labels, the projected inputs it is rendered from,
// whether it is in the default set, and what it costs. Slots, input masks and
// full names are derived from it; the renderer, the writer, the
// configuration's allow/deny lists, docs/metrics.md (by a test), the alert
// rules and the dashboards all read it. Per-object families are in
// catalog-objects.ts, per-kind and aggregate ones in catalog-kinds.ts, the
// exporter's own (self, status-write and tracing families) in
// catalog-exporter.ts: a new family is one entry in one of them.
import { fixedFamilySuffixes } from "./catalog-exporter.ts";
import {
  type AggregateFamilyKey,
  aggregateFamilies,
  type PerKindFamilyKey,
  perKindFamilies,
} from "./catalog-kinds.ts";
import { type ObjectFamilyKey, objectFamilies } from "./catalog-objects.ts";

export * from "./catalog-exporter.ts";
export * from "./catalog-kinds.ts";
export * from "./catalog-objects.ts";

export type FamilyKey =
  | ObjectFamilyKey
  | AggregateFamilyKey
  | PerKindFamilyKey
  | keyof typeof fixedFamilySuffixes;

export const defaultMetricPrefix = "cr_";

/** Every family's full name for a prefix, by key: what alerts, dashboards and tests refer to. */
export function metricNames(prefix = defaultMetricPrefix): Readonly<Record<FamilyKey, string>> {
  const names: Record<string, string> = {};
  for (const f of [...objectFamilies, ...aggregateFamilies, ...perKindFamilies])
    names[f.key] = prefix + f.suffix;
  for (const [key, suffix] of Object.entries(fixedFamilySuffixes)) names[key] = prefix + suffix;
  return names as Record<FamilyKey, string>;
}

const bits = (families: readonly { defaultSet: boolean }[]): number =>
  families.reduce((mask, f, i) => (f.defaultSet ? mask | (1 << i) : mask), 0);

/** Bits of the families in the default set (object families by slot, the others by index). */
export const defaultObjectFamilies = bits(objectFamilies);
export const defaultAggregateFamilies = bits(aggregateFamilies);
export const defaultPerKindFamilies = bits(perKindFamilies);
