// The subset of Grafana's classic dashboard JSON model (schemaVersion 39, loaded
// by Grafana 11 and 12) that the shipped dashboards use. Typed here instead of
// pulling a generated SDK, so the committed JSON is exactly what these types allow.

export const SCHEMA_VERSION = 39;

// biome-ignore lint/suspicious/noTemplateCurlyInString: Grafana variable syntax, resolved by Grafana
export const DATASOURCE = { type: "prometheus", uid: "${datasource}" } as const;
export type DatasourceRef = typeof DATASOURCE;

export interface GridPos {
  readonly x: number;
  readonly y: number;
  readonly w: number;
  readonly h: number;
}

export interface Target {
  readonly refId: string;
  readonly datasource: DatasourceRef;
  readonly expr: string;
  readonly legendFormat?: string;
  readonly instant?: boolean;
  readonly range?: boolean;
  readonly format?: "time_series" | "table" | "heatmap";
  readonly exemplar?: boolean;
}

export interface ValueMapping {
  readonly type: "value";
  readonly options: Readonly<
    Record<string, { readonly text: string; readonly color?: string; readonly index: number }>
  >;
}

export interface Threshold {
  readonly color: string;
  readonly value: number | null;
}

export interface FieldConfig {
  readonly defaults: {
    readonly unit: string;
    readonly decimals?: number;
    readonly min?: number;
    readonly max?: number;
    readonly mappings?: readonly ValueMapping[];
    readonly thresholds?: { readonly mode: "absolute"; readonly steps: readonly Threshold[] };
    readonly color?: { readonly mode: string };
    readonly links?: readonly DataLink[];
    readonly custom?: Readonly<Record<string, unknown>>;
  };
  readonly overrides: readonly unknown[];
}

export interface DataLink {
  readonly title: string;
  readonly url: string;
  readonly targetBlank?: boolean;
}

export type PanelType = "stat" | "timeseries" | "table" | "state-timeline" | "heatmap" | "text";

export interface Panel {
  readonly id: number;
  readonly type: PanelType;
  readonly title: string;
  readonly description: string;
  readonly gridPos: GridPos;
  readonly datasource: DatasourceRef;
  readonly targets: readonly Target[];
  readonly fieldConfig: FieldConfig;
  readonly options: Readonly<Record<string, unknown>>;
  readonly transformations?: readonly {
    readonly id: string;
    readonly options: Readonly<Record<string, unknown>>;
  }[];
  readonly links?: readonly DataLink[];
}

export interface RowPanel {
  readonly id: number;
  readonly type: "row";
  readonly title: string;
  readonly collapsed: false;
  readonly gridPos: GridPos;
  readonly panels: readonly [];
}

export interface DatasourceVariable {
  readonly type: "datasource";
  readonly name: string;
  readonly label: string;
  readonly query: "prometheus";
  readonly hide: 0 | 2;
  readonly current: Readonly<Record<string, never>>;
}

export interface QueryVariable {
  readonly type: "query";
  readonly name: string;
  readonly label: string;
  readonly datasource: DatasourceRef;
  readonly query: { readonly query: string; readonly refId: string };
  readonly definition: string;
  /** 2: reload on time-range change, so new objects appear without reloading the dashboard. */
  readonly refresh: 2;
  readonly multi: boolean;
  readonly includeAll: boolean;
  readonly allValue?: string;
  readonly hide: 0 | 2;
  readonly sort: 1;
  readonly regex: "";
  readonly current: Readonly<Record<string, never>>;
  readonly options: readonly [];
}

export type Variable = DatasourceVariable | QueryVariable;

export interface DashboardLink {
  readonly title: string;
  readonly type: "dashboards";
  readonly tags: readonly string[];
  readonly asDropdown: boolean;
  readonly includeVars: boolean;
  readonly keepTime: boolean;
}

export interface Dashboard {
  readonly uid: string;
  readonly title: string;
  readonly description: string;
  readonly tags: readonly string[];
  readonly schemaVersion: typeof SCHEMA_VERSION;
  readonly editable: false;
  readonly graphTooltip: 1;
  readonly refresh: string;
  readonly time: { readonly from: string; readonly to: string };
  readonly timezone: "";
  readonly templating: { readonly list: readonly Variable[] };
  readonly annotations: { readonly list: readonly unknown[] };
  readonly links: readonly DashboardLink[];
  readonly panels: readonly (Panel | RowPanel)[];
}

export function isRow(panel: Panel | RowPanel): panel is RowPanel {
  return panel.type === "row";
}
