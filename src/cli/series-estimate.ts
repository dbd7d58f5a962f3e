// Series per object of one resource type, for `explain`'s cardinality preview:
// the family catalog's cost formulas over a sample of real objects, for the
// families the configuration selects.
import type { CollectorPlan } from "../collectors/selection.ts";
import { generationSettings, shapeOfState } from "../core/change/object-update.ts";
import { seriesPerObject as catalogSeries } from "../core/series/catalog.ts";
import { type FamilyRules, noFamilyRules, selectFamilies } from "../core/series/family-selection.ts";
import type { ObjectState } from "../core/state.ts";

/** Mean per-object series of `sample` under `plan`; 0 in aggregate mode or without a sample. */
export function seriesPerObject(
  plan: CollectorPlan,
  sample: readonly ObjectState[],
  prefix: string,
  now: number,
  globalRules: FamilyRules = noFamilyRules,
): number {
  if (plan.options.mode !== "objects" || sample.length === 0) return 0;
  const selected = selectFamilies(prefix, [globalRules, plan.options.metrics]).objects;
  const generations = generationSettings(plan);
  let series = 0;
  for (const state of sample) series += catalogSeries(shapeOfState(state, generations, now), selected);
  return series / sample.length;
}
