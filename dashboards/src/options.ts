// Everything deployment-specific about the shipped dashboards. The committed
// files are generated with DEFAULT_DASHBOARD_OPTIONS; other deployments (a
// different prefix, several clusters, Jaeger instead of Tempo) generate their
// own with `dashboards({ ...DEFAULT_DASHBOARD_OPTIONS, ... })`.
import { defaultMetricPrefix } from "../../src/core/series/catalog.ts";

export type TracesDatasourceType = "tempo" | "jaeger";

export interface DashboardOptions {
  /** The exporter's --metric-prefix; metric names come from its family catalog. */
  readonly metricPrefix: string;
  /**
   * Several clusters behind one data source (Thanos, Mimir): the cluster picker
   * is shown and links carry each row's cluster. Off, the picker stays hidden
   * and matches everything, including series without a cluster label.
   */
  readonly multiCluster: boolean;
  readonly traces: {
    /** The plugin of the `traces` data source variable; trace links speak its query language. */
    readonly datasourceType: TracesDatasourceType;
    /** service.name of the exporter's spans (Jaeger searches by service). */
    readonly serviceName: string;
    /** Span attribute names the exporter's spans carry (docs/tracing.md). */
    readonly attributes: {
      readonly cluster: string;
      readonly namespace: string;
      readonly kind: string;
      readonly name: string;
    };
  };
  /** Rows of the per-object panels of the overview: they show the worst objects, not the fleet. */
  readonly limits: { readonly notReadyTable: number; readonly notReadyTimeline: number };
}

export const DEFAULT_DASHBOARD_OPTIONS: DashboardOptions = {
  metricPrefix: defaultMetricPrefix,
  multiCluster: false,
  traces: {
    datasourceType: "tempo",
    serviceName: "cr-status-exporter",
    attributes: {
      cluster: "k8s.cluster.name",
      namespace: "k8s.namespace.name",
      kind: "k8s.object.kind",
      name: "k8s.object.name",
    },
  },
  limits: { notReadyTable: 100, notReadyTimeline: 20 },
};
