// "CR Status / Object": one object's conditions, generations and status writes,
// with a link to its traces.
import common from "@grafana/grafana-foundation-sdk/common";
import dashboard from "@grafana/grafana-foundation-sdk/dashboard";
import statetimeline from "@grafana/grafana-foundation-sdk/statetimeline";
import table from "@grafana/grafana-foundation-sdk/table";
import { metricNames } from "../../src/core/series/catalog.ts";
import { buildDashboard, type Dashboard } from "./layout.ts";
import { objectTracesUrl } from "./links.ts";
import type { DashboardOptions } from "./options.ts";
import {
  basics,
  colors,
  instant,
  link,
  optInNote,
  type PanelBasics,
  query,
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
  nameVariable,
  OBJECT,
  prometheusVariable,
  tracesVariable,
} from "./variables.ts";

export const OBJECT_UID = "cr-status-object";

function stateTimeline(spec: PanelBasics, mapping: [string, string, string][]) {
  return basics(new statetimeline.PanelBuilder(), spec)
    .mappings([valueMapping(mapping)])
    .thresholds(steps(["green", null]))
    .colorScheme(colors(dashboard.FieldColorModeId.Thresholds))
    .mergeValues(true)
    .rowHeight(0.9);
}

export function objectDashboard(options: DashboardOptions): Dashboard {
  const n = metricNames(options.metricPrefix);
  return buildDashboard({
    uid: OBJECT_UID,
    title: "CR Status / Object",
    description:
      "One custom resource: its conditions over time, generation versus observedGeneration, its status writes.",
    variables: [
      prometheusVariable(),
      tracesVariable(options),
      clusterVariable(options, n.status),
      jobVariable(n.status),
      namespaceVariable(n.status),
      kindVariable(n.status, 'cluster=~"$cluster", job=~"$job", namespace=~"$namespace"'),
      nameVariable(n.status),
    ],
    rows: [
      {
        title: "Conditions",
        panels: [
          stateTimeline(
            {
              title: "Conditions over time",
              description:
                "Status of each condition of the object over time (green True, red False, grey Unknown). The panel link opens the object's traces in $traces.",
              unit: "none",
              w: 24,
              h: 8,
            },
            [
              ["2", "True", "green"],
              ["1", "Unknown", "text"],
              ["0", "False", "red"],
            ],
          )
            .withTarget(
              query(
                `max by (type) (${n.condition}{${OBJECT}, status="True"} == 1) * 2` +
                  ` or max by (type) (${n.condition}{${OBJECT}, status="Unknown"} == 1)` +
                  ` or max by (type) (${n.condition}{${OBJECT}, status="False"} == 1) * 0`,
                "{{type}}",
              ),
            )
            .showValue(common.VisibilityMode.Auto)
            .links([link("Traces of this object", objectTracesUrl(options), true)]),
          stateTimeline(
            {
              title: "Summary status over time",
              description:
                "The object's kstatus-like summary over time: Current, InProgress, Failed, Terminating or Unknown.",
              unit: "none",
              w: 12,
              h: 6,
            },
            [
              ["1", "yes", "blue"],
              ["0", "-", "transparent"],
            ],
          )
            .withTarget(query(`max by (result) (${n.status}{${OBJECT}})`, "{{result}}"))
            .showValue(common.VisibilityMode.Never),
          basics(new table.PanelBuilder(), {
            title: "Last transition per condition",
            description: "When each condition last changed status (lastTransitionTime).",
            unit: "dateTimeAsIso",
            w: 12,
            h: 6,
          })
            .withTarget(instant(`max by (type) (${n.conditionLastTransition}{${OBJECT}}) * 1000`, true))
            .withTransformation({
              id: "organize",
              options: { excludeByName: { Time: true }, renameByName: { Value: "Last transition" } },
            })
            .thresholds(steps(["green", null]))
            .colorScheme(colors(dashboard.FieldColorModeId.PaletteClassic)),
        ],
      },
      {
        title: "Generations",
        panels: [
          timeseriesPanel({
            title: "Generation vs observed generation",
            description:
              "metadata.generation (spec changes) and status.observedGeneration (what the controller processed).",
            unit: "short",
            w: 12,
            h: 8,
          })
            .decimals(0)
            .withTarget(query(`max(${n.generation}{${OBJECT}})`, "generation"))
            .withTarget(query(`max(${n.observedGeneration}{${OBJECT}})`, "observedGeneration")),
          timeseriesPanel({
            title: "Generation wait",
            description: "How long the current generation has waited to be observed; 0 when caught up.",
            unit: "s",
            w: 12,
            h: 8,
          }).withTarget(
            query(
              `max((time() - ${n.generationRequested}{${OBJECT}}) and on (${BY_OBJECT}) (${n.generationLag}{${OBJECT}} > 0))` +
                ` or max(${n.generationLag}{${OBJECT}}) * 0`,
              "wait",
            ),
          ),
        ],
      },
      {
        title: "Status writes",
        panels: [
          timeseriesPanel({
            title: "Status writes",
            description:
              "Status writes to this object that changed something, and those that changed nothing (no-op).",
            unit: "ops",
            w: 12,
            h: 8,
          })
            .withTarget(query(`max(rate(${n.statusUpdates}{${OBJECT}}[$__rate_interval]))`, "meaningful"))
            .withTarget(query(`max(rate(${n.noopUpdates}{${OBJECT}}[$__rate_interval]))`, "no-op")),
          timeseriesPanel({
            title: "Condition transitions",
            description: `Condition status changes of this object, by condition type and new status. ${optInNote(n.conditionTransitions)}`,
            unit: "short",
            w: 12,
            h: 8,
          })
            .noValue(optInNote(n.conditionTransitions))
            .withTarget(
              query(
                `max by (type, status) (increase(${n.conditionTransitions}{${OBJECT}}[$__rate_interval]))`,
                "{{type}}={{status}}",
              ),
            ),
        ],
      },
    ],
  });
}
