// "CR Status / Object": one object's conditions, generations and status writes,
// with a link to its traces.
import { dashboard, valueMapping } from "./build.ts";
import type { Dashboard } from "./model.ts";
import {
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
  return dashboard({
    uid: OBJECT_UID,
    title: "CR Status / Object",
    description:
      "One custom resource: its conditions over time, generation versus observedGeneration, its status writes.",
    variables: [
      datasourceVariable,
      clusterVariable(options, "cr_status"),
      jobVariable("cr_status"),
      namespaceVariable(),
      kindVariable("cr_status", 'cluster=~"$cluster", job=~"$job", namespace=~"$namespace"'),
      nameVariable(),
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
                  `max by (type) (cr_condition{${OBJECT}, status="True"} == 1) * 2` +
                  ` or max by (type) (cr_condition{${OBJECT}, status="Unknown"} == 1)` +
                  ` or max by (type) (cr_condition{${OBJECT}, status="False"} == 1) * 0`,
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
            targets: [{ expr: `max by (result) (cr_status{${OBJECT}})`, legend: "{{result}}" }],
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
                expr: `max by (type) (cr_condition_last_transition_timestamp_seconds{${OBJECT}}) * 1000`,
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
              { expr: `max(cr_metadata_generation{${OBJECT}})`, legend: "generation" },
              { expr: `max(cr_status_observed_generation{${OBJECT}})`, legend: "observedGeneration" },
            ],
          },
          {
            type: "timeseries",
            title: "Generation wait",
            description: "How long the current generation has waited to be observed; 0 when caught up.",
            unit: "s",
            w: 12,
            h: 8,
            targets: [{ expr: `max(cr_generation_lag_seconds{${OBJECT}})`, legend: "wait" }],
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
                expr: `max(rate(cr_status_updates_total{${OBJECT}}[$__rate_interval]))`,
                legend: "meaningful",
              },
              {
                expr: `max(rate(cr_status_noop_updates_total{${OBJECT}}[$__rate_interval]))`,
                legend: "no-op",
              },
            ],
          },
          {
            type: "timeseries",
            title: "Condition transitions",
            description: "Condition status changes of this object, by condition type and new status.",
            unit: "short",
            w: 12,
            h: 8,
            targets: [
              {
                expr: `max by (type, status) (increase(cr_condition_transitions_total{${OBJECT}}[$__rate_interval]))`,
                legend: "{{type}}={{status}}",
              },
            ],
          },
        ],
      },
    ],
  });
}
