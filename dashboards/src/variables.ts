// Template variables shared by the dashboards, and the label matchers that use them.
import { defaultMetricPrefix } from "../../src/core/catalog.ts";
import { DATASOURCE, type DatasourceVariable, type QueryVariable } from "./model.ts";

export interface DashboardOptions {
  /** The exporter's --metric-prefix; metric names come from its family catalog. */
  readonly metricPrefix: string;
  /** Show the cluster picker (Thanos/Mimir setups); when false it stays hidden and matches everything. */
  readonly showMultiCluster: boolean;
  /** Span attribute names the exporter's traces carry, for the drill-down's "traces" link. */
  readonly traceAttributes: { readonly namespace: string; readonly kind: string; readonly name: string };
}

export const DEFAULT_DASHBOARD_OPTIONS: DashboardOptions = {
  metricPrefix: defaultMetricPrefix,
  showMultiCluster: false,
  traceAttributes: { namespace: "k8s.namespace.name", kind: "k8s.object.kind", name: "k8s.object.name" },
};

export const datasourceVariable: DatasourceVariable = {
  type: "datasource",
  name: "datasource",
  label: "Data source",
  query: "prometheus",
  hide: 0,
  current: {},
};

function queryVariable(
  name: string,
  label: string,
  definition: string,
  choice: { multi: boolean; allValue?: string; hidden?: boolean },
): QueryVariable {
  return {
    type: "query",
    name,
    label,
    datasource: DATASOURCE,
    query: { query: definition, refId: `${name}-values` },
    definition,
    refresh: 2,
    multi: choice.multi,
    includeAll: choice.allValue !== undefined,
    ...(choice.allValue !== undefined ? { allValue: choice.allValue } : {}),
    hide: choice.hidden ? 2 : 0,
    sort: 1,
    regex: "",
    current: {},
    options: [],
  };
}

/**
 * `.*` for cluster and namespace: the label is absent (empty) on single-cluster
 * setups and on cluster-scoped objects, and `.+` would hide those series.
 */
export function clusterVariable(options: DashboardOptions, metric: string): QueryVariable {
  return queryVariable("cluster", "Cluster", `label_values(${metric}, cluster)`, {
    multi: true,
    allValue: ".*",
    hidden: !options.showMultiCluster,
  });
}

export function jobVariable(metric: string): QueryVariable {
  return queryVariable("job", "Job", `label_values(${metric}{cluster=~"$cluster"}, job)`, {
    multi: true,
    allValue: ".+",
  });
}

/** `metric`: a per-object family every object has (the summary). */
export function namespaceVariable(metric: string): QueryVariable {
  return queryVariable(
    "namespace",
    "Namespace",
    `label_values(${metric}{cluster=~"$cluster", job=~"$job"}, namespace)`,
    { multi: true, allValue: ".*" },
  );
}

export function kindVariable(metric: string, scope: string): QueryVariable {
  return queryVariable("kind", "Kind", `label_values(${metric}{${scope}}, kind)`, {
    multi: true,
    allValue: ".+",
  });
}

export function nameVariable(metric: string): QueryVariable {
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
