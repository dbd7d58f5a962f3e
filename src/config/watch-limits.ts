// Limits on what one configuration can make the exporter watch. Each
// namespace listed in a resource entry is a list/watch of its own: one
// long-lived HTTPS connection and a goroutine plus an event buffer in the
// apiserver. A valid but extreme file (a generated list of every namespace,
// say) would otherwise start hundreds of thousands of them and take the
// process down, so such a file is rejected with a clear error instead.
// The figures behind the numbers are in docs/sizing.md ("Watches").
import type { Checker } from "./checker.ts";

/**
 * Namespaces per resource entry. Past a few hundred namespaces one
 * cluster-wide watch (no `namespaces`, narrowed by `labelSelector`) costs less
 * on both sides than a watch per namespace.
 */
export const maxNamespacesPerEntry = 500;

/** List/watches one configuration may start: every explicit entry × its namespaces (1 without). */
export const maxWatches = 1000;

const namespaceName = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;

/** A resource entry's `namespaces`: DNS labels, each once, at most maxNamespacesPerEntry. */
export function namespaceList(c: Checker, path: string, value: unknown): string[] | undefined {
  const list = c.stringList(path, value);
  if (list === undefined) return undefined;
  if (list.length > maxNamespacesPerEntry) {
    c.problems.push(
      `${path}: ${list.length} namespaces, more than the ${maxNamespacesPerEntry} allowed per resource entry ` +
        "(each is a list/watch of its own); omit namespaces to watch the whole cluster with one watch",
    );
    return undefined;
  }
  const seen = new Set<string>();
  list.forEach((name, i) => {
    if (!namespaceName.test(name) || name.length > 63) {
      c.fail(`${path}[${i}]`, "a namespace name (lower-case letters, digits and '-', at most 63)", name);
    } else if (seen.has(name)) {
      c.problems.push(`${path}[${i}]: "${name}" is listed twice`);
    }
    seen.add(name);
  });
  return list;
}

/**
 * Namespaces a resource entry may leave out: each is a term of the watch's
 * field selector, which travels in every list and watch URL.
 */
export const maxExcludedNamespaces = 100;

/** A resource entry's `excludeNamespaces`: DNS labels, at most maxExcludedNamespaces. */
export function excludedNamespaces(c: Checker, path: string, value: unknown): string[] | undefined {
  const list = c.stringList(path, value);
  if (list === undefined) return undefined;
  if (list.length > maxExcludedNamespaces) {
    return c.fail(
      path,
      `at most ${maxExcludedNamespaces} namespaces (each is a term of the watch's field selector)`,
      value,
    );
  }
  list.forEach((name, i) => {
    if (!namespaceName.test(name) || name.length > 63)
      c.fail(`${path}[${i}]`, "a namespace name (lower-case letters, digits and '-', at most 63)", name);
  });
  return list;
}

/**
 * The list/watches the entries start at least: one per namespace of each entry
 * (one when it lists none). A discovery entry starts that many per CRD it
 * selects, so this is a floor; the check against the total is made here,
 * where the file can still name the field.
 */
interface WatchedEntry {
  options: { namespaces: readonly string[] };
  /** Per-kind overrides may list namespaces of their own: the largest list counts. */
  overrides?: readonly { options: { namespaces: readonly string[] } }[];
}

export function watchFloor(entries: readonly WatchedEntry[]): number {
  const most = (entry: WatchedEntry): number =>
    Math.max(
      1,
      entry.options.namespaces.length,
      ...(entry.overrides ?? []).map((o) => o.options.namespaces.length),
    );
  return entries.reduce((sum, entry) => sum + most(entry), 0);
}

export function checkWatchTotal(c: Checker, entries: readonly WatchedEntry[]): void {
  const total = watchFloor(entries);
  if (total > maxWatches) {
    c.problems.push(
      `resources: the entries start ${total} list/watches (one per listed namespace of each entry), ` +
        `more than the ${maxWatches} allowed; watch the whole cluster (omit namespaces) for the larger ones`,
    );
  }
}
