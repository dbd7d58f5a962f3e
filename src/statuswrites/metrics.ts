// The status-update request families (docs/metrics.md, "Status-update
// requests"), shared by the API proxy and the audit receiver. Their labels
// are bounded twice: group/kind/namespace come only from what the apiserver
// confirmed (confirmed-labels.ts), and all four families share one series
// budget; past it, a new combination is counted with its group, kind,
// namespace and user folded into "other". Every fold is counted.
import type { Counter, Histogram, Registry } from "@prometheus-io/client";
import {
  defaultMetricPrefix,
  type ExporterLabels,
  statusWriteDurationBuckets,
} from "../core/series/catalog.ts";
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
  /**
   * Writes alike but for their durations (NaN where unknown), as an audit
   * batch groups them: counted at once, the durations observed one by one,
   * pausing (a yield) every `observationsPerPause` so the caller can give the
   * event loop a turn — a 31 MB batch holds ~37,000 writes.
   */
  recordMany(
    observation: Omit<StatusWriteObservation, "durationSeconds">,
    durationsSeconds: readonly number[],
  ): Generator<void>;
}

/** Durations observed between two pauses of recordMany (~0.3 ms of work). */
export const observationsPerPause = 256;

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

const known = (seconds: number | undefined): seconds is number => seconds !== undefined && seconds >= 0;

class StatusWriteRecorder implements StatusWriteMetrics {
  readonly #requests: Counter<ExporterLabels<"statusUpdateRequests">>;
  readonly #failures: Counter<ExporterLabels<"statusUpdateFailures">>;
  readonly #duration: Histogram<ExporterLabels<"statusUpdateRequestDuration">>;
  readonly #byUser: Counter<ExporterLabels<"statusUpdateRequestsByUser">>;
  readonly #foldedCount: Counter<ExporterLabels<"statusUpdateLabelsFolded">>;
  readonly #budget: SeriesBudget;
  readonly #userLabel: (user: string, folded: Set<FoldedLabel>) => string;

  constructor(registry: Registry, prefix: string, options: StatusWriteMetricsOptions) {
    const f = new ExporterFamilies(registry, prefix);
    this.#requests = f.counter("statusUpdateRequests");
    this.#failures = f.counter("statusUpdateFailures");
    this.#duration = f.histogram("statusUpdateRequestDuration");
    this.#byUser = f.counter("statusUpdateRequestsByUser");
    this.#foldedCount = f.counter("statusUpdateLabelsFolded");
    this.#budget = new SeriesBudget(options.maxSeries ?? 10_000);
    this.#userLabel = userLabeler(options.maxUsers ?? 100);
  }

  record(o: StatusWriteObservation): void {
    const labels = this.#count(o, 1, known(o.durationSeconds));
    if (labels && known(o.durationSeconds)) this.#duration.observe(labels, o.durationSeconds);
  }

  *recordMany(
    o: Omit<StatusWriteObservation, "durationSeconds">,
    durationsSeconds: readonly number[],
  ): Generator<void> {
    if (durationsSeconds.length === 0) return;
    const labels = this.#count(o, durationsSeconds.length, durationsSeconds.some(known));
    if (!labels) return;
    let n = 0;
    for (const seconds of durationsSeconds) {
      if (known(seconds)) this.#duration.observe(labels, seconds);
      if (++n % observationsPerPause === 0) yield;
    }
  }

  /** Counts `n` writes alike under their admitted labels; returns the histogram's labels when a duration is known. */
  #count(
    o: Omit<StatusWriteObservation, "durationSeconds">,
    n: number,
    timed: boolean,
  ): Record<ExporterLabels<"statusUpdateRequestDuration">, string> | undefined {
    const budget = this.#budget;
    const code = codeLabel(o.code);
    const overBudget = new Set<FoldedLabel>();
    const place = { group: o.group, kind: o.kind, namespace: o.namespace };
    const foldPlace: ("group" | "kind" | "namespace")[] = ["group", "kind", "namespace"];
    const counted = { ...place, verb: o.verb, code, source: o.source };
    this.#requests.inc(budget.admit("requests", counted, 1, foldPlace, overBudget), n);
    if (o.failure) {
      const failed = { ...place, reason: o.failure, source: o.source };
      this.#failures.inc(budget.admit("failures", failed, 1, foldPlace, overBudget), n);
    }
    const timedLabels = { group: o.group, kind: o.kind, verb: o.verb, source: o.source };
    const durationLabels = timed
      ? budget.admit("duration", timedLabels, histogramSeries, ["group", "kind"], overBudget)
      : undefined;
    if (o.user !== undefined) {
      const byUser = { user: this.#userLabel(o.user, overBudget), group: o.group, kind: o.kind, code };
      this.#byUser.inc(budget.admit("byUser", byUser, 1, ["user", "group", "kind"], overBudget), n);
    }
    this.#countFolds(o, overBudget, n);
    return durationLabels;
  }

  /** Every fold counted, per write: labels the apiserver did not confirm, then those past the series budget. */
  #countFolds(
    o: Omit<StatusWriteObservation, "durationSeconds">,
    overBudget: Set<FoldedLabel>,
    n: number,
  ): void {
    const unconfirmed = new Set(o.folded ?? []);
    for (const label of unconfirmed)
      this.#foldedCount.inc({ source: o.source, label, cause: "unconfirmed" }, n);
    for (const label of overBudget) {
      if (!unconfirmed.has(label)) this.#foldedCount.inc({ source: o.source, label, cause: "budget" }, n);
    }
  }
}

export function createStatusWriteMetrics(
  registry: Registry,
  prefix = defaultMetricPrefix,
  options: StatusWriteMetricsOptions = {},
): StatusWriteMetrics {
  return new StatusWriteRecorder(registry, prefix, options);
}
