// "CR Status / Overview": how many objects of each kind are healthy, which are
// not and since when, how busy their controllers are writing status.
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
  OBJECTS,
} from "./variables.ts";

export const OVERVIEW_UID = "cr-status-overview";

const RED_FROM_ONE = [
  { color: "green", value: null },
  { color: "red", value: 1 },
];

type Names = ReturnType<typeof metricNames>;

/** Objects (deduplicated over exporter replicas) whose condition `type` has `status`. */
function withCondition(n: Names, type: string, status: string): string {
  return `max by (${BY_OBJECT}) (${n.condition}{${OBJECTS}, type="${type}", status="${status}"} == 1)`;
}

function countStat(title: string, description: string, objects: string, alarming: boolean) {
  return {
    type: "stat" as const,
    title,
    description,
    unit: "short",
    w: 4,
    h: 4,
    targets: [{ expr: `count(${objects}) or vector(0)`, instant: true }],
    ...(alarming ? { thresholds: RED_FROM_ONE } : {}),
    options: { reduceOptions: { calcs: ["lastNotNull"], fields: "", values: false }, colorMode: "value" },
  };
}

export function overviewDashboard(options: DashboardOptions, drillDownUid: string): Dashboard {
  const n = metricNames(options.metricPrefix);
  const notReady = withCondition(n, "Ready", "False");
  return dashboard({
    uid: OVERVIEW_UID,
    title: "CR Status / Overview",
    description: "Health of Kubernetes custom resources, from the status the controllers write.",
    variables: [
      datasourceVariable,
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
            `max by (${BY_OBJECT}) (${n.status}{${OBJECTS}} == 1)`,
            false,
          ),
          countStat(
            "Not Ready",
            "Objects whose Ready condition is False.",
            withCondition(n, "Ready", "False"),
            true,
          ),
          countStat(
            "Ready unknown",
            "Objects whose Ready condition is Unknown.",
            withCondition(n, "Ready", "Unknown"),
            true,
          ),
          countStat("Stalled", "Objects reporting Stalled=True.", withCondition(n, "Stalled", "True"), true),
          countStat(
            "Generation lag",
            "Objects whose controller has not yet observed their latest spec (observedGeneration behind generation).",
            `max by (${BY_OBJECT}) (${n.generationLag}{${OBJECTS}}) > 0`,
            true,
          ),
          countStat(
            "Terminating",
            "Objects that were deleted and still exist (finalizers pending).",
            `max by (${BY_OBJECT}) (${n.deletion}{${OBJECTS}})`,
            true,
          ),
        ],
      },
      {
        title: "Status",
        panels: [
          {
            type: "timeseries",
            title: "Objects by kind and status",
            description:
              "Objects per kind by their kstatus-like summary (Current, InProgress, Failed, Terminating, Unknown).",
            unit: "short",
            w: 12,
            h: 8,
            targets: [
              {
                expr: `count by (kind, result) (max by (${BY_OBJECT}, result) (${n.status}{${OBJECTS}} == 1))`,
                legend: "{{kind}} {{result}}",
              },
            ],
          },
          {
            type: "timeseries",
            title: "Not Ready by kind",
            description: "Objects whose Ready condition is False, per kind.",
            unit: "short",
            w: 12,
            h: 8,
            targets: [{ expr: `count by (kind) (${notReady})`, legend: "{{kind}}" }],
          },
          {
            type: "table",
            title: "Objects not Ready",
            description:
              "Objects whose Ready condition is False, the time since Ready last changed, and its reason. Click a name for the object's dashboard.",
            unit: "s",
            w: 24,
            h: 9,
            targets: [
              {
                expr: `(time() - max by (${BY_OBJECT}) (${n.conditionLastTransition}{${OBJECTS}, type="Ready"})) and ${notReady}`,
                instant: true,
                format: "table",
              },
              {
                expr: `max by (${BY_OBJECT}, reason) (${n.conditionReason}{${OBJECTS}, type="Ready"} == 1) and on (${BY_OBJECT}) ${notReady}`,
                instant: true,
                format: "table",
              },
            ],
            transformations: [
              { id: "merge", options: {} },
              {
                id: "organize",
                options: {
                  excludeByName: { Time: true, "Value #B": true },
                  renameByName: { "Value #A": "Not Ready for" },
                  indexByName: {
                    namespace: 0,
                    kind: 1,
                    name: 2,
                    reason: 3,
                    "Value #A": 4,
                    group: 5,
                    cluster: 6,
                  },
                },
              },
              { id: "sortBy", options: { sort: [{ field: "Not Ready for", desc: true }] } },
            ],
            fieldLinks: [
              {
                title: "Open the object's dashboard",
                url: `/d/${drillDownUid}?\${__url_time_range}&var-datasource=\${datasource}&var-job=\${job}&var-namespace=\${__data.fields.namespace}&var-kind=\${__data.fields.kind}&var-name=\${__data.fields.name}`,
              },
            ],
          },
          {
            type: "state-timeline",
            title: "Ready over time",
            description:
              "Ready condition of each object over time (green Ready, red not Ready, grey Unknown).",
            unit: "none",
            w: 24,
            h: 10,
            targets: [
              {
                expr:
                  `max by (namespace, kind, name) (` +
                  `(${n.condition}{${OBJECTS}, type="Ready", status="True"} == 1) * 2` +
                  ` or (${n.condition}{${OBJECTS}, type="Ready", status="Unknown"} == 1)` +
                  ` or (${n.condition}{${OBJECTS}, type="Ready", status="False"} == 1) * 0)`,
                legend: "{{kind}} {{namespace}}/{{name}}",
              },
            ],
            mappings: [
              valueMapping([
                ["2", "Ready", "green"],
                ["1", "Unknown", "text"],
                ["0", "Not ready", "red"],
              ]),
            ],
            options: { showValue: "never", mergeValues: true, rowHeight: 0.9 },
          },
        ],
      },
      {
        title: "Generations and reconciles",
        panels: [
          {
            type: "timeseries",
            title: "Objects behind their generation",
            description: "Objects whose observedGeneration is behind metadata.generation, per kind.",
            unit: "short",
            w: 8,
            h: 8,
            targets: [
              {
                expr: `count by (kind) (max by (${BY_OBJECT}) (${n.generationLag}{${OBJECTS}}) > 0)`,
                legend: "{{kind}}",
              },
            ],
          },
          {
            type: "timeseries",
            title: "Longest generation wait",
            description: "The longest time a current generation has waited to be observed, per kind.",
            unit: "s",
            w: 8,
            h: 8,
            targets: [
              {
                // How long each waiting generation has waited (timestamps, never ages, are exported); 0 per kind when none waits.
                expr:
                  `max by (kind) ((time() - max by (${BY_OBJECT}) (${n.generationRequested}{${OBJECTS}}))` +
                  ` and on (${BY_OBJECT}) (max by (${BY_OBJECT}) (${n.generationLag}{${OBJECTS}}) > 0))` +
                  ` or max by (kind) (${n.generationLag}{${OBJECTS}}) * 0`,
                legend: "{{kind}}",
              },
            ],
          },
          {
            type: "timeseries",
            title: "Time to Ready (p90)",
            description: "90th percentile of the time from creation to the first Ready=True, per kind.",
            unit: "s",
            w: 8,
            h: 8,
            targets: [
              {
                expr: `histogram_quantile(0.9, sum by (kind, le) (rate(${n.timeToReady}_bucket{cluster=~"$cluster", job=~"$job", kind=~"$kind"}[$__rate_interval])))`,
                legend: "{{kind}}",
              },
            ],
          },
          {
            type: "heatmap",
            title: "Reconcile duration",
            description:
              "Time from a spec change to observedGeneration catching up with Ready=True. Exemplars link to the reconcile's trace when tracing is on.",
            unit: "s",
            w: 24,
            h: 9,
            targets: [
              {
                expr: `sum by (le) (rate(${n.reconcileDuration}_bucket{cluster=~"$cluster", job=~"$job", kind=~"$kind"}[$__rate_interval]))`,
                legend: "{{le}}",
                format: "heatmap",
                exemplar: true,
              },
            ],
            options: {
              calculate: false,
              yAxis: { unit: "s" },
              color: { mode: "scheme", scheme: "Oranges" },
              exemplars: { color: "rgba(255,0,255,0.7)" },
              cellGap: 1,
            },
          },
        ],
      },
      {
        title: "Status writes",
        panels: [
          {
            type: "timeseries",
            title: "Status updates",
            description: "Status writes that changed something meaningful, per kind.",
            unit: "ops",
            w: 12,
            h: 8,
            targets: [
              {
                expr: `sum by (kind) (max by (${BY_OBJECT}) (rate(${n.statusUpdates}{${OBJECTS}}[$__rate_interval])))`,
                legend: "{{kind}}",
              },
            ],
          },
          {
            type: "timeseries",
            title: "No-op status updates",
            description:
              "Status writes that changed nothing meaningful, per kind: a controller writing status on every reconcile.",
            unit: "ops",
            w: 12,
            h: 8,
            targets: [
              {
                expr: `sum by (kind) (max by (${BY_OBJECT}) (rate(${n.noopUpdates}{${OBJECTS}}[$__rate_interval])))`,
                legend: "{{kind}}",
              },
            ],
          },
          {
            type: "timeseries",
            title: "Status write failures by reason",
            description:
              "Failed writes to the /status subresource, per kind and reason (Conflict, Invalid, Forbidden, …).",
            unit: "ops",
            w: 12,
            h: 8,
            targets: [
              {
                expr: `sum by (kind, reason) (rate(${n.statusUpdateFailures}{${OBJECTS}}[$__rate_interval]))`,
                legend: "{{kind}} {{reason}}",
              },
            ],
          },
          {
            type: "timeseries",
            title: "Status write failure ratio",
            description: "Share of the writes to the /status subresource that failed, per kind.",
            unit: "percentunit",
            w: 12,
            h: 8,
            min: 0,
            targets: [
              {
                expr:
                  `sum by (kind) (rate(${n.statusUpdateFailures}{${OBJECTS}}[$__rate_interval]))` +
                  ` / sum by (kind) (rate(${n.statusUpdateRequests}{${OBJECTS}}[$__rate_interval]))`,
                legend: "{{kind}}",
              },
            ],
          },
        ],
      },
      {
        title: "Transitions",
        panels: [
          {
            type: "timeseries",
            title: "Condition transitions",
            description: `Condition status changes per kind, condition type and new status. Needs the opt-in family ${n.conditionTransitions} (metrics: { optIn: [${n.conditionTransitions}] }).`,
            unit: "ops",
            w: 12,
            h: 8,
            targets: [
              {
                expr: `sum by (kind, type, status) (max by (${BY_OBJECT}, type, status) (rate(${n.conditionTransitions}{${OBJECTS}}[$__rate_interval])))`,
                legend: "{{kind}} {{type}}={{status}}",
              },
            ],
          },
          {
            type: "timeseries",
            title: "Illegal phase transitions",
            description: "Phase changes that the configured phaseTransitions table does not allow, per kind.",
            unit: "ops",
            w: 12,
            h: 8,
            targets: [
              {
                expr: `sum by (kind, from, to) (rate(${n.phaseIllegalTransitions}{${OBJECTS}}[$__rate_interval]))`,
                legend: "{{kind}} {{from}} → {{to}}",
              },
            ],
          },
        ],
      },
    ],
  });
}
