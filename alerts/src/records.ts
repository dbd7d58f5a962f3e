// Recording rules: the per-kind aggregations the overview dashboard and the
// aggregate alert read, computed once per evaluation instead of on every
// dashboard refresh over every per-object series. Names follow Prometheus'
// level:metric:operations convention with the exporter's real metric names
// (the level lists the labels kept besides cluster and job). Each rule first
// deduplicates per object over exporter replicas (`max by` the object), then
// aggregates per kind and namespace; `job` is kept so dashboards can still pick
// an exporter. Readiness follows each kind's readiness condition (Ready,
// Available, Succeeded, or configured; see readiness.ts), as the alerts do.
import { metricNames } from "../../src/core/series/catalog.ts";
import type { RecordingRule } from "./model.ts";
import type { AlertOptions } from "./options.ts";
import { readinessSeries } from "./readiness.ts";
import { matchers as selectorOf } from "./rule-text.ts";
import { unlessSuspended } from "./suspended.ts";

/** The window of the recorded rates (the `rate5m` in their names). */
export const RECORDED_RATE_WINDOW = "5m";

const KIND = "cluster, job, namespace, group, kind";
const OBJECT = `${KIND}, name`;

/** The name of each recorded series, for a metric prefix. */
export function recordNames(prefix?: string) {
  const n = metricNames(prefix);
  const counter = (name: string): string => name.replace(/_total$/, "");
  return {
    /** Objects per kstatus-like result. */
    objectsByResult: `namespace_group_kind_result:${n.status}:count`,
    /** Objects per condition type and current status. */
    objectsByCondition: `namespace_group_kind_type_status:${n.condition}:count`,
    /** Objects per status (True, False, Unknown) of their kind's readiness condition. */
    objectsByReadiness: `namespace_group_kind_status:${n.condition}:count_readiness`,
    /** Objects whose observed generation is behind. */
    objectsLagging: `namespace_group_kind:${n.generationLag}:count_nonzero`,
    /** When the oldest generation still waiting to be observed was requested (a timestamp). */
    oldestWaitingRequest: `namespace_group_kind:${n.generationRequested}:min_lagging`,
    /** Objects with a deletionTimestamp (terminating). */
    objectsTerminating: `namespace_group_kind:${n.deletion}:count`,
    /**
     * Per object whose readiness condition (in `type`) is not True (False or
     * Unknown, in `status`): when it last changed. One series per failing
     * object only, so the overview's not-Ready table and timeline never read
     * the whole fleet.
     */
    readyNotTrueSince: `namespace_group_kind_name_type_status:${n.conditionLastTransition}:readiness_not_true`,
    /** Meaningful and no-op status writes per second, summed over the objects. */
    statusUpdates: `namespace_group_kind:${counter(n.statusUpdates)}:rate${RECORDED_RATE_WINDOW}`,
    noopUpdates: `namespace_group_kind:${counter(n.noopUpdates)}:rate${RECORDED_RATE_WINDOW}`,
  } as const;
}

export type RecordNames = ReturnType<typeof recordNames>;

/** The recording rules, reading the series of the exporter `options.selector` selects. */
export function recordingRules(options: AlertOptions): RecordingRule[] {
  const n = metricNames(options.metricPrefix);
  const r = recordNames(options.metricPrefix);
  const matchers = (...extra: string[]): string => selectorOf(options, ...extra);
  const readiness = (family: string, ...extra: string[]): string =>
    `(${readinessSeries(options, family, matchers, extra)})`;
  const perObject = (expr: string, extra = ""): string => `max by (${OBJECT}${extra}) (${expr})`;
  const lagging = `${perObject(`${n.generationLag}${matchers()}`)} > 0`;
  const rate = (counter: string): string =>
    `sum by (${KIND}) (${perObject(`rate(${counter}${matchers()}[${RECORDED_RATE_WINDOW}])`)})`;
  return [
    {
      // cr_status exists for every object, whether or not it has conditions.
      record: r.objectsByResult,
      expr: `count by (${KIND}, result) (${perObject(`${n.status}${matchers()} == 1`, ", result")})`,
    },
    {
      record: r.objectsByCondition,
      expr: `count by (${KIND}, type, status) (${perObject(`${n.condition}${matchers()} == 1`, ", type, status")})`,
    },
    {
      // Suspended objects are left out (see suspended.ts), as the Not-Ready alerts do.
      record: r.objectsByReadiness,
      expr: `count by (${KIND}, status) (${unlessSuspended(options, OBJECT, perObject(`${readiness(n.condition)} == 1`, ", status"))})`,
    },
    { record: r.objectsLagging, expr: `count by (${KIND}) (${lagging})` },
    {
      record: r.oldestWaitingRequest,
      expr: `min by (${KIND}) (${perObject(`${n.generationRequested}${matchers()}`)} and on (${OBJECT}) (${lagging}))`,
    },
    { record: r.objectsTerminating, expr: `count by (${KIND}) (${perObject(`${n.deletion}${matchers()}`)})` },
    {
      record: r.readyNotTrueSince,
      expr:
        `${perObject(readiness(n.conditionLastTransition), ", type")}` +
        ` * on (${OBJECT}, type) group_left (status) ${perObject(`${readiness(n.condition, 'status!="True"')} == 1`, ", type, status")}`,
    },
    { record: r.statusUpdates, expr: rate(n.statusUpdates) },
    { record: r.noopUpdates, expr: rate(n.noopUpdates) },
  ];
}
