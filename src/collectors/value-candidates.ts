// The value candidates of a kind: the numeric and date-time status fields
// its CRD schema declares that `values` does not name. With
// `valueCandidates: propose` (the default) they are only proposed (explain,
// cr_exporter_value_candidate_info); with `export` each becomes a cr_value
// series per object, as if listed under `values`. Pure.
import { maxValues, type ValueOption } from "../config/validate-values.ts";
import type { ValueField } from "../core/detect/schema.ts";

export interface ValueCandidate {
  /** Dotted path under the object, e.g. status.readyReplicas. */
  path: string;
  type: "number" | "timestamp";
}

/** A candidate exported as cr_value{field=name}. */
export interface ExportedCandidate extends ValueCandidate {
  /** The `field` label: the path's last segment, or the whole path where that name is taken. */
  name: string;
  /** The path's segments as the schema names them (a name holding a dot stays one segment). */
  segments: readonly string[];
}

export interface ValueCandidates {
  /** Read like configured values: after them, in schema order. */
  exported: ExportedCandidate[];
  /** What `values` could still add: cr_exporter_value_candidate_info and explain. */
  proposed: ValueCandidate[];
}

export type CandidateMode = "propose" | "export";

/**
 * The schema's value fields (in schema order) split into exported and
 * proposed. A field a configured value reads is neither. Exported: as many as
 * fit beside the configured values within maxValues (the bound of cr_value
 * series per object stays the configuration's), the rest proposed. Names:
 * see candidateNames.
 */
export function valueCandidates(
  fields: readonly ValueField[],
  values: readonly ValueOption[],
  mode: CandidateMode,
): ValueCandidates {
  const configured = new Set(values.flatMap((v) => (v.path === undefined ? [] : [v.path])));
  const open = fields
    .map((f) => ({ path: f.path.join("."), type: f.type, segments: f.path }))
    .filter((f) => !configured.has(f.path));
  const room = mode === "export" ? Math.max(0, maxValues - values.length) : 0;
  const names = candidateNames(
    open.slice(0, room).map((c) => c.segments),
    values.map((v) => v.name),
  );
  const out: ValueCandidates = { exported: [], proposed: [] };
  const used = new Set(values.map((v) => v.name));
  open.forEach(({ path, type, segments }, i) => {
    const name = names[i];
    // A name still taken (a schema property holding a dot spells another's path) stays a proposal.
    if (name === undefined || used.has(name)) out.proposed.push({ path, type });
    else {
      used.add(name);
      out.exported.push({ path, type, name, segments });
    }
  });
  return out;
}

/**
 * The `field` label of each candidate to export: its last segment, as for a
 * `values` entry without a name; where that name is a configured value's or
 * another candidate's, the whole dotted path instead (status.a.ready and
 * status.b.ready). Configured names hold no dot, so a whole path is never one.
 */
export function candidateNames(
  paths: readonly (readonly string[])[],
  configured: readonly string[],
): string[] {
  const last = paths.map((p) => p.at(-1) ?? "");
  const taken = new Set(configured);
  return paths.map((p, i) => {
    const name = last[i] as string;
    const shared = taken.has(name) || last.some((other, j) => j !== i && other === name);
    return shared ? p.join(".") : name;
  });
}
