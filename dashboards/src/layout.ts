// Turns rows of SDK panel builders into a dashboard: the settings every
// shipped dashboard shares, rows laid out by the SDK on the 24-column grid,
// then stable panel ids and query refIds (which Grafana would otherwise assign
// on load, and which table transformations and our tests refer to).
import type * as cog from "@grafana/grafana-foundation-sdk/cog";
import type * as D from "@grafana/grafana-foundation-sdk/dashboard";
import dashboard from "@grafana/grafana-foundation-sdk/dashboard";
import type * as prometheus from "@grafana/grafana-foundation-sdk/prometheus";
import type { Variable } from "./variables.ts";

export const DASHBOARD_TAG = "cr-status-exporter";
const GRID_COLUMNS = 24;

/** A Prometheus query as stored in the dashboard JSON. */
export type Target = Omit<prometheus.Dataquery, "_implementsDataqueryVariant">;
export type Panel = Omit<D.Panel, "id" | "targets"> & { id: number; targets?: Target[] };
export type Dashboard = Omit<D.Dashboard, "panels"> & {
  uid: string;
  title: string;
  panels: (Panel | D.RowPanel)[];
};

export function isRow(panel: Panel | D.RowPanel): panel is D.RowPanel {
  return panel.type === "row";
}

export interface RowSpec {
  readonly title: string;
  /** Each line of panels fills the 24 columns exactly. */
  readonly panels: readonly cog.Builder<D.Panel>[];
}

export interface DashboardSpec {
  readonly uid: string;
  readonly title: string;
  readonly description: string;
  readonly variables: readonly Variable[];
  readonly rows: readonly RowSpec[];
}

export function buildDashboard(spec: DashboardSpec): Dashboard {
  const builder = new dashboard.DashboardBuilder(spec.title)
    .uid(spec.uid)
    .description(spec.description)
    .tags([DASHBOARD_TAG])
    .readonly()
    .tooltip(dashboard.DashboardCursorSync.Crosshair)
    .refresh("30s")
    .time({ from: "now-6h", to: "now" })
    .timezone("")
    .variables([...spec.variables])
    .annotation(
      new dashboard.AnnotationQueryBuilder()
        .name("Annotations & Alerts")
        .datasource({ type: "grafana", uid: "-- Grafana --" })
        .builtIn(1)
        .type("dashboard")
        .enable(true)
        .hide(true)
        .iconColor("rgba(0, 211, 255, 1)"),
    )
    .link(
      new dashboard.DashboardLinkBuilder("CR status dashboards")
        .type(dashboard.DashboardLinkType.Dashboards)
        .tags([DASHBOARD_TAG])
        .asDropdown(true)
        .includeVars(true)
        .keepTime(true),
    );
  for (const row of spec.rows) {
    builder.withRow(new dashboard.RowBuilder(row.title));
    for (const panel of row.panels) builder.withPanel(panel);
  }
  // Through JSON: the SDK's query objects carry a marker method that is not data.
  const json = JSON.parse(JSON.stringify(builder.build())) as Dashboard;
  // In the top bar, as before Grafana 12's controls menu (the SDK's default placement).
  for (const link of json.links ?? []) delete link.placement;
  json.panels.forEach((panel, index) => {
    panel.id = index + 1;
    const { x, w } = panel.gridPos ?? { x: 0, w: 0 };
    if (x + w > GRID_COLUMNS)
      throw new Error(
        `${spec.uid} "${panel.title}": x ${x} + width ${w} overflows the ${GRID_COLUMNS}-column grid`,
      );
    if (!isRow(panel))
      panel.targets?.forEach((target, i) => {
        target.refId = String.fromCharCode("A".charCodeAt(0) + i);
      });
  });
  return json;
}
