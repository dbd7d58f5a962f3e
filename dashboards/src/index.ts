// The shipped Grafana dashboards, the files they are written to (checked
// against the SDK's types first), and every panel query in runnable form
// (variables replaced by match-all values).
import { objectFamilies } from "../../src/core/series/catalog.ts";
import { exporterDashboard } from "./exporter.ts";
import { type Dashboard, isRow } from "./layout.ts";
import { OBJECT_UID, objectDashboard } from "./object.ts";
import { type DashboardOptions, DEFAULT_DASHBOARD_OPTIONS } from "./options.ts";
import { overviewDashboard } from "./overview.ts";
import { assertSdkTypes } from "./sdk-types.ts";
import { MATCH_ALL } from "./variables.ts";

export { type Dashboard, isRow, type Panel, type Target } from "./layout.ts";
export { OBJECT_UID } from "./object.ts";
export { type DashboardOptions, DEFAULT_DASHBOARD_OPTIONS } from "./options.ts";
export { OVERVIEW_UID } from "./overview.ts";
export { assertSdkTypes } from "./sdk-types.ts";
export { MATCH_ALL } from "./variables.ts";

export const DASHBOARD_DIR = "dashboards/grafana";
/** The same dashboards with the multi-cluster toggle on (the chart's dashboards.multiCluster picks them). */
export const MULTI_CLUSTER_DASHBOARD_DIR = `${DASHBOARD_DIR}/multi-cluster`;

export function dashboards(options: DashboardOptions = DEFAULT_DASHBOARD_OPTIONS): Dashboard[] {
  return [overviewDashboard(options, OBJECT_UID), objectDashboard(options), exporterDashboard(options)];
}

export function generatedDashboardFiles(): Map<string, string> {
  const single = dashboards();
  const multi = dashboards({ ...DEFAULT_DASHBOARD_OPTIONS, multiCluster: true });
  assertSdkTypes([...single, ...multi]);
  const files = (dir: string, list: Dashboard[]) =>
    list.map((d) => [`${dir}/${d.uid}.json`, `${JSON.stringify(d, null, 2)}\n`] as const);
  return new Map([...files(DASHBOARD_DIR, single), ...files(MULTI_CLUSTER_DASHBOARD_DIR, multi)]);
}

export interface PanelQuery {
  readonly dashboard: string;
  readonly panelId: number;
  readonly panel: string;
  readonly refId: string;
  /** The expression as stored in the dashboard (with $variables). */
  readonly expr: string;
  /** The expression runnable against Prometheus: variables replaced by MATCH_ALL, $__rate_interval by rateInterval. */
  readonly query: string;
  readonly instant: boolean;
  /** Opt-in families the query reads: without them the panel shows its note (noValue) instead of data. */
  readonly optIn: readonly string[];
  /** The panel's noValue text, if any. */
  readonly noValue: string | undefined;
}

/**
 * Replaces Grafana variables by values (by default ones that select
 * everything), and Grafana's interval macros by fixed durations, so a panel
 * query can be sent to Prometheus.
 */
export function substituteVariables(
  expr: string,
  rateInterval = "1m",
  values: Readonly<Record<string, string>> = MATCH_ALL,
): string {
  return expr
    .replaceAll("$__rate_interval", rateInterval)
    .replaceAll("$__interval", rateInterval)
    .replaceAll("$__range", "1h")
    .replace(/\$\{(\w+)\}|\$(\w+)/g, (whole, braced: string | undefined, bare: string | undefined) => {
      const name = braced ?? bare ?? "";
      const value = values[name];
      if (value === undefined) throw new Error(`query uses the undefined variable ${whole}: ${expr}`);
      return value;
    });
}

/** Every query of every panel of every shipped dashboard, ready to run against Prometheus. */
export function panelQueries(
  options: {
    rateInterval?: string;
    dashboards?: DashboardOptions;
    /** Variable values per dashboard uid (default: MATCH_ALL), e.g. one object for the drill-down. */
    values?: Readonly<Record<string, Readonly<Record<string, string>>>>;
  } = {},
): PanelQuery[] {
  const prefix = (options.dashboards ?? DEFAULT_DASHBOARD_OPTIONS).metricPrefix;
  const optIn = objectFamilies.filter((f) => !f.defaultSet).map((f) => prefix + f.suffix);
  return dashboards(options.dashboards).flatMap((d) =>
    d.panels.flatMap((p) =>
      isRow(p)
        ? []
        : (p.targets ?? []).map((t) => ({
            dashboard: d.uid,
            panelId: p.id,
            panel: p.title ?? "",
            refId: t.refId ?? "",
            expr: t.expr,
            query: substituteVariables(t.expr, options.rateInterval, options.values?.[d.uid]),
            instant: t.instant === true,
            optIn: optIn.filter((name) => new RegExp(`\\b${name}\\b`).test(t.expr)),
            noValue: p.fieldConfig?.defaults.noValue,
          })),
    ),
  );
}
