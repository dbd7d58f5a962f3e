// Validation of the `resources` entries: selectors (explicit or discovery)
// and the per-resource options.
import type { Checker, Raw } from "./checker.ts";
import {
  type OptionValues,
  type ReadContext,
  readTable,
  tableKeys,
  tableSchema,
  text,
  texts,
  toggle,
} from "./option.ts";
import { dns1123 } from "./resource-fields.ts";
import { type ResourceOptions, resourceOptionTable } from "./resource-options.ts";
import { readinessConflicts } from "./validate-cel.ts";
import { type KindOverride, kindOverrides, overrideSchema } from "./validate-overrides.ts";

/** How an entry selects resource types: explicitly (group + resource or kind) or by discovery. */
export const selectorTable = {
  group: text("group", "Explicit: the API group (exact).", {
    pattern: dns1123,
    what: "an API group such as example.com",
  }),
  version: text("version", "Explicit: the version. Unset: the CRD's storage version.", {
    pattern: /^v[0-9]+((alpha|beta)[0-9]+)?$/,
    what: "a version such as v1",
  }),
  resource: text("resource", "Explicit: the plural resource name.", {
    pattern: /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/,
    what: "a plural resource name",
  }),
  kind: text("kind", "Explicit: the kind (instead of, or with, resource).", {
    pattern: /^[A-Z][A-Za-z0-9]*$/,
    what: "a Kind such as Widget",
  }),
  namespaced: toggle(
    "namespaced",
    "Explicit: whether the resource is namespaced (needed with crdDiscovery: false).",
    undefined,
  ),
  groups: texts("groups", "Discovery: API group globs (*.example.com, *)."),
  categories: texts("categories", "Discovery: CRD spec.names.categories (any of)."),
  crdSelector: text("crdSelector", "Discovery: a label selector on the CRD objects."),
};

/** Selects resource types (explicitly, or by discovering CRDs), with their options. */
export type ResourceSelector = OptionValues<typeof selectorTable> & {
  options: ResourceOptions;
  /** Discovery: per-kind options (first match wins). */
  overrides: KindOverride[];
};

const optionKeys = tableKeys(resourceOptionTable);

/** What a file may hold in one `resources` entry. */
export const selectorSchema = tableSchema(
  { ...selectorTable, ...resourceOptionTable },
  { kinds: (Type) => Type.Array(overrideSchema(resourceOptionTable)(Type)) },
);

function resourceOptions(c: Checker, path: string, raw: Raw, context: ReadContext): ResourceOptions {
  if (raw.conditionReasons !== undefined) {
    c.problems.push(
      `${path}.conditionReasons: no longer an option: cr_condition_reason is in the default set; ` +
        "turn it off with metrics: { deny: [cr_condition_reason] }",
    );
  }
  readinessConflicts(c, path, raw);
  return readTable(c, path, raw, resourceOptionTable, context);
}

/** One `resources` entry: its selector, its options and its per-kind overrides. */
export function selector(
  c: Checker,
  path: string,
  value: unknown,
  context: ReadContext,
): ResourceSelector | undefined {
  // conditionReasons is accepted as a key only to explain where it went.
  const raw = c.object(path, value, [
    ...tableKeys(selectorTable),
    ...optionKeys,
    "conditionReasons",
    "kinds",
  ]);
  if (!raw) return undefined;
  const s: ResourceSelector = {
    ...readTable(c, path, raw, selectorTable, context),
    options: resourceOptions(c, path, raw, context),
    overrides: [],
  };
  if (raw.kinds !== undefined) {
    const entryOptions = Object.fromEntries(Object.entries(raw).filter(([k]) => optionKeys.includes(k)));
    s.overrides = kindOverrides(
      c,
      `${path}.kinds`,
      raw.kinds,
      entryOptions,
      optionKeys,
      (checker, at, options) => resourceOptions(checker, at, options, context),
    );
  }
  const problem = selectionProblem(s, raw.kinds !== undefined, context.crdDiscovery);
  if (problem) c.problems.push(`${path}${problem}`);
  return s;
}

/** What is wrong with how an entry selects (after its path), or undefined. */
function selectionProblem(s: ResourceSelector, hasKinds: boolean, crdDiscovery: boolean): string | undefined {
  const explicit = s.group !== undefined || s.resource !== undefined || s.kind !== undefined;
  const discovery = s.groups.length > 0 || s.categories.length > 0 || s.crdSelector !== undefined;
  if (explicit && discovery)
    return ": give either group with resource/kind (explicit) or groups/categories/crdSelector (discovery), not both";
  if (!explicit && !discovery)
    return ": expected group with resource or kind, or one of groups, categories, crdSelector";
  if (explicit && (s.group === undefined || (s.resource === undefined && s.kind === undefined)))
    return ": an explicit resource needs group and resource (or kind)";
  if (explicit && !crdDiscovery && (!s.version || !s.resource || !s.kind || s.namespaced === undefined))
    return ": with crdDiscovery: false, give group, version, resource, kind and namespaced";
  if (explicit && hasKinds)
    return ".kinds: per-kind options belong to discovery entries; an explicit entry's own options are its kind's";
  if (discovery && !crdDiscovery)
    return ": discovery (groups/categories/crdSelector) needs crdDiscovery: true";
  return undefined;
}
