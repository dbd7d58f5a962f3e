// URL query parameters → a validated object query. Shared by the JSON API, the
// status page and the CLI (which sends the same parameters to --server). A bad
// parameter is an error naming the parameter, the value and what was
// expected; an unknown parameter is an error too (a typo must not silently
// show everything). Empty values mean "no filter", as HTML forms send them.

import { parseLabelSelector } from "../core/selectors.ts";
import type { ConditionStatus } from "../core/state.ts";
import { type StatusResult, statusResults } from "../core/state.ts";

export const sortOrders = ["notReady", "name", "kind", "lag", "flapping", "age"] as const;
export type SortOrder = (typeof sortOrders)[number];

export interface ConditionFilter {
  type: string;
  /** undefined: the condition is present with any status. */
  status: ConditionStatus | undefined;
}

/** Every field narrows; values inside one list are alternatives. */
export interface ObjectFilter {
  kinds: string[];
  groups: string[];
  namespaces: string[];
  results: StatusResult[];
  conditions: ConditionFilter[];
  reasons: string[];
  notReady: boolean | undefined;
  /** Not Ready, or flapping (the status page's default view). */
  attention: boolean | undefined;
  lagging: boolean | undefined;
  terminating: boolean | undefined;
  flapping: boolean | undefined;
  /** Case-insensitive substring of the name. */
  name: string | undefined;
  /** Equality-based selector over the object's allow-listed labels. */
  labelSelector: string | undefined;
}

export interface ObjectQuery {
  filter: ObjectFilter;
  sort: SortOrder;
  limit: number;
  /** The opaque token from a previous page. */
  continueToken: string | undefined;
}

export interface QueryLimits {
  defaultPageSize: number;
  maxPageSize: number;
}

export const defaultQueryLimits: QueryLimits = { defaultPageSize: 100, maxPageSize: 500 };

export class QueryError extends Error {
  readonly parameter: string;
  readonly value: string;
  readonly expected: string;
  constructor(parameter: string, value: string, expected: string) {
    super(`query parameter ${parameter}=${JSON.stringify(value)}: expected ${expected}`);
    this.parameter = parameter;
    this.value = value;
    this.expected = expected;
  }
}

const filterParameters = [
  "kind",
  "group",
  "namespace",
  "result",
  "condition",
  "reason",
  "notReady",
  "attention",
  "lagging",
  "terminating",
  "flapping",
  "name",
  "labelSelector",
] as const;
const pagingParameters = ["sort", "limit", "continue"] as const;

export function emptyFilter(): ObjectFilter {
  return {
    kinds: [],
    groups: [],
    namespaces: [],
    results: [],
    conditions: [],
    reasons: [],
    notReady: undefined,
    attention: undefined,
    lagging: undefined,
    terminating: undefined,
    flapping: undefined,
    name: undefined,
    labelSelector: undefined,
  };
}

/** Non-empty values of a parameter, repeated or comma-separated. */
function list(params: URLSearchParams, name: string): string[] {
  return params
    .getAll(name)
    .flatMap((v) => v.split(","))
    .map((v) => v.trim())
    .filter((v) => v !== "");
}

/** The last non-empty value of a single-valued parameter. */
function single(params: URLSearchParams, name: string): string | undefined {
  const values = params.getAll(name).filter((v) => v.trim() !== "");
  return values.length > 0 ? (values[values.length - 1] as string).trim() : undefined;
}

function flag(params: URLSearchParams, name: string): boolean | undefined {
  const value = single(params, name);
  if (value === undefined) return undefined;
  if (value === "true") return true;
  if (value === "false") return false;
  throw new QueryError(name, value, "true or false");
}

const conditionStatuses: Record<string, ConditionStatus> = {
  true: "True",
  false: "False",
  unknown: "Unknown",
};

function conditionFilter(value: string): ConditionFilter {
  const match = /^([A-Za-z0-9_.-]+)(?:=([A-Za-z]+))?$/.exec(value);
  const status = match?.[2] === undefined ? undefined : conditionStatuses[match[2].toLowerCase()];
  if (!match || (match[2] !== undefined && status === undefined)) {
    throw new QueryError("condition", value, "a condition type, optionally with =True, =False or =Unknown");
  }
  return { type: match[1] as string, status };
}

