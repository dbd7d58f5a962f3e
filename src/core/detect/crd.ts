// CustomResourceDefinition → the few facts the exporter needs: names, scope,
// and per version whether status is a subresource and what its schema says
// about status (schema.ts: the evidence detection decides from). CRD
// objects embed large OpenAPI schemas; only this summary is kept.

import { asRecord } from "../json-record.ts";
import { detectVersions, type VersionDetection } from "./schema.ts";

export interface CrdSummary {
  name: string;
  group: string;
  kind: string;
  plural: string;
  namespaced: boolean;
  categories: string[];
  labels: Record<string, string>;
  established: boolean;
  versions: VersionDetection[];
}

function strings(value: unknown): string[] {
  return Array.isArray(value) ? value.filter((v): v is string => typeof v === "string") : [];
}

/** Returns undefined for objects that are not usable CRDs (they are skipped, not fatal). */
export function summarizeCrd(raw: unknown): CrdSummary | undefined {
  const object = asRecord(raw);
  const metadata = asRecord(object?.metadata);
  const spec = asRecord(object?.spec);
  const names = asRecord(spec?.names);
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
  const conditions = asRecord(object?.status)?.conditions;
  const labels: Record<string, string> = {};
  for (const [k, v] of Object.entries(asRecord(metadata.labels) ?? {}))
    if (typeof v === "string") labels[k] = v;
  return {
    name,
    group,
    kind,
    plural,
    namespaced: spec.scope !== "Cluster",
    categories: strings(names.categories),
    labels,
    established:
      Array.isArray(conditions) &&
      conditions.some((c) => asRecord(c)?.type === "Established" && asRecord(c)?.status === "True"),
    versions: detectVersions(object),
  };
}

/** The version to watch: the requested one if served, else the storage version if served, else the first served. */
export function pickVersion(crd: CrdSummary, requested: string | undefined): VersionDetection | undefined {
  const served = crd.versions.filter((v) => v.served);
  if (requested) return served.find((v) => v.version === requested);
  return served.find((v) => v.storage) ?? served[0];
}
