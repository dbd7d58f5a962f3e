// "CR Status / Overview": how many objects of each kind are healthy, which are
// not and since when, how busy their controllers are writing status. The
// fleet-wide counts read the recording rules of alerts/ (one series per kind
// and namespace instead of one per object); the per-object panels show the
// worst objects only, so the overview stays fast at tens of thousands of objects.
import common from "@grafana/grafana-foundation-sdk/common";
import dashboard from "@grafana/grafana-foundation-sdk/dashboard";
import heatmap from "@grafana/grafana-foundation-sdk/heatmap";
import prometheus from "@grafana/grafana-foundation-sdk/prometheus";
import statetimeline from "@grafana/grafana-foundation-sdk/statetimeline";
import table from "@grafana/grafana-foundation-sdk/table";
import { recordNames } from "../../alerts/src/records.ts";
import { metricNames } from "../../src/core/series/catalog.ts";
import { buildDashboard, type Dashboard } from "./layout.ts";
import { drillDownUrl, traceByIdUrl } from "./links.ts";
import type { DashboardOptions } from "./options.ts";
import {
  basics,
  colors,
  instant,
  link,
  optInNote,
  query,
  RED_FROM_ONE,
  statPanel,
  steps,
  timeseriesPanel,
  valueMapping,
} from "./panels.ts";
import {
  BY_OBJECT,
  clusterVariable,
  jobVariable,
  kindVariable,
  namespaceVariable,
  OBJECTS,
  prometheusVariable,
  tracesVariable,
} from "./variables.ts";

export const OVERVIEW_UID = "cr-status-overview";

function countStat(title: string, description: string, count: string, alarming: boolean) {
  const panel = statPanel({ title, description, unit: "short", w: 4, h: 4 }).withTarget(
    instant(`${count} or vector(0)`),
  );
  return alarming ? panel.thresholds(RED_FROM_ONE) : panel.thresholds(steps(["green", null]));
}

