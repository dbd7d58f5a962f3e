// How a family of /metrics becomes an OTLP metric (docs/otlp-metrics.md, kept
// equal by test/unit/otlp-metrics/mapping.test.ts): its type and temporality,
// its unit, and its labels as attributes (semantic-convention names where one
// exists). Pure: the reader (points.ts) and the docs both ask here.
import {
  aggregateFamilies,
  exporterFamilies,
  type FamilyType,
  objectFamilies,
  perKindFamilies,
} from "../core/series/catalog.ts";

/** Labels renamed to their OpenTelemetry semantic-convention attribute; the others keep their name. */
export const attributeRenames: Readonly<Record<string, string>> = {
  namespace: "k8s.namespace.name",
  // An extra label named `cluster` (resources[].labels) says which cluster the object is in.
  cluster: "k8s.cluster.name",
};

export function attributeName(label: string): string {
  return attributeRenames[label] ?? label;
}

/**
 * The UCUM unit of a family, from its name as the catalog gives it
 * (Prometheus names carry their base unit: `_seconds`, `_bytes`); "" when it
 * has none (counts, 0/1 states, generations). Never "1": Prometheus'
 * OTLP translation would append `_ratio` to such gauges.
 */
export function unitOf(name: string): string {
  if (/_seconds(_total)?$/.test(name)) return "s";
  if (/_bytes(_total)?$/.test(name)) return "By";
  return "";
}

export type OtlpKind = "Gauge" | "Sum" | "Histogram";

export function otlpKindOf(type: FamilyType): OtlpKind {
  return type === "gauge" ? "Gauge" : type === "counter" ? "Sum" : "Histogram";
}

/** What the docs table says of one family. */
export interface MappingRow {
  name: string;
  prometheusType: FamilyType;
  otlp: string;
  unit: string;
  /** Attribute names, object labels included for per-object families. */
  attributes: readonly string[];
}

/** The OTLP form of a kind, as the docs table writes it. */
export function otlpDescription(type: FamilyType): string {
  switch (type) {
    case "gauge":
      return "Gauge";
    case "counter":
      return "Sum, cumulative, monotonic";
    case "histogram":
      return "Histogram, cumulative";
  }
}

const objectAttributes = ["group", "kind", attributeName("namespace"), "name", "(extra labels)"];

/** Every family of the catalog with its OTLP form, in the catalog's order. */
export function mappingRows(prefix = "cr_"): MappingRow[] {
  const row = (suffix: string, type: FamilyType, attributes: readonly string[]): MappingRow => ({
    name: prefix + suffix,
    prometheusType: type,
    otlp: otlpDescription(type),
    unit: unitOf(prefix + suffix),
    attributes: attributes.map(attributeName),
  });
  return [
    ...objectFamilies.map((f) => row(f.suffix, f.type, [...objectAttributes, ...f.labels])),
    ...aggregateFamilies.map((f) => row(f.suffix, f.type, f.labels)),
    ...perKindFamilies.map((f) => row(f.suffix, f.type, f.labels)),
    ...Object.values(exporterFamilies).map((f) => row(f.suffix, f.type, f.labels)),
  ];
}

/** The docs table (docs/otlp-metrics.md), one row per family. */
export function mappingTable(prefix = "cr_"): string {
  const lines = [
    "| Family | Prometheus type | OTLP metric | Unit | Attributes |",
    "| --- | --- | --- | --- | --- |",
  ];
  for (const r of mappingRows(prefix)) {
    const attributes = r.attributes.map((a) => (a.startsWith("(") ? a : `\`${a}\``)).join(", ");
    lines.push(
      `| \`${r.name}\` | ${r.prometheusType} | ${r.otlp} | ${r.unit ? `\`${r.unit}\`` : ""} | ${attributes} |`,
    );
  }
  return lines.join("\n");
}
