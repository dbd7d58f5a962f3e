// The few things every panel of the shipped dashboards sets the same way, on
// Grafana's typed panel builders: title, description, unit, size, the
// Prometheus variable as data source, visible legends, stat reduction, colours.
import common from "@grafana/grafana-foundation-sdk/common";
import type * as D from "@grafana/grafana-foundation-sdk/dashboard";
import dashboard from "@grafana/grafana-foundation-sdk/dashboard";
import prometheus from "@grafana/grafana-foundation-sdk/prometheus";
import stat from "@grafana/grafana-foundation-sdk/stat";
import timeseries from "@grafana/grafana-foundation-sdk/timeseries";
import { PROMETHEUS } from "./variables.ts";

export interface PanelBasics {
  readonly title: string;
  readonly description: string;
  readonly unit: string;
  readonly w: number;
  readonly h: number;
}

/** The methods all SDK panel builders share. */
interface Basic<T> {
  title(title: string): T;
  description(description: string): T;
  datasource(datasource: typeof PROMETHEUS): T;
  unit(unit: string): T;
  span(w: number): T;
  height(h: number): T;
}

export function basics<T extends Basic<T>>(panel: T, spec: PanelBasics): T {
  return panel
    .title(spec.title)
    .description(spec.description)
    .datasource(PROMETHEUS)
    .unit(spec.unit)
    .span(spec.w)
    .height(spec.h);
}

/** A range query (time series), on the Prometheus variable. */
export function query(expr: string, legend?: string): InstanceType<typeof prometheus.DataqueryBuilder> {
  const q = new prometheus.DataqueryBuilder().datasource(PROMETHEUS).expr(expr).range();
  return legend === undefined ? q : q.legendFormat(legend);
}

/** An instant query: stat values, or (format table) table rows. */
export function instant(expr: string, table = false): InstanceType<typeof prometheus.DataqueryBuilder> {
  const q = new prometheus.DataqueryBuilder().datasource(PROMETHEUS).expr(expr).instant();
  return table ? q.format(prometheus.PromQueryFormat.Table) : q;
}

export function steps(...list: [color: string, from: number | null][]) {
  return new dashboard.ThresholdsConfigBuilder()
    .mode(dashboard.ThresholdsMode.Absolute)
    .steps(list.map(([color, value]) => ({ color, value })));
}

export const GREEN = steps(["green", null]);
export const RED_FROM_ONE = steps(["green", null], ["red", 1]);

export function colors(mode: D.FieldColorModeId) {
  return new dashboard.FieldColorBuilder().mode(mode);
}

/** Value mapping from exact values to text and colour, e.g. 1 → Ready (green). */
export function valueMapping(entries: readonly [value: string, text: string, color: string][]): D.ValueMap {
  return {
    type: dashboard.MappingType.ValueToText,
    options: Object.fromEntries(
      entries.map(([value, text, color], index) => [value, { text, color, index }]),
    ),
  };
}

export function link(title: string, url: string, targetBlank = false) {
  return new dashboard.DashboardLinkBuilder(title).url(url).targetBlank(targetBlank);
}

/** A time series panel with a legend listing every series and a tooltip showing all of them. */
export function timeseriesPanel(spec: PanelBasics) {
  return basics(new timeseries.PanelBuilder(), spec)
    .legend(
      new common.VizLegendOptionsBuilder()
        .showLegend(true)
        .displayMode(common.LegendDisplayMode.List)
        .placement(common.LegendPlacement.Bottom),
    )
    .tooltip(
      new common.VizTooltipOptionsBuilder()
        .mode(common.TooltipDisplayMode.Multi)
        .sort(common.SortOrder.Descending),
    )
    .thresholds(GREEN)
    .colorScheme(colors(dashboard.FieldColorModeId.PaletteClassic));
}

/** A stat panel showing the last value of an instant query. */
export function statPanel(spec: PanelBasics) {
  return basics(new stat.PanelBuilder(), spec)
    .reduceOptions(new common.ReduceDataOptionsBuilder().calcs(["lastNotNull"]).fields("").values(false))
    .colorMode(common.BigValueColorMode.Value)
    .colorScheme(colors(dashboard.FieldColorModeId.Thresholds));
}

/** What a panel reading an opt-in family shows, and says in its description, while the family is not exported. */
export function optInNote(family: string): string {
  return `Needs the opt-in family ${family} (metrics: { optIn: [${family}] }).`;
}
