// Per-kind overrides inside a discovery entry (`kinds:`): options for the
// kinds it selects that differ from the entry's own — a phase table for one
// kind, another ready condition for another — without pulling each kind out
// into an explicit entry placed first. Each override names the kind (and
// optionally the group), or the plural resource; what it gives replaces the
// entry's value for that kind, the rest is the entry's.
import { Checker, type Raw } from "./checker.ts";
import { type OptionTable, type Schema, tableSchema } from "./option.ts";
import type { ResourceOptions } from "./resource-options.ts";
import { mergeReadiness } from "./validate-cel.ts";

export const overrideSelectorKeys = ["kind", "group", "resource"] as const;

/** Options for some kinds of a discovery entry (`kinds:`), merged over the entry's. */
export interface KindOverride {
  kind: string | undefined;
  resource: string | undefined;
  /** undefined: any group the entry selects. */
  group: string | undefined;
  /** The entry's options with the override's on top. */
  options: ResourceOptions;
}

/** What a file may hold in one `kinds` item: which kinds, and any of the options. */
export function overrideSchema(options: OptionTable): Schema {
  const name: Schema = (Type) => Type.String({ minLength: 1 });
  return tableSchema(options, { kind: name, group: name, resource: name });
}

/**
 * `kinds: [{ kind|resource, group?, …options }]`. `entry`: the entry's raw
 * options; `options`: validates options at a path (the entry's own checks).
 */
export function kindOverrides(
  c: Checker,
  path: string,
  value: unknown,
  entry: Raw,
  optionKeys: readonly string[],
  options: (c: Checker, path: string, raw: Raw) => ResourceOptions,
): KindOverride[] {
  if (value === undefined) return [];
  if (!Array.isArray(value))
    return c.fail(path, "a list of {kind or resource, group?, options}", value) ?? [];
  const out: KindOverride[] = [];
  const seen = new Set<string>();
  value.forEach((item, i) => {
    const p = `${path}[${i}]`;
    const raw = c.object(p, item, [...overrideSelectorKeys, ...optionKeys]);
    if (!raw) return;
    const kind = c.string(`${p}.kind`, raw.kind, /^[A-Z][A-Za-z0-9]*$/, "a Kind such as HelmRelease");
    const resource = c.string(
      `${p}.resource`,
      raw.resource,
      /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/,
      "a plural resource name",
    );
    const group = c.string(`${p}.group`, raw.group, /^[a-z0-9]([-a-z0-9.]*[a-z0-9])?$/, "an API group");
    if (raw.kind === undefined && raw.resource === undefined) {
      c.problems.push(`${p}: expected kind or resource (which kinds of the entry it applies to)`);
      return;
    }
    const key = `${group ?? "*"}/${kind ?? ""}/${resource ?? ""}`;
    if (seen.has(key)) c.problems.push(`${p}: the same kind is overridden twice`);
    seen.add(key);
    const given = Object.fromEntries(Object.entries(raw).filter(([k]) => optionKeys.includes(k)));
    if (Object.keys(given).length === 0)
      c.problems.push(`${p}: overrides nothing (give one of ${optionKeys.join(", ")})`);
    // The override's own values are checked at its path; the merged options
    // are built apart, so a problem of the entry is not reported twice.
    options(c, p, given);
    const merged = options(new Checker(), p, mergeReadiness(entry, given));
    out.push({ kind, resource, group, options: merged });
  });
  return out;
}
