// CustomResourceDefinition → the few facts the exporter needs: names, scope,
// versions, whether status is a subresource, and what the schema says about
// conditions, observedGeneration and phase. CRD objects embed large OpenAPI
// schemas; only this summary is kept.

export interface VersionSummary {
  name: string;
  served: boolean;
  storage: boolean;
  statusSubresource: boolean;
  /** The schema declares status.conditions as a list. */
  conditions: boolean;
  observedGeneration: boolean;
  phase: boolean;
  /** The enum of status.phase, when declared. */
  phaseEnum: string[];
  /** status is schemaless (or preserves unknown fields): anything may be there. */
  openStatus: boolean;
}

export interface CrdSummary {
  name: string;
  group: string;
  kind: string;
  plural: string;
  namespaced: boolean;
  categories: string[];
  labels: Record<string, string>;
  established: boolean;
  versions: VersionSummary[];
}

type Json = Record<string, unknown>;

function rec(value: unknown): Json | undefined {
  return typeof value === "object" && value !== null && !Array.isArray(value) ? (value as Json) : undefined;
}

function strings(value: unknown): string[] {
  return Array.isArray(value) ? value.filter((v): v is string => typeof v === "string") : [];
}

function summarizeVersion(raw: Json): VersionSummary | undefined {
  const name = raw.name;
  if (typeof name !== "string") return undefined;
  const status = rec(rec(rec(rec(raw.schema)?.openAPIV3Schema)?.properties)?.status);
  const props = rec(status?.properties);
  const conditions = rec(props?.conditions);
  const phase = rec(props?.phase);
  return {
    name,
    served: raw.served === true,
    storage: raw.storage === true,
    statusSubresource: rec(rec(raw.subresources)?.status) !== undefined,
    conditions: conditions?.type === "array",
    observedGeneration: rec(props?.observedGeneration) !== undefined,
    phase: phase?.type === "string",
    phaseEnum: strings(phase?.enum),
    openStatus: status === undefined || status["x-kubernetes-preserve-unknown-fields"] === true,
  };
}

/** Returns undefined for objects that are not usable CRDs (they are skipped, not fatal). */
export function summarizeCrd(raw: unknown): CrdSummary | undefined {
  const object = rec(raw);
  const metadata = rec(object?.metadata);
  const spec = rec(object?.spec);
  const names = rec(spec?.names);
  if (!metadata || !spec || !names) return undefined;
  const name = metadata.name;
  const group = spec.group;
  const kind = names.kind;
  const plural = names.plural;
  if (
    typeof name !== "string" ||
    typeof group !== "string" ||
    typeof kind !== "string" ||
    typeof plural !== "string"
  ) {
    return undefined;
  }
  const conditions = Array.isArray(rec(object?.status)?.conditions)
    ? (rec(object?.status)?.conditions as unknown[])
    : [];
  const labels: Record<string, string> = {};
  for (const [k, v] of Object.entries(rec(metadata.labels) ?? {})) if (typeof v === "string") labels[k] = v;
  return {
    name,
    group,
    kind,
    plural,
    namespaced: spec.scope !== "Cluster",
    categories: strings(names.categories),
    labels,
    established: conditions.some((c) => rec(c)?.type === "Established" && rec(c)?.status === "True"),
    versions: (Array.isArray(spec.versions) ? spec.versions : [])
      .map((v) => (rec(v) ? summarizeVersion(rec(v) as Json) : undefined))
      .filter((v): v is VersionSummary => v !== undefined),
  };
}

/** The version to watch: the requested one if served, else the storage version if served, else the first served. */
export function pickVersion(crd: CrdSummary, requested: string | undefined): VersionSummary | undefined {
  const served = crd.versions.filter((v) => v.served);
  if (requested) return served.find((v) => v.name === requested);
  return served.find((v) => v.storage) ?? served[0];
}
