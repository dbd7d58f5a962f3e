// The status-update request families (docs/metrics.md, "Status-update
// requests"), shared by the API proxy and the audit receiver. Their labels
// are bounded twice: group/kind/namespace come only from what the apiserver
// confirmed (confirmed-labels.ts), and all four families share one series
// budget; past it, a new combination is counted with its group, kind,
// namespace and user folded into "other". Every fold is counted.
import type { Registry } from "@prometheus-io/client";
import { defaultMetricPrefix, statusWriteDurationBuckets } from "../core/series/catalog.ts";
import { ExporterFamilies } from "../metrics/families.ts";
import type { FailureReason } from "./classify.ts";
import { type FoldedLabel, otherLabel } from "./confirmed-labels.ts";

export type StatusWriteSource = "proxy" | "audit";

/** One observed write to a /status subresource. */
export interface StatusWriteObservation {
  source: StatusWriteSource;
  group: string;
  kind: string;
  /** "" for cluster-scoped objects. */
  namespace: string;
  verb: string;
  /** HTTP response code; 0 when no response came back. */
  code: number;
  /** Set when the write failed. */
  failure: FailureReason | undefined;
  /** Undefined when the duration is not known. */
  durationSeconds: number | undefined;
  /** The writer's user name, when the source knows it (audit). */
  user?: string | undefined;
  /** Labels already folded into "other" because the apiserver did not confirm them. */
  folded?: readonly FoldedLabel[] | undefined;
}

export interface StatusWriteMetrics {
  record(observation: StatusWriteObservation): void;
}

export interface StatusWriteMetricsOptions {
  /**
   * Distinct user names kept as label values of the by-user family; writes by
   * later users are counted as user="other". Writers of status are
   * controllers, so a cluster normally has a few dozen.
   */
  maxUsers?: number;
  /**
   * Series the four families may hold together (a histogram label set counts
   * as its 15 series). 10,000 is about what 200 objects cost in per-object
   * families; a cluster's real writers (kinds × namespaces × codes) stay far
   * below it.
   */
  maxSeries?: number;
}

/** Series of one histogram label set: the buckets, +Inf, _sum and _count. */
const histogramSeries = statusWriteDurationBuckets.length + 3;

export const otherUser = otherLabel;

/** HTTP codes as labels: 0 (no response) or 100–599; anything else would be a defect, kept bounded anyway. */
function codeLabel(code: number): string {
  return code === 0 || (Number.isInteger(code) && code >= 100 && code <= 599) ? String(code) : otherLabel;
}

/** Label sets admitted so far, and what they cost. */
class SeriesBudget {
  readonly #max: number;
  readonly #admitted = new Set<string>();
  #used = 0;

  constructor(max: number) {
    this.#max = max;
  }

  /**
   * The labels to record under: `labels` when the set is known or fits,
   * else `labels` with `foldable` set to "other" (noted in `folded`). The
   * folded sets are admitted whatever the budget: their remaining labels
   * (verb, code, reason, source) are bounded by construction.
   */
  admit<L extends Record<string, string>>(
    family: string,
    labels: L,
    cost: number,
    foldable: readonly (keyof L & FoldedLabel)[],
    folded: Set<FoldedLabel>,
  ): L {
    const key = `${family}\u0000${Object.values(labels).join("\u0000")}`;
    if (this.#admitted.has(key)) return labels;
    if (this.#used + cost <= this.#max) {
      this.#admitted.add(key);
      this.#used += cost;
      return labels;
    }
    const narrowed: Record<string, string> = { ...labels };
    for (const name of foldable) {
      if (narrowed[name] !== otherLabel) folded.add(name);
      narrowed[name] = otherLabel;
    }
    const narrowedKey = `${family}\u0000${Object.values(narrowed).join("\u0000")}`;
    if (!this.#admitted.has(narrowedKey)) {
      this.#admitted.add(narrowedKey);
      this.#used += cost;
    }
    return narrowed as L;
  }
}

/** The user label of a writer: itself for the first `maxUsers` writers, then "other" (and "user" noted as folded). */
function userLabeler(maxUsers: number): (user: string, folded: Set<FoldedLabel>) => string {
  const users = new Set<string>();
  return (user, folded) => {
    if (users.has(user)) return user;
    if (users.size >= maxUsers) {
      folded.add("user");
      return otherUser;
    }
    users.add(user);
    return user;
  };
}

export function createStatusWriteMetrics(
  registry: Registry,
  prefix = defaultMetricPrefix,
  options: StatusWriteMetricsOptions = {},
): StatusWriteMetrics {
  const f = new ExporterFamilies(registry, prefix);
  const requests = f.counter("statusUpdateRequests");
  const failures = f.counter("statusUpdateFailures");
  const duration = f.histogram("statusUpdateRequestDuration");
  const byUser = f.counter("statusUpdateRequestsByUser");
  const foldedCount = f.counter("statusUpdateLabelsFolded");
  const maxUsers = options.maxUsers ?? 100;
  const budget = new SeriesBudget(options.maxSeries ?? 10_000);
  const userLabel = userLabeler(maxUsers);

  return {
    record(o) {
      const code = codeLabel(o.code);
      const overBudget = new Set<FoldedLabel>();
      const place = { group: o.group, kind: o.kind, namespace: o.namespace };
      requests.inc(
        budget.admit(
          "requests",
          { ...place, verb: o.verb, code, source: o.source },
          1,
          ["group", "kind", "namespace"],
          overBudget,
        ),
      );
      if (o.failure) {
        failures.inc(
          budget.admit(
            "failures",
            { ...place, reason: o.failure, source: o.source },
            1,
            ["group", "kind", "namespace"],
            overBudget,
          ),
        );
      }
      if (o.durationSeconds !== undefined && o.durationSeconds >= 0) {
        duration.observe(
          budget.admit(
            "duration",
            { group: o.group, kind: o.kind, verb: o.verb, source: o.source },
            histogramSeries,
            ["group", "kind"],
            overBudget,
          ),
          o.durationSeconds,
        );
      }
      if (o.user !== undefined) {
        const user = userLabel(o.user, overBudget);
        byUser.inc(
          budget.admit(
            "byUser",
            { user, group: o.group, kind: o.kind, code },
            1,
            ["user", "group", "kind"],
            overBudget,
          ),
        );
      }
      const unconfirmed = new Set(o.folded ?? []);
      for (const label of unconfirmed) foldedCount.inc({ source: o.source, label, cause: "unconfirmed" });
      for (const label of overBudget) {
        if (!unconfirmed.has(label)) foldedCount.inc({ source: o.source, label, cause: "budget" });
      }
    },
  };
}