export function overviewDashboard(options: DashboardOptions, drillDownUid: string): Dashboard {
  const n = metricNames(options.metricPrefix);
  const r = recordNames(options.metricPrefix);
  const conditionCount = (type: string, status: string) =>
    `${r.objectsByCondition}{${OBJECTS}, type="${type}", status="${status}"}`;
  // Objects per status of their kind's readiness condition (Ready, or e.g. Available or Succeeded).
  const readinessCount = (status: string) => `${r.objectsByReadiness}{${OBJECTS}, status="${status}"}`;
  // Objects whose readiness condition is not True, and since when: a recorded series per failing object only.
  const notTrueSince = (status = "") =>
    `${r.readyNotTrueSince}{${OBJECTS}${status ? `, status="${status}"` : ""}}`;
  const notReadyFor = `(time() - ${notTrueSince("False")})`;
  // The reason of each object's readiness condition (the recorded series' `type`), one per object even
  // while exporter replicas disagree for a scrape (group_left needs one).
  const readyReason = `topk by (${BY_OBJECT}, type) (1, max by (${BY_OBJECT}, type, reason) (${n.conditionReason}{${OBJECTS}} == 1))`;
  const longest = `bottomk(${options.limits.notReadyTimeline}, ${notTrueSince()})`;
  return buildDashboard({
    uid: OVERVIEW_UID,
    title: "CR Status / Overview",
    description:
      "Health of Kubernetes custom resources, from the status the controllers write. Reads the recording rules shipped with the alerts.",
    variables: [
      prometheusVariable(),
      tracesVariable(options),
      clusterVariable(options, n.status),
      jobVariable(n.status),
      namespaceVariable(n.status),
      kindVariable(n.status, 'cluster=~"$cluster", job=~"$job", namespace=~"$namespace"'),
    ],
    rows: [
      {
        title: "Summary",
        panels: [
          countStat(
            "Objects",
            "Custom resources currently known to the exporter.",
            `sum(${r.objectsByResult}{${OBJECTS}})`,
            false,
          ),
          countStat(
            "Not Ready",
            "Objects whose readiness condition (Ready, or their kind's own, e.g. Available or Succeeded) is False.",
            `sum(${readinessCount("False")})`,
            true,
          ),
          countStat(
            "Ready unknown",
            "Objects whose readiness condition (Ready, or their kind's own) is Unknown.",
            `sum(${readinessCount("Unknown")})`,
            true,
          ),
          countStat(
            "Stalled",
            "Objects reporting Stalled=True.",
            `sum(${conditionCount("Stalled", "True")})`,
            true,
          ),
          countStat(
            "Generation lag",
            "Objects whose controller has not yet observed their latest spec (observedGeneration behind generation).",
            `sum(${r.objectsLagging}{${OBJECTS}})`,
            true,
          ),
          countStat(
            "Terminating",
            "Objects that were deleted and still exist (finalizers pending).",
            `sum(${r.objectsTerminating}{${OBJECTS}})`,
            true,
          ),
        ],
      },
      {
        title: "Status",
        panels: [
          timeseriesPanel({
            title: "Objects by kind and status",
            description:
              "Objects per kind by their kstatus-like summary (Current, InProgress, Failed, Terminating, Unknown).",
            unit: "short",
            w: 12,
            h: 8,
          }).withTarget(
            query(`sum by (kind, result) (${r.objectsByResult}{${OBJECTS}})`, "{{kind}} {{result}}"),
          ),
          timeseriesPanel({
            title: "Not Ready by kind",
            description: "Objects whose readiness condition is False, per kind.",
            unit: "short",
            w: 12,
            h: 8,
          }).withTarget(query(`sum by (kind) (${readinessCount("False")})`, "{{kind}}")),
          basics(new table.PanelBuilder(), {
            title: "Objects not Ready",
            description: `The ${options.limits.notReadyTable} objects not Ready (readiness condition False) for longest: the condition, the time since it last changed, and its reason. Click a name for the object's dashboard.`,
            unit: "s",
            w: 24,
            h: 9,
          })
            .withTarget(
              instant(
                // The reason when exported; `or on` keeps the objects without one, once.
                `topk(${options.limits.notReadyTable}, ${notReadyFor} * on (${BY_OBJECT}, type) group_left (reason) ${readyReason}` +
                  ` or on (${BY_OBJECT}) ${notReadyFor})`,
                true,
              ),
            )
            .withTransformation({
              id: "organize",
              options: {
                excludeByName: { Time: true, job: true, status: true },
                renameByName: { Value: "Not Ready for", type: "condition" },
                indexByName: {
                  namespace: 0,
                  kind: 1,
                  name: 2,
                  type: 3,
                  reason: 4,
                  Value: 5,
                  group: 6,
                  cluster: 7,
                },
              },
            })
            .sortBy([new common.TableSortByFieldStateBuilder().displayName("Not Ready for").desc(true)])
            .thresholds(steps(["green", null]))
            .colorScheme(colors(dashboard.FieldColorModeId.PaletteClassic))
            .dataLinks([link("Open the object's dashboard", drillDownUrl(options, drillDownUid))]),
          basics(new statetimeline.PanelBuilder(), {
            title: "Not Ready over time",
            description: `The readiness condition of the ${options.limits.notReadyTimeline} objects not Ready for longest, over time (red False, grey Unknown; blank while Ready).`,
            unit: "none",
            w: 24,
            h: 10,
          })
            .withTarget(
              query(
                // 0 for False, 1 for Unknown, of the objects whose readiness changed longest ago.
                `max by (${BY_OBJECT}) ((${longest} and on (${BY_OBJECT}) ${notTrueSince("False")}) * 0` +
                  ` or (${longest} unless on (${BY_OBJECT}) ${notTrueSince("False")}) * 0 + 1)`,
                "{{kind}} {{namespace}}/{{name}}",
              ),
            )
            .mappings([
              valueMapping([
                ["1", "Unknown", "text"],
                ["0", "Not ready", "red"],
              ]),
            ])
            .thresholds(steps(["green", null]))
            .colorScheme(colors(dashboard.FieldColorModeId.Thresholds))
            .showValue(common.VisibilityMode.Never)
            .mergeValues(true)
            .rowHeight(0.9),
        ],
      },
      {
        title: "Generations and reconciles",
        panels: [
          timeseriesPanel({
            title: "Objects behind their generation",
            description: "Objects whose observedGeneration is behind metadata.generation, per kind.",
            unit: "short",
            w: 8,
            h: 8,
          }).withTarget(query(`sum by (kind) (${r.objectsLagging}{${OBJECTS}})`, "{{kind}}")),
          timeseriesPanel({
            title: "Longest generation wait",
            description: "The longest time a current generation has waited to be observed, per kind.",
            unit: "s",
            w: 8,
            h: 8,
          }).withTarget(
            query(
              // Timestamps, never ages, are recorded; 0 per kind when nothing waits.
              `time() - min by (kind) (${r.oldestWaitingRequest}{${OBJECTS}})` +
                ` or sum by (kind) (${r.objectsByResult}{${OBJECTS}}) * 0`,
              "{{kind}}",
            ),
          ),
          timeseriesPanel({
            title: "Time to Ready (p90)",
            description: "90th percentile of the time from creation to the first Ready=True, per kind.",
            unit: "s",
            w: 8,
            h: 8,
          }).withTarget(
            query(
              `histogram_quantile(0.9, sum by (kind, le) (rate(${n.timeToReady}_bucket{cluster=~"$cluster", job=~"$job", kind=~"$kind"}[$__rate_interval])))`,
              "{{kind}}",
            ),
          ),
          basics(new heatmap.PanelBuilder(), {
            title: "Reconcile duration",
            description:
              "Time from a spec change to observedGeneration catching up with Ready=True. Exemplars open the reconcile's trace in $traces when tracing is on.",
            unit: "s",
            w: 24,
            h: 9,
          })
            .withTarget(
              query(
                `sum by (le) (rate(${n.reconcileDuration}_bucket{cluster=~"$cluster", job=~"$job", kind=~"$kind"}[$__rate_interval]))`,
                "{{le}}",
              )
                .format(prometheus.PromQueryFormat.Heatmap)
                .exemplar(true),
            )
            .calculate(false)
            .yAxis(new heatmap.YAxisConfigBuilder().unit("s"))
            .color(
              new heatmap.HeatmapColorOptionsBuilder()
                .mode(heatmap.HeatmapColorMode.Scheme)
                .scheme("Oranges")
                .fill("dark-orange")
                .exponent(0.5)
                .steps(64),
            )
            .exemplarsColor("rgba(255,0,255,0.7)")
            .cellGap(1)
            .overrideByName("trace_id", [
              {
                id: "links",
                value: [{ title: "Open the trace", url: traceByIdUrl(options), targetBlank: true }],
              },
            ]),
        ],
      },
      {
        title: "Status writes",
        panels: [
          timeseriesPanel({
            title: "Status updates",
            description: "Status writes that changed something meaningful, per kind (rate over 5m).",
            unit: "ops",
            w: 12,
            h: 8,
          }).withTarget(query(`sum by (kind) (${r.statusUpdates}{${OBJECTS}})`, "{{kind}}")),
          timeseriesPanel({
            title: "No-op status updates",
            description:
              "Status writes that changed nothing meaningful, per kind (rate over 5m): a controller writing status on every reconcile.",
            unit: "ops",
            w: 12,
            h: 8,
          }).withTarget(query(`sum by (kind) (${r.noopUpdates}{${OBJECTS}})`, "{{kind}}")),
          timeseriesPanel({
            title: "Status write failures by reason",
            description:
              "Failed writes to the /status subresource, per kind and reason (Conflict, Invalid, Forbidden, …).",
            unit: "ops",
            w: 12,
            h: 8,
          }).withTarget(
            query(
              `sum by (kind, reason) (rate(${n.statusUpdateFailures}{${OBJECTS}}[$__rate_interval]))`,
              "{{kind}} {{reason}}",
            ),
          ),
          timeseriesPanel({
            title: "Status write failure ratio",
            description: "Share of the writes to the /status subresource that failed, per kind.",
            unit: "percentunit",
            w: 12,
            h: 8,
          })
            .min(0)
            .withTarget(
              query(
                `sum by (kind) (rate(${n.statusUpdateFailures}{${OBJECTS}}[$__rate_interval]))` +
                  ` / sum by (kind) (rate(${n.statusUpdateRequests}{${OBJECTS}}[$__rate_interval]))`,
                "{{kind}}",
              ),
            ),
        ],
      },
      {
        title: "Transitions",
        panels: [
          timeseriesPanel({
            title: "Condition transitions",
            description: `Condition status changes per kind, condition type and new status. ${optInNote(n.conditionTransitions)}`,
            unit: "ops",
            w: 12,
            h: 8,
          })
            .noValue(optInNote(n.conditionTransitions))
            .withTarget(
              query(
                `sum by (kind, type, status) (max by (${BY_OBJECT}, type, status) (rate(${n.conditionTransitions}{${OBJECTS}}[$__rate_interval])))`,
                "{{kind}} {{type}}={{status}}",
              ),
            ),
          timeseriesPanel({
            title: "Illegal phase transitions",
            description: "Phase changes that the configured phaseTransitions table does not allow, per kind.",
            unit: "ops",
            w: 12,
            h: 8,
          }).withTarget(
            query(
              `sum by (kind, from, to) (rate(${n.phaseIllegalTransitions}{${OBJECTS}}[$__rate_interval]))`,
              "{{kind}} {{from}} → {{to}}",
            ),
          ),
        ],
      },
    ],
  });
}
