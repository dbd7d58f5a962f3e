// Filters, sorts and pages object views. Pure: views and the time in, one page
// out. Pages are cut by a continue token that holds the sort key of the last
// object shown, so objects added or removed between two requests neither
// repeat nor get skipped (the kube list convention). Sort keys use only fields
// that do not move with the clock, which keeps tokens valid over time.
import { labelsMatch } from "../core/selectors.ts";
import { isFlapping, isLagging, isNotReady, needsAttention, notReadySince } from "./derive.ts";
import { namesKind } from "./kind-name.ts";
import { type ObjectFilter, type ObjectQuery, QueryError, type SortOrder } from "./query-params.ts";
import type { ObjectView } from "./view.ts";

export interface QuerySettings {
  /** Condition status changes inside the window that make an object "flapping". */
  flappingMinTransitions: number;
}

export interface QueryPage {
  items: ObjectView[];
  /** Objects matching the filter, over all pages. */
  total: number;
  /** Token for the next page; undefined on the last page. */
  continueToken: string | undefined;
}

type Key = (number | string)[];

// Sorts ascending; "absent" sorts last.
const last = Number.MAX_SAFE_INTEGER;

function nameKey(v: ObjectView): Key {
  return [v.namespace, v.name, v.kind, v.group, v.uid];
}

const sortKeys: Record<SortOrder, (v: ObjectView, settings: QuerySettings) => Key> = {
  // Not Ready first, the longest not Ready first among them.
  notReady: (v) => [isNotReady(v) ? 0 : 1, notReadySince(v) ?? last, v.kind, ...nameKey(v)],
  name: (v) => nameKey(v),
  kind: (v) => [v.kind, v.group, ...nameKey(v)],
  // Lagging first, the longest waiting first.
  lag: (v) => [isLagging(v) ? (v.generationRequestedAt ?? 0) : last, ...nameKey(v)],
  flapping: (v) => [-v.transitionsInWindow, ...nameKey(v)],
  age: (v) => [v.createdAt ?? last, ...nameKey(v)],
};

export function compareKeys(a: Key, b: Key): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const x = a[i] as number | string;
    const y = b[i] as number | string;
    if (x === y) continue;
    if (typeof x === typeof y) return x < y ? -1 : 1;
    return typeof x === "number" ? -1 : 1;
  }
  return a.length - b.length;
}

export function matches(view: ObjectView, filter: ObjectFilter, settings: QuerySettings): boolean {
  if (filter.kinds.length > 0 && !filter.kinds.some((k) => namesKind(view, k))) return false;
  if (filter.groups.length > 0 && !filter.groups.includes(view.group)) return false;
  if (filter.namespaces.length > 0 && !filter.namespaces.includes(view.namespace)) return false;
  if (filter.results.length > 0 && !filter.results.includes(view.result)) return false;
  if (filter.notReady !== undefined && isNotReady(view) !== filter.notReady) return false;
  if (
    filter.attention !== undefined &&
    needsAttention(view, settings.flappingMinTransitions) !== filter.attention
  )
    return false;
  if (filter.lagging !== undefined && isLagging(view) !== filter.lagging) return false;
  if (filter.terminating !== undefined && (view.terminatingSince !== undefined) !== filter.terminating)
    return false;
  if (filter.flapping !== undefined && isFlapping(view, settings.flappingMinTransitions) !== filter.flapping)
    return false;
  if (filter.name !== undefined && !view.name.toLowerCase().includes(filter.name.toLowerCase())) return false;
  if (
    filter.conditions.length > 0 &&
    !filter.conditions.some((f) =>
      view.conditions.some((c) => c.type === f.type && (f.status === undefined || c.status === f.status)),
    )
  )
    return false;
  // A reason matches on any condition: the Ready reason is usually the one asked for, but not always.
  if (filter.reasons.length > 0 && !view.conditions.some((c) => filter.reasons.includes(c.reason)))
    return false;
  if (filter.labelSelector !== undefined && !labelsMatch(filter.labelSelector, view.labels)) return false;
  return true;
}

function encodeToken(sort: SortOrder, key: Key): string {
  return Buffer.from(JSON.stringify({ s: sort, k: key })).toString("base64url");
}

function decodeToken(token: string, sort: SortOrder): Key {
  let decoded: unknown;
  try {
    decoded = JSON.parse(Buffer.from(token, "base64url").toString("utf8"));
  } catch {
    decoded = undefined;
  }
  const { s, k } = (decoded ?? {}) as { s?: unknown; k?: unknown };
  const valid =
    Array.isArray(k) && k.every((part) => typeof part === "string" || typeof part === "number") && s === sort;
  if (!valid) {
    throw new QueryError(
      "continue",
      token,
      `a token from a previous page of the same query (sort=${sort}); start again without it`,
    );
  }
  return k as Key;
}

/** First index in sorted `keys` whose key is after `after`. */
function firstAfter(keyed: readonly { key: Key }[], after: Key): number {
  let low = 0;
  let high = keyed.length;
  while (low < high) {
    const mid = (low + high) >>> 1;
    if (compareKeys((keyed[mid] as { key: Key }).key, after) <= 0) low = mid + 1;
    else high = mid;
  }
  return low;
}

/** Takes views one at a time (add) and answers one page of the query (page). */
export interface PageCollector {
  add(view: ObjectView): void;
  page(): QueryPage;
}

/**
 * One page of a query without sorting every match: only the `limit + 1`
 * smallest keys after the continue token are kept (in order, by binary
 * insertion), so a page of 100 out of 50,000 objects costs 50,000 key
 * comparisons against a short list instead of a sort of them all, and the
 * views can be fed in slices between turns of the event loop (eachInSlices).
 * Throws QueryError for a continue token that does not decode.
 */
export function pageCollector(query: ObjectQuery, settings: QuerySettings): PageCollector {
  const keyOf = sortKeys[query.sort];
  const after = query.continueToken ? decodeToken(query.continueToken, query.sort) : undefined;
  const kept: { key: Key; view: ObjectView }[] = [];
  let total = 0;
  return {
    add(view) {
      if (!matches(view, query.filter, settings)) return;
      total++;
      const key = keyOf(view, settings);
      if (after && compareKeys(key, after) <= 0) return;
      if (kept.length > query.limit && compareKeys(key, (kept[kept.length - 1] as { key: Key }).key) >= 0)
        return;
      kept.splice(firstAfter(kept, key), 0, { key, view });
      if (kept.length > query.limit + 1) kept.pop();
    },
    page() {
      const page = kept.slice(0, query.limit);
      const lastShown = page[page.length - 1];
      return {
        items: page.map((k) => k.view),
        total,
        continueToken:
          kept.length > query.limit && lastShown ? encodeToken(query.sort, lastShown.key) : undefined,
      };
    },
  };
}

export function runQuery(
  views: Iterable<ObjectView>,
  query: ObjectQuery,
  settings: QuerySettings,
): QueryPage {
  const collector = pageCollector(query, settings);
  for (const view of views) collector.add(view);
  return collector.page();
}
