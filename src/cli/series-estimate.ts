// Series per object of one resource type, for `explain`'s cardinality preview.
//
// WIRING POINT: the family catalog in src/core will state each family's series
// per object; once it lands, this function's body becomes a call to it (same
// signature). Until then the cost is measured on a sample of real objects:
// each is rendered with the exporter's renderer and its series are averaged.
import type { CollectorPlan } from "../collectors/selection.ts";
import { newCounters, newKindContext, renderObject } from "../core/render.ts";
import type { ObjectState } from "../core/state.ts";

/** Mean per-object series of `sample` under `plan`; 0 in aggregate mode or without a sample. */
export function seriesPerObject(
  plan: CollectorPlan,
  sample: readonly ObjectState[],
  prefix: string,
  now: number,
): number {
  if (plan.options.mode !== "objects" || sample.length === 0) return 0;
  const o = plan.options;
  const kind = newKindContext({
    group: plan.identity.group,
    kind: plan.identity.kind,
    prefix,
    extraLabelNames: o.labels.map((l) => l.name),
    status: { readyCondition: o.readyCondition, failedAfterSeconds: o.failedAfterSeconds },
    phases: plan.phases,
    reasonsEnabled: o.conditionReasons,
    maxReasons: o.maxReasons,
  });
  let series = 0;
  for (const state of sample) series += renderObject(kind, state, newCounters(), now).series;
  return series / sample.length;
}
