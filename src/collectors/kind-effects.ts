// What one object change means for the per-kind histograms and counters
// (condition state durations, reconcile duration with its trace exemplar,
// time to ready, illegal phase moves), and Warning events about its objects,
// for the families this resource selects.

import { otherLabelValue } from "../core/change/label-bounds.ts";
import type { Observations } from "../core/change/observations.ts";
import { perKindFamilies } from "../core/series/catalog.ts";
import type { KindMetrics } from "../metrics/self-metrics.ts";
import type { TracedGeneration } from "../tracing/state-tracer.ts";

const bit = Object.fromEntries(perKindFamilies.map((f) => [f.key, 1 << f.index])) as Record<
  (typeof perKindFamilies)[number]["key"],
  number
>;

type KindLabels = { group: string; kind: string };

/**
 * Condition types with a state-duration histogram of their own, per kind (16
 * series each per status): histograms only grow, so a kind whose objects
 * invent condition types gets the first ones and "other" for the rest.
 */
export const maxHistogramConditionTypes = 32;

export class KindEffects {
  readonly #metrics: KindMetrics;
  readonly #labels: KindLabels;
  /**
   * Bound histogram children by `${type}\u0000${status}` (observations happen on every transition),
   * with their labels: a type may itself hold the separator, so the key is never split back.
   */
  readonly #durations = new Map<string, { type: string; status: string; observe(value: number): void }>();
  /** Condition types given a histogram of their own (see maxHistogramConditionTypes). */
  readonly #types = new Set<string>();
  #timeToReady: { observe(value: number): void } | undefined;
  /** Label sets of illegal phase moves counted for this kind (to remove them when deselected). */
  readonly #illegal = new Map<string, { namespace: string; from: string; to: string }>();
  /** Bound cr_warning_events_total children by `${namespace}\u0000${reason}`, with their labels. */
  readonly #warnings = new Map<string, { namespace: string; reason: string; inc(by: number): void }>();
  #selected: number;

  constructor(metrics: KindMetrics, labels: { group: string; kind: string }, selected: number) {
    this.#metrics = metrics;
    this.#labels = labels;
    this.#selected = selected;
  }

  /** A reload changed the selection: families no longer selected lose this kind's series. */
  select(selected: number): void {
    const dropped = this.#selected & ~selected;
    this.#selected = selected;
    const m = this.#metrics;
    if (dropped & bit.conditionStateDuration) {
      for (const { type, status } of this.#durations.values())
        m.conditionStateDuration.remove({ ...this.#labels, type, status });
      // Stryker disable next-line CallExpression: a kept child observes into its series again, so clearing only frees memory
      this.#durations.clear();
      this.#types.clear();
    }
    if (dropped & bit.reconcileDuration) m.reconcileDuration.remove(this.#labels);
    if (dropped & bit.timeToReady) {
      m.timeToReady.remove(this.#labels);
      this.#timeToReady = undefined;
    }
    if (dropped & bit.phaseIllegalTransitions) {
      for (const labels of this.#illegal.values())
        m.phaseIllegalTransitions.remove({ ...this.#labels, ...labels });
      // Stryker disable next-line CallExpression: removing an already removed series again does nothing, so clearing only frees memory
      this.#illegal.clear();
    }
    if (dropped & bit.warningEvents) {
      for (const { namespace, reason } of this.#warnings.values())
        m.warningEvents.remove({ ...this.#labels, namespace, reason });
      this.#warnings.clear();
    }
  }

  /** `traced`: the generation root the object is traced under after this change, for the exemplar. */
  observe(observations: Observations, traced: TracedGeneration | undefined): void {
    const m = this.#metrics;
    if (this.#selected & bit.conditionStateDuration) {
      for (const d of observations.stateDurations) {
        if (!this.#types.has(d.type) && this.#types.size < maxHistogramConditionTypes)
          this.#types.add(d.type);
        const type = this.#types.has(d.type) ? d.type : otherLabelValue;
        const key = `${type}\u0000${d.status}`;
        let child = this.#durations.get(key);
        if (!child) {
          const bound = m.conditionStateDuration.labels({ ...this.#labels, type, status: d.status });
          child = { type, status: d.status, observe: (seconds) => bound.observe(seconds) };
          this.#durations.set(key, child);
        }
        child.observe(d.seconds);
      }
    }
    const reconcile = observations.reconcile;
    if (reconcile && this.#selected & bit.reconcileDuration) {
      const id =
        traced !== undefined && traced.generation === reconcile.generation ? traced.traceId() : undefined;
      // With exemplars enabled the histogram only takes the object form of observe().
      // The client's typings tie exemplar label names to the metric's own; OpenMetrics does not.
      const exemplarLabels = (id ? { trace_id: id } : {}) as unknown as KindLabels;
      m.reconcileDuration.observe({ labels: this.#labels, value: reconcile.seconds, exemplarLabels });
    }
    if (observations.timeToReadySeconds !== undefined && this.#selected & bit.timeToReady) {
      this.#timeToReady ??= m.timeToReady.labels(this.#labels);
      this.#timeToReady.observe(observations.timeToReadySeconds);
    }
  }

  /** `occurrences` new Warning events about an object in `namespace`, under the (bounded) reason label. */
  warningEvents(namespace: string, reason: string, occurrences: number): void {
    if (!(this.#selected & bit.warningEvents) || occurrences <= 0) return;
    const key = `${namespace}\u0000${reason}`;
    let child = this.#warnings.get(key);
    if (!child) {
      const bound = this.#metrics.warningEvents.labels({ ...this.#labels, namespace, reason });
      child = { namespace, reason, inc: (by) => bound.inc(by) };
      this.#warnings.set(key, child);
    }
    child.inc(occurrences);
  }

  illegalPhaseMoves(moves: readonly { from: string; to: string }[], namespace: string): void {
    if (!(this.#selected & bit.phaseIllegalTransitions)) return;
    for (const move of moves) {
      const labels = { namespace, ...move };
      this.#illegal.set(`${namespace}\u0000${move.from}\u0000${move.to}`, labels);
      this.#metrics.phaseIllegalTransitions.inc({ ...this.#labels, ...labels });
    }
  }
}
