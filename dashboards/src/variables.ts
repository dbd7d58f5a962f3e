// Template variables shared by the dashboards (Grafana's typed builders), and
// the label matchers that use them.
import type * as cog from "@grafana/grafana-foundation-sdk/cog";
import type * as D from "@grafana/grafana-foundation-sdk/dashboard";
import dashboard from "@grafana/grafana-foundation-sdk/dashboard";
import type { DashboardOptions } from "./options.ts";

// biome-ignore lint/suspicious/noTemplateCurlyInString: Grafana variable syntax, resolved by Grafana
export const PROMETHEUS = { type: "prometheus", uid: "${datasource}" } as const;

export type Variable = cog.Builder<D.VariableModel>;

export function prometheusVariable(): Variable {
  return new dashboard.DatasourceVariableBuilder("datasource")
    .hide(dashboard.VariableHide.DontHide)
    .label("Data source")
    .type("prometheus");
}

/** The trace backend every trace link and exemplar link opens. */
export function tracesVariable(options: DashboardOptions): Variable {
  return new dashboard.DatasourceVariableBuilder("traces")
    .hide(dashboard.VariableHide.DontHide)
    .label("Traces")
    .description(
      `The ${options.traces.datasourceType === "tempo" ? "Tempo" : "Jaeger"} data source receiving the exporter's spans.`,
    )
    .type(options.traces.datasourceType);
}

function queryVariable(
  name: string,
  label: string,
  definition: string,
  choice: { multi: boolean; allValue?: string; hidden?: boolean },
): Variable {
  // hide first: its place in the JSON stays right after the SDK's defaults (the chart's multi-cluster switch finds it there).
  const variable = new dashboard.QueryVariableBuilder(name)
    .hide(choice.hidden ? dashboard.VariableHide.HideVariable : dashboard.VariableHide.DontHide)
    .label(label)
    .datasource(PROMETHEUS)
    .query({ query: definition, refId: `${name}-values` })
    .definition(definition)
    // Reload on time-range change, so new objects appear without reloading the dashboard.
    .refresh(dashboard.VariableRefresh.OnTimeRangeChanged)
    .sort(dashboard.VariableSort.AlphabeticalAsc)
    .multi(choice.multi)
    .includeAll(choice.allValue !== undefined);
  return choice.allValue !== undefined ? variable.allValue(choice.allValue) : variable;
}

/**
 * `.*` for cluster and namespace: the label is absent (empty) on single-cluster
 * setups and on cluster-scoped objects, and `.+` would hide those series.
 */
export function clusterVariable(options: DashboardOptions, metric: string): Variable {
  return queryVariable("cluster", "Cluster", `label_values(${metric}, cluster)`, {
    multi: true,
    allValue: ".*",
    hidden: !options.multiCluster,
  });
}

export function jobVariable(metric: string): Variable {
  return queryVariable("job", "Job", `label_values(${metric}{cluster=~"$cluster"}, job)`, {
    multi: true,
    allValue: ".+",
  });
}

/** `metric`: a family every object (or kind) has. */
export function namespaceVariable(metric: string): Variable {
  return queryVariable(
    "namespace",
    "Namespace",
    `label_values(${metric}{cluster=~"$cluster", job=~"$job"}, namespace)`,
    { multi: true, allValue: ".*" },
  );
}

export function kindVariable(metric: string, scope: string): Variable {
  return queryVariable("kind", "Kind", `label_values(${metric}{${scope}}, kind)`, {
    multi: true,
    allValue: ".+",
  });
}

export function nameVariable(metric: string): Variable {
  return queryVariable(
    "name",
    "Object",
    `label_values(${metric}{cluster=~"$cluster", job=~"$job", namespace=~"$namespace", kind=~"$kind"}, name)`,
    { multi: false },
  );
}

/** Every object query of the overview: the exporter, cluster, namespace and kind pickers. */
export const OBJECTS = 'cluster=~"$cluster", job=~"$job", namespace=~"$namespace", kind=~"$kind"';
/** The drill-down: one object. */
export const OBJECT = `${OBJECTS}, name=~"$name"`;
/** Exporter self-metrics, which carry no namespace. */
export const EXPORTER = 'cluster=~"$cluster", job=~"$job"';
export const EXPORTER_KIND = `${EXPORTER}, kind=~"$kind"`;

/** The labels identifying one object, to de-duplicate exporter replicas before counting. */
export const BY_OBJECT = "cluster, namespace, group, kind, name";

/** Values substituted for each variable when a query is run outside Grafana (match everything). */
export const MATCH_ALL: Readonly<Record<string, string>> = {
  cluster: ".*",
  job: ".+",
  namespace: ".*",
  kind: ".+",
  name: ".+",
};