function resultValue(value: string): StatusResult {
  const found = statusResults.find((r) => r.toLowerCase() === value.toLowerCase());
  if (!found) throw new QueryError("result", value, `one of ${statusResults.join(", ")}`);
  return found;
}

function filterFrom(params: URLSearchParams): ObjectFilter {
  const labelSelector = single(params, "labelSelector");
  if (labelSelector !== undefined) {
    try {
      parseLabelSelector(labelSelector);
    } catch (error) {
      throw new QueryError("labelSelector", labelSelector, (error as Error).message);
    }
  }
  return {
    kinds: list(params, "kind"),
    groups: list(params, "group"),
    namespaces: list(params, "namespace"),
    results: list(params, "result").map(resultValue),
    conditions: list(params, "condition").map(conditionFilter),
    reasons: list(params, "reason"),
    notReady: flag(params, "notReady"),
    attention: flag(params, "attention"),
    lagging: flag(params, "lagging"),
    terminating: flag(params, "terminating"),
    flapping: flag(params, "flapping"),
    name: single(params, "name"),
    labelSelector,
  };
}

function rejectUnknown(params: URLSearchParams, allowed: readonly string[]): void {
  for (const [name, value] of params) {
    if (!allowed.includes(name))
      throw new QueryError(name, value, `a known parameter (${allowed.join(", ")})`);
  }
}

/** Parameters of /api/v1/summary: the filters only. */
export function parseFilter(params: URLSearchParams): ObjectFilter {
  rejectUnknown(params, filterParameters);
  return filterFrom(params);
}

/** Parameters of /api/v1/objects and of the page. Throws QueryError. */
export function parseObjectQuery(
  params: URLSearchParams,
  limits: QueryLimits = defaultQueryLimits,
  defaults: Partial<ObjectFilter> = {},
): ObjectQuery {
  rejectUnknown(params, [...filterParameters, ...pagingParameters]);
  const filter = filterFrom(params);
  if (filter.notReady === undefined && defaults.notReady !== undefined) filter.notReady = defaults.notReady;
  if (filter.attention === undefined && defaults.attention !== undefined)
    filter.attention = defaults.attention;
  const sortValue = single(params, "sort");
  if (sortValue !== undefined && !sortOrders.includes(sortValue as SortOrder)) {
    throw new QueryError("sort", sortValue, `one of ${sortOrders.join(", ")}`);
  }
  const limitValue = single(params, "limit");
  let limit = limits.defaultPageSize;
  if (limitValue !== undefined) {
    limit = /^\d{1,9}$/.test(limitValue) ? Number(limitValue) : Number.NaN;
    if (!(limit >= 1 && limit <= limits.maxPageSize)) {
      throw new QueryError("limit", limitValue, `an integer from 1 to ${limits.maxPageSize}`);
    }
  }
  return {
    filter,
    sort: (sortValue as SortOrder | undefined) ?? "notReady",
    limit,
    continueToken: single(params, "continue"),
  };
}

/** The inverse of parseObjectQuery's filters: URL parameters, for links that keep the filters. */
export function filterToParams(filter: ObjectFilter): URLSearchParams {
  const params = new URLSearchParams();
  const add = (name: string, values: readonly string[]): void => {
    if (values.length > 0) params.set(name, values.join(","));
  };
  add("kind", filter.kinds);
  add("group", filter.groups);
  add("namespace", filter.namespaces);
  add("result", filter.results);
  add(
    "condition",
    filter.conditions.map((c) => (c.status ? `${c.type}=${c.status}` : c.type)),
  );
  add("reason", filter.reasons);
  for (const name of ["notReady", "attention", "lagging", "terminating", "flapping"] as const) {
    const value = filter[name];
    if (value !== undefined) params.set(name, String(value));
  }
  if (filter.name !== undefined) params.set("name", filter.name);
  if (filter.labelSelector !== undefined) params.set("labelSelector", filter.labelSelector);
  return params;
}
