// Small builders that turn terse panel specs into the Grafana JSON model:
// they number panels, assign refIds and lay panels out left to right in
// rows of 24 columns, so no dashboard file positions anything by hand.
import {
  DATASOURCE,
  type Dashboard,
  type DashboardLink,
  type DataLink,
  type FieldConfig,
  type Panel,
  type PanelType,
  type RowPanel,
  SCHEMA_VERSION,
  type Target,
  type Threshold,
  type ValueMapping,
  type Variable,
} from "./model.ts";

export const GRID_COLUMNS = 24;
export const DASHBOARD_TAG = "cr-status-exporter";

export interface TargetSpec {
  readonly expr: string;
  readonly legend?: string;
  /** Instant query (stat values, tables); range otherwise. */
  readonly instant?: boolean;
  readonly format?: Target["format"];
  readonly exemplar?: boolean;
}

export interface PanelSpec {
  readonly type: PanelType;
  readonly title: string;
  readonly description: string;
  readonly unit: string;
  readonly targets: readonly TargetSpec[];
  readonly w: number;
  readonly h: number;
  readonly options?: Readonly<Record<string, unknown>>;
  readonly mappings?: readonly ValueMapping[];
  readonly thresholds?: readonly Threshold[];
  readonly min?: number;
  readonly max?: number;
  readonly decimals?: number;
  readonly custom?: Readonly<Record<string, unknown>>;
  readonly fieldLinks?: readonly DataLink[];
  readonly links?: readonly DataLink[];
  readonly transformations?: Panel["transformations"];
}

export interface RowSpec {
  readonly title: string;
  readonly panels: readonly PanelSpec[];
}

export interface DashboardSpec {
  readonly uid: string;
  readonly title: string;
  readonly description: string;
  readonly variables: readonly Variable[];
  readonly rows: readonly RowSpec[];
}

const DEFAULT_THRESHOLDS: readonly Threshold[] = [{ color: "green", value: null }];

/** Value mapping from exact values to text and colour, e.g. 1 → Ready (green). */
export function valueMapping(entries: readonly [value: string, text: string, color: string][]): ValueMapping {
  return {
    type: "value",
    options: Object.fromEntries(
      entries.map(([value, text, color], index) => [value, { text, color, index }]),
    ),
  };
}

function target(spec: TargetSpec, index: number): Target {
  return {
    refId: String.fromCharCode("A".charCodeAt(0) + index),
    datasource: DATASOURCE,
    expr: spec.expr,
    ...(spec.legend !== undefined ? { legendFormat: spec.legend } : {}),
    ...(spec.instant ? { instant: true, range: false } : { instant: false, range: true }),
    ...(spec.format ? { format: spec.format } : {}),
    ...(spec.exemplar ? { exemplar: true } : {}),
  };
}

function fieldConfig(spec: PanelSpec): FieldConfig {
  return {
    defaults: {
      unit: spec.unit,
      ...(spec.decimals !== undefined ? { decimals: spec.decimals } : {}),
      ...(spec.min !== undefined ? { min: spec.min } : {}),
      ...(spec.max !== undefined ? { max: spec.max } : {}),
      ...(spec.mappings ? { mappings: spec.mappings } : {}),
      thresholds: { mode: "absolute", steps: spec.thresholds ?? DEFAULT_THRESHOLDS },
      color: { mode: spec.mappings || spec.thresholds ? "thresholds" : "palette-classic" },
      ...(spec.fieldLinks ? { links: spec.fieldLinks } : {}),
      ...(spec.custom ? { custom: spec.custom } : {}),
    },
    overrides: [],
  };
}

export function dashboard(spec: DashboardSpec): Dashboard {
  const panels: (Panel | RowPanel)[] = [];
  let id = 1;
  let y = 0;
  for (const row of spec.rows) {
    panels.push({
      id: id++,
      type: "row",
      title: row.title,
      collapsed: false,
      gridPos: { x: 0, y, w: GRID_COLUMNS, h: 1 },
      panels: [],
    });
    y += 1;
    let x = 0;
    let lineHeight = 0;
    for (const p of row.panels) {
      if (p.w < 1 || p.w > GRID_COLUMNS)
        throw new Error(`panel "${p.title}": width ${p.w} is not within 1..24`);
      if (x + p.w > GRID_COLUMNS) {
        y += lineHeight;
        x = 0;
        lineHeight = 0;
      }
      panels.push({
        id: id++,
        type: p.type,
        title: p.title,
        description: p.description,
        gridPos: { x, y, w: p.w, h: p.h },
        datasource: DATASOURCE,
        targets: p.targets.map(target),
        fieldConfig: fieldConfig(p),
        options: p.options ?? {},
        ...(p.transformations ? { transformations: p.transformations } : {}),
        ...(p.links ? { links: p.links } : {}),
      });
      x += p.w;
      lineHeight = Math.max(lineHeight, p.h);
    }
    y += lineHeight;
  }
  const links: DashboardLink[] = [
    {
      title: "CR status dashboards",
      type: "dashboards",
      tags: [DASHBOARD_TAG],
      asDropdown: true,
      includeVars: true,
      keepTime: true,
    },
  ];
  return {
    uid: spec.uid,
    title: spec.title,
    description: spec.description,
    tags: [DASHBOARD_TAG],
    schemaVersion: SCHEMA_VERSION,
    editable: false,
    graphTooltip: 1,
    refresh: "30s",
    time: { from: "now-6h", to: "now" },
    timezone: "",
    templating: { list: spec.variables },
    annotations: {
      list: [
        {
          builtIn: 1,
          datasource: { type: "grafana", uid: "-- Grafana --" },
          enable: true,
          hide: true,
          iconColor: "rgba(0, 211, 255, 1)",
          name: "Annotations & Alerts",
          type: "dashboard",
        },
      ],
    },
    links,
    panels,
  };
}
