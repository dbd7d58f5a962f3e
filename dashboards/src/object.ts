// "CR Status / Object": one object's conditions, generations and status writes,
// with a link to its traces.
import { metricNames } from "../../src/core/catalog.ts";
import { dashboard, valueMapping } from "./build.ts";
import type { Dashboard } from "./model.ts";
import {
  BY_OBJECT,
  clusterVariable,
  type DashboardOptions,
  datasourceVariable,
  jobVariable,
  kindVariable,
  namespaceVariable,
  nameVariable,
  OBJECT,
} from "./variables.ts";

export const OBJECT_UID = "cr-status-object";

/** Explore link searching the traces of the selected object (TraceQL on the exporter's span attributes). */
function tracesLink(options: DashboardOptions): string {
  const a = options.traceAttributes;
  const traceql = `{ span.${a.namespace} = "\${namespace}" && span.${a.kind} = "\${kind}" && span.${a.name} = "\${name}" }`;
  const pane = {
    datasource: "",
    queries: [{ refId: "A", queryType: "traceql", query: traceql }],
    // biome-ignore lint/suspicious/noTemplateCurlyInString: Grafana macros, resolved by Grafana
    range: { from: "${__from}", to: "${__to}" },
  };
  return `/explore?schemaVersion=1&panes=${encodeURIComponent(JSON.stringify({ traces: pane }))
    .replaceAll("%24%7B", "${")
    .replaceAll("%7D", "}")}`;
}

export function objectDashboard(options: DashboardOptions): Dashboard {
  const n = metricNames(options.metricPrefix);
  return dashboard({
    uid: OBJECT_UID,
    title: "CR Status / Object",
    description:
      "One custom resource: its conditions over time, generation versus observedGeneration, its status writes.",
    variables: [
      datasourceVariable,
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
          {
            type: "state-timeline",
            title: "Conditions over time",
            description:
              "Status of each condition of the object over time (green True, red False, grey Unknown).",
            unit: "none",
            w: 24,
            h: 8,
            targets: [
              {
                expr:
                  `max by (type) (${n.condition}{${OBJECT}, status="True"} == 1) * 2` +
                  ` or max by (type) (${n.condition}{${OBJECT}, status="Unknown"} == 1)` +
                  ` or max by (type) (${n.condition}{${OBJECT}, status="False"} == 1) * 0`,
                legend: "{{type}}",
              },
            ],
            mappings: [
              valueMapping([
                ["2", "True", "green"],
                ["1", "Unknown", "text"],
                ["0", "False", "red"],
              ]),
            ],
            options: { showValue: "auto", mergeValues: true, rowHeight: 0.9 },
            links: [{ title: "Traces of this object", url: tracesLink(options), targetBlank: true }],
          },
          {
            type: "state-timeline",
            title: "Summary status over time",
            description:
              "The object's kstatus-like summary over time: Current, InProgress, Failed, Terminating or Unknown.",
            unit: "none",
            w: 12,
            h: 6,
            targets: [{ expr: `max by (result) (${n.status}{${OBJECT}})`, legend: "{{result}}" }],
            mappings: [
              valueMapping([
                ["1", "yes", "blue"],
                ["0", "-", "transparent"],
              ]),
            ],
            options: { showValue: "never", mergeValues: true, rowHeight: 0.9 },
          },
          {
            type: "table",
            title: "Last transition per condition",
            description: "When each condition last changed status (lastTransitionTime).",
            unit: "dateTimeAsIso",
            w: 12,
            h: 6,
            targets: [
              {
                expr: `max by (type) (${n.conditionLastTransition}{${OBJECT}}) * 1000`,
                instant: true,
                format: "table",
              },
            ],
            transformations: [
              {
                id: "organize",
                options: { excludeByName: { Time: true }, renameByName: { Value: "Last transition" } },
              },
            ],
          },
        ],
      },
      {
        title: "Generations",
        panels: [
          {
            type: "timeseries",
            title: "Generation vs observed generation",
            description:
              "metadata.generation (spec changes) and status.observedGeneration (what the controller processed).",
            unit: "short",
            w: 12,
            h: 8,
            decimals: 0,
            targets: [
              { expr: `max(${n.generation}{${OBJECT}})`, legend: "generation" },
              { expr: `max(${n.observedGeneration}{${OBJECT}})`, legend: "observedGeneration" },
            ],
          },
          {
            type: "timeseries",
            title: "Generation wait",
            description: "How long the current generation has waited to be observed; 0 when caught up.",
            unit: "s",
            w: 12,
            h: 8,
            targets: [
              {
                expr:
                  `max((time() - ${n.generationRequested}{${OBJECT}}) and on (${BY_OBJECT}) (${n.generationLag}{${OBJECT}} > 0))` +
                  ` or max(${n.generationLag}{${OBJECT}}) * 0`,
                legend: "wait",
              },
            ],
          },
        ],
      },
      {
        title: "Status writes",
        panels: [
          {
            type: "timeseries",
            title: "Status writes",
            description:
              "Status writes to this object that changed something, and those that changed nothing (no-op).",
            unit: "ops",
            w: 12,
            h: 8,
            targets: [
              {
                expr: `max(rate(${n.statusUpdates}{${OBJECT}}[$__rate_interval]))`,
                legend: "meaningful",
              },
              {
                expr: `max(rate(${n.noopUpdates}{${OBJECT}}[$__rate_interval]))`,
                legend: "no-op",
              },
            ],
          },
          {
            type: "timeseries",
            title: "Condition transitions",
            description: `Condition status changes of this object, by condition type and new status. Needs the opt-in family ${n.conditionTransitions} (metrics: { optIn: [${n.conditionTransitions}] }).`,
            unit: "short",
            w: 12,
            h: 8,
            targets: [
              {
                expr: `max by (type, status) (increase(${n.conditionTransitions}{${OBJECT}}[$__rate_interval]))`,
                legend: "{{type}}={{status}}",
              },
            ],
          },
        ],
      },
    ],
  });
}
