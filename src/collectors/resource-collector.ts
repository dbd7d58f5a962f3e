// One collector per watched resource type. It owns the list/watch loop(s) and
// the store, hands every object to the pure core (core/change/object-update.ts) and
// dispatches what comes back: the new entry into the store (under the series
// cap), aggregate counts, histograms, tracing, and a wake-up for summaries
// that change with the clock. Counting and logging of watch activity and of
// skipped objects is WatchTelemetry's; nothing here can take /metrics down.

import { type KindLearning, newKindLearning, releaseLabels } from "../core/change/label-bounds.ts";
import {
  applyChange,
  applyWarning,
  type KindSettings,
  refreshSummary,
  rejudge,
  rerender,
} from "../core/change/object-update.ts";
import type { ObjectEntry, TraceRecord } from "../core/entry.ts";
import { type LatestWarning, latestWarning, type WarningEvent } from "../core/events/warning-event.ts";
import { celFields, ProjectionError, projectObject } from "../core/project/project.ts";
import { AggregateCounts } from "../core/series/aggregate.ts";
import type { FamilySelection } from "../core/series/family-selection.ts";
import type { ObjectState, ResourceIdentity } from "../core/state.ts";
import { ListWatch, type ListWatchHandler, silenceBoundMs } from "../kube/list-watch.ts";
import type { SeriesSource } from "../metrics/writer.ts";
import type { JoinRules } from "../tracing/directory.ts";
import type { ObjectObservation, TraceStep } from "../tracing/state-tracer.ts";
import { kindSettingsFor, listPath, scopeHandler, uidOf } from "./collector-parts.ts";
import type {
  CollectorDeps,
  CollectorSettings,
  CollectorStatus,
  ObjectSampler,
} from "./collector-settings.ts";
import { KindEffects } from "./kind-effects.ts";
import { ObjectStore } from "./object-store.ts";
import { AggregateSeriesSource, ObjectSeriesSource } from "./series-sources.ts";
import { SharedTexts } from "./shared-texts.ts";
import { SummarySchedule } from "./summary-schedule.ts";
import { WatchTelemetry } from "./watch-telemetry.ts";

export type {
  CollectorDeps,
  CollectorSettings,
  CollectorStatus,
  ObjectSampler,
  ResourceInfo,
} from "./collector-settings.ts";

/** Latest warnings kept for objects not held yet (see ResourceCollector.#pendingWarnings). */
export const maxPendingWarnings = 1_000;

export class ResourceCollector {
  #settings: CollectorSettings;
  #kind: KindSettings;
  readonly #deps: CollectorDeps;
  readonly #store = new ObjectStore();
  /** Texts this resource's objects share: label values and series lines (one copy of each). */
  readonly #shared = new SharedTexts();
  /** Aggregate mode's counts; undefined in objects mode, which renders each object instead. */
  readonly #counts: AggregateCounts | undefined;
  readonly #learning: KindLearning;
  readonly #telemetry: WatchTelemetry;
  readonly #effects: KindEffects;
  readonly #schedule: SummarySchedule;
  readonly #loops: ListWatch[] = [];
  /** Takes the first objects for detection while it still learns; undefined once it is done. */
  #sampler: ObjectSampler | undefined;
  /**
   * The trace records of the collector this one replaced (a reconfiguration),
   * taken up as its first list finds the objects again; dropped once it is done.
   */
  #inheritedTraces: Map<string, TraceRecord> | undefined;
  /**
   * The latest warning of objects not held when it came (the object's watch
   * behind the events' watch, or its first list not done), by object uid,
   * taken when the object arrives; the oldest dropped past maxPendingWarnings.
   */
  readonly #pendingWarnings = new Map<string, LatestWarning>();
  readonly sources: readonly SeriesSource[];

  constructor(
    settings: CollectorSettings,
    deps: CollectorDeps,
    sampler?: ObjectSampler,
    inheritedTraces?: ReadonlyMap<string, TraceRecord>,
  ) {
    this.#settings = settings;
    this.#deps = deps;
    this.#sampler = sampler;
    this.#inheritedTraces =
      inheritedTraces && inheritedTraces.size > 0 ? new Map(inheritedTraces) : undefined;
    this.#kind = this.#kindSettings(settings);
    this.#learning = newKindLearning(settings);
    this.#telemetry = new WatchTelemetry(settings.identity, {
      ...deps,
      staleAfterSeconds: silenceBoundMs(deps.listWatch ?? {}) / 1000,
      celFields: celFields(settings.kind.projection),
    });
    const { group, kind } = settings.identity;
    this.#effects = new KindEffects(deps.metrics.kinds, { group, kind }, settings.selection.perKind);
    this.#schedule = new SummarySchedule(deps.clock, () => this.refreshDue());
    const counts = settings.mode === "aggregate" ? new AggregateCounts() : undefined;
    this.#counts = counts;
    this.sources = counts
      ? [
          new AggregateSeriesSource(counts, () => ({
            group,
            kind,
            prefix: this.#settings.prefix,
            selected: this.#settings.selection.aggregates,
          })),
        ]
      : [new ObjectSeriesSource(this.#store, () => this.#kind.render)];
  }

  /** The core's settings; with tracing on, the projection also reads what roots join (owner, source, trace context). */
  #kindSettings(settings: CollectorSettings): KindSettings {
    const kind = kindSettingsFor(settings);
    const joins = this.#deps.joins;
    if (!joins) return kind;
    const refs = {
      owner: true,
      traceContextAnnotation: joins.traceContextAnnotation,
      source: settings.tracing?.source?.ref,
      operation: settings.tracing?.operation,
    };
    return { ...kind, projection: { ...kind.projection, refs } };
  }

  /** How this resource's roots join others, for tracing. */
  get #joinRules(): JoinRules {
    const t = this.#settings.tracing;
    return {
      parent: t?.parent,
      source: t?.source ? { group: t.source.group, kind: t.source.kind } : undefined,
    };
  }

  /** Sharded with tracing.joinAcrossShards: other shards' objects are read too, into tracing's directory only. */
  get #indexesOthers(): boolean {
    return (
      this.#deps.joins?.acrossShards === true &&
      this.#deps.tracer?.index !== undefined &&
      this.#deps.sharded?.() === true
    );
  }

  /** Enters an object of another shard in tracing's directory of join targets (`current` undefined: gone). */
  #indexOther(raw: unknown, deleted: boolean): void {
    const tracer = this.#deps.tracer;
    if (!tracer?.index) return;
    const { identity: resource, statusSubresource } = this.#settings;
    const base = {
      resource,
      statusSubresource,
      readiness: this.#kind.readiness,
      nowMs: this.#deps.clock() * 1000,
    };
    try {
      const state = projectObject(raw, this.#kind.projection);
      const o: ObjectObservation = deleted
        ? { ...base, previous: state, current: undefined, replay: false }
        : { ...base, previous: undefined, current: state, replay: true, joinRules: this.#joinRules };
      tracer.index(o);
    } catch (error) {
      if (!(error instanceof ProjectionError)) throw error;
    }
  }

  get settings(): CollectorSettings {
    return this.#settings;
  }

  get identity(): ResourceIdentity {
    return this.#settings.identity;
  }

  get store(): ObjectStore {
    return this.#store;
  }

  get scopes(): readonly string[] {
    const { namespaces } = this.#settings.scope;
    return namespaces.length > 0 ? namespaces : [""];
  }

  status(now = this.#deps.clock()): CollectorStatus {
    const { ready, detail } = this.#telemetry.readiness(now);
    return {
      initialSyncDone: this.#telemetry.listedAll(this.scopes),
      synced: this.#telemetry.syncedAll(this.scopes),
      lastError: this.#telemetry.lastError,
      ready,
      detail,
    };
  }

  start(): void {
    this.#describe(this.#settings, true);
    this.#startLoops();
  }

  /** cr_exporter_resource_info and a value candidate series per candidate field of `settings`: set, or removed. */
  #describe(settings: CollectorSettings, on: boolean): void {
    const { resourceInfo, valueCandidate } = this.#deps.metrics;
    const labels = this.#telemetry.labels;
    const info = { ...labels, ...settings.info };
    if (on) resourceInfo.set(info, 1);
    else resourceInfo.remove(info);
    for (const candidate of settings.valueCandidates) {
      const at = { ...labels, path: candidate.path, type: candidate.type };
      if (on) valueCandidate.set(at, 1);
      else valueCandidate.remove(at);
    }
  }

  #startLoops(): void {
    const { identity, scope: selected } = this.#settings;
    for (const scope of this.scopes) {
      const options: ConstructorParameters<typeof ListWatch>[3] = {
        path: listPath(identity, scope),
        ...this.#deps.listWatch,
      };
      if (selected.labelSelector) options.labelSelector = selected.labelSelector;
      if (selected.fieldSelector) options.fieldSelector = selected.fieldSelector;
      // Joins across shards read every object: other shards' go to tracing's directory only.
      const indexesOthers = this.#indexesOthers;
      const shardSelector = indexesOthers ? undefined : this.#deps.shardSelector?.();
      if (shardSelector) options.shardSelector = shardSelector;
      // Other shards' watch events are then passed over before they are parsed.
      if (this.#deps.sharded?.() && !indexesOthers) options.ownsUid = (uid) => this.#deps.owns(uid);
      const observer = this.#telemetry.observer(scope, this.scopes, () => this.#store.size);
      const loop = new ListWatch(this.#deps.client, this.#handler(scope), observer, options);
      this.#loops.push(loop);
      loop.start();
    }
  }

  /**
   * Stops watching and forgets every object. `removed`: the resource type went
   * away (CRD deleted), so its objects are reported deleted to tracing; on a
   * shutdown or reconfiguration they are not.
   */
  async stop(removed = false): Promise<void> {
    await Promise.all(this.#loops.map((l) => l.stop()));
    this.#loops.length = 0;
    // Stryker disable next-line CallExpression: the store is cleared below, so a wake after stop finds nothing; this only drops the timer early
    this.#schedule.stop();
    if (removed)
      for (const entry of this.#store.values())
        this.#trace(entry.state, undefined, this.#deps.clock(), false, entry.trace);
    this.#store.clear();
    this.#counts?.clear();
    this.#telemetry.remove();
    this.#describe(this.#settings, false);
  }

  /**
   * The shard assignment changed: objects no longer this shard's are dropped
   * without being reported deleted (their new shard picks them up), and when
   * the new assignment can bring objects this shard did not keep, every
   * scope is listed again.
   */
  async reshard(relist: boolean): Promise<void> {
    const owns = this.#deps.owns;
    // Their trace records go with them: the new owner resumes them, with the same ids.
    for (const [uid] of [...this.#store.entries()]) if (!owns(uid)) this.#forget(uid);
    this.#updateGauges();
    if (!relist || this.#loops.length === 0) return;
    await Promise.all(this.#loops.map((l) => l.stop()));
    this.#loops.length = 0;
    this.#startLoops();
  }

  /**
   * Applies one watch event. The list/watch loop calls this; tests and
   * benchmarks call it directly to drive the collector from recorded events.
   * Objects of other shards are passed over before anything is done with them.
   */
  ingest(type: "ADDED" | "MODIFIED" | "DELETED", object: unknown): void {
    if (!this.#ours(object, type === "DELETED")) return;
    try {
      if (type === "DELETED") {
        const uid = uidOf(object);
        if (uid !== undefined) this.#remove(uid);
      } else this.#apply(object, false);
    } catch (error) {
      this.#telemetry.objectSkipped(error);
    }
    this.#updateGauges();
  }

  /**
   * A reload changed the family selection or the prefix: every object is
   * re-rendered from what is stored (counters kept), with no relist.
   */
  reselect(selection: FamilySelection, prefix: string): void {
    this.#settings = { ...this.#settings, selection, prefix };
    this.#kind = this.#kindSettings(this.#settings);
    this.#effects.select(selection.perKind);
    // In aggregate mode there is no renderer: each entry comes back as it was.
    for (const [uid, entry] of [...this.#store.entries()])
      this.#keep(uid, this.#capped(entry, rerender(entry, this.#kind)));
    this.#updateGauges();
  }

  /**
   * How objects are judged changed (detection learned a readiness condition,
   * or a reload set one): every stored object is judged again and
   * re-rendered, with no relist; the info series follows.
   */
  rejudge(settings: CollectorSettings): void {
    this.#describe(this.#settings, false);
    this.#settings = settings;
    this.#kind = this.#kindSettings(settings);
    this.#describe(settings, true);
    const now = this.#deps.clock();
    for (const [uid, entry] of [...this.#store.entries()])
      this.#replace(uid, entry, rejudge(entry, this.#kind, now));
    this.#updateGauges();
  }

  /** Re-evaluates the summaries whose clock-driven change is due (see SummarySchedule). */
  refreshDue(now = this.#deps.clock()): void {
    for (const uid of this.#schedule.takeDue(now)) {
      const entry = this.#store.get(uid);
      if (!entry || entry.changesAt === undefined || entry.changesAt > now) continue;
      this.#replace(uid, entry, refreshSummary(entry, this.#kind, now));
    }
  }

  /**
   * Whether a Warning event about an object of this kind is this collector's
   * to count: the object's namespace is watched, the object is this shard's,
   * and, when a label or field selector narrows the watch, the object is held
   * (the selector cannot be checked on the event).
   */
  takesWarning(event: WarningEvent): boolean {
    const { namespace, uid, name } = event.regarding;
    if (!this.scopes.includes("") && !this.scopes.includes(namespace)) return false;
    if (!this.#deps.owns(uid ?? event.uid)) return false;
    const { labelSelector, fieldSelector } = this.#settings.scope;
    if (!labelSelector && !fieldSelector) return true;
    return this.#store.get(uid ?? "") !== undefined || this.#store.uidByName(namespace, name) !== undefined;
  }

  /**
   * A Warning event about an object of this kind (taken: takesWarning):
   * `occurrences` new ones counted per kind under the bounded `reason`
   * label, and per object with the event as its latest warning.
   */
  warning(event: WarningEvent, reason: string, occurrences: number): void {
    const { namespace, name, uid: regarding } = event.regarding;
    this.#guarded("warning events", () => this.#effects.warningEvents(namespace, reason, occurrences));
    const uid = regarding ?? this.#store.uidByName(namespace, name);
    const entry = uid === undefined ? undefined : this.#store.get(uid);
    if (!entry) {
      if (regarding !== undefined) this.#pend(regarding, event);
      return;
    }
    const next = this.#guarded("warning events", () =>
      applyWarning(entry, this.#kind, event, reason, occurrences),
    );
    if (next && next !== entry) this.#replace(uid as string, entry, next);
    if (occurrences > 0 && entry.trace?.open)
      this.#traceWarning(uid as string, entry.trace, event, occurrences);
    this.#updateGauges();
  }

  /** A counted Warning event on the object's open root span (a `k8s.event` span event). */
  #traceWarning(uid: string, record: TraceRecord, event: WarningEvent, occurrences: number): void {
    const tracer = this.#deps.tracer;
    if (!tracer?.warning) return;
    const warning = {
      reason: event.reason,
      message: event.message,
      count: occurrences,
      atMs: event.lastAt === undefined ? undefined : event.lastAt * 1000,
    };
    const next = this.#guarded("tracing", () => tracer.warning?.(record, warning, this.#deps.clock() * 1000));
    if (next && next !== record) this.#store.setTrace(uid, next);
  }

  #pend(uid: string, event: WarningEvent): void {
    const latest = latestWarning(this.#pendingWarnings.get(uid), event);
    if (!latest) return;
    this.#pendingWarnings.delete(uid);
    this.#pendingWarnings.set(uid, latest);
    if (this.#pendingWarnings.size > maxPendingWarnings)
      this.#pendingWarnings.delete(this.#pendingWarnings.keys().next().value as string);
  }

  #handler(scope: string): ListWatchHandler {
    return scopeHandler(scope, {
      ours: (raw) => this.#ours(raw),
      apply: (raw) => this.#apply(raw, true),
      skipped: (error) => this.#telemetry.objectSkipped(error),
      heldIn: (scope) => this.#heldIn(scope),
      remove: (uid) => this.#remove(uid),
      listFinished: () => {
        this.#telemetry.listFinished(scope, this.scopes);
        // What the replaced collector traced and the first list did not find again is gone.
        if (this.#telemetry.listedAll(this.scopes)) this.#inheritedTraces = undefined;
        this.#updateGauges();
      },
      event: (type, object) => this.ingest(type, object),
    });
  }

  *#heldIn(scope: string): Iterable<string> {
    for (const [uid, entry] of this.#store.entries())
      if (scope === "" || entry.state.namespace === scope) yield uid;
  }

  /** False for an object of another shard; an object without a uid is left to #apply, which counts it. */
  #ours(raw: unknown, deleted = false): boolean {
    const uid = uidOf(raw);
    if (uid === undefined || this.#deps.owns(uid)) return true;
    if (this.#indexesOthers) this.#guarded("tracing", () => this.#indexOther(raw, deleted));
    return false;
  }

  /** Returns the object's uid. Throws for an object without identity (counted by the caller). */
  #apply(raw: unknown, replay: boolean): string | undefined {
    const now = this.#deps.clock();
    const uid = uidOf(raw);
    const previous = uid !== undefined ? this.#store.get(uid) : undefined;
    if (this.#sampler && !this.#sampler.sample(raw)) this.#sampler = undefined;
    // Listed before the first list finished: the object was there before the exporter started
    // (the core applies this to objects it has not seen only).
    const atStart = replay && !this.#telemetry.listedAll(this.scopes);
    const change = applyChange(previous, raw, this.#kind, this.#learning, now, atStart);
    let entry = change.entry;
    if (!previous && uid !== undefined && this.#pendingWarnings.size > 0) {
      const warning = this.#pendingWarnings.get(uid);
      this.#pendingWarnings.delete(uid);
      if (warning) entry = { ...entry, warning };
    }
    if (entry === previous) return uid;
    change.labels?.commit();
    this.#telemetry.cuts(entry.state.cuts, entry.state);
    const key = entry.state.uid;
    const holder = this.#store.previousHolder(entry.state, key);
    if (holder !== undefined) this.#remove(holder);
    this.#replace(key, previous, entry);
    // Side effects (none when no transition happened) come after the object's own
    // series are right, and a failure in one of them never leaves it half-updated.
    // Tracing hands back the object's new record and the trace the reconcile-duration
    // exemplar names.
    const record = previous?.trace ?? this.#inherited(key);
    const step = change.trace
      ? this.#trace(change.trace.previous, change.trace.current, now, replay, record)
      : undefined;
    if (step) this.#store.setTrace(key, step.record);
    this.#guarded("histograms", () => {
      this.#effects.observe(change.observations, step?.traced);
      this.#effects.illegalPhaseMoves(change.illegalPhaseMoves, entry.state.namespace);
    });
    return key;
  }

  /** Stores `entry`, its texts shared with the resource's other objects. */
  #keep(uid: string, entry: ObjectEntry): void {
    this.#shared.state(entry.state);
    this.#shared.labels(entry.labels);
    this.#shared.series(entry.series);
    this.#store.set(uid, entry);
  }

  /** Stores `next` in place of `previous` (under the cap), keeping aggregate counts and the schedule right. */
  #replace(uid: string, previous: ObjectEntry | undefined, next: ObjectEntry): void {
    const entry = this.#capped(previous, next);
    if (this.#counts) {
      if (previous) this.#counts.count(previous, -1);
      this.#counts.count(entry, 1);
    }
    this.#keep(uid, entry);
    if (entry.changesAt !== undefined && entry.changesAt !== previous?.changesAt)
      this.#schedule.add(uid, entry.changesAt);
  }

  /** The entry without its series when they would take the resource over its maxSeries cap. */
  #capped(previous: ObjectEntry | undefined, next: ObjectEntry): ObjectEntry {
    const cap = this.#settings.maxSeries;
    const count = next.series?.count ?? 0;
    if (cap <= 0) return next;
    if (this.#store.series - (previous?.series?.count ?? 0) + count <= cap) return next;
    this.#deps.metrics.seriesDropped.inc(this.#telemetry.labels, count);
    return { ...next, series: undefined };
  }

  #guarded<T>(what: string, fn: () => T): T | undefined {
    try {
      return fn();
    } catch (error) {
      this.#telemetry.objectSkipped(error, `${what} failed for an object`);
      return undefined;
    }
  }

  /** The object was deleted (or a relist no longer returns it): forgotten, and reported deleted to tracing. */
  #remove(uid: string): void {
    const entry = this.#forget(uid);
    if (entry) this.#trace(entry.state, undefined, this.#deps.clock(), false, entry.trace);
  }

  /** The record the replaced collector kept for this object, taken once. */
  #inherited(uid: string): TraceRecord | undefined {
    const record = this.#inheritedTraces?.get(uid);
    if (record) this.#inheritedTraces?.delete(uid);
    return record;
  }

  /** Drops an object with what it holds: its learned label values and its aggregate counts. */
  #forget(uid: string): ObjectEntry | undefined {
    const entry = this.#store.delete(uid);
    if (!entry) return undefined;
    releaseLabels(this.#learning, entry.labels);
    this.#counts?.count(entry, -1);
    return entry;
  }

  /** Hands one change to tracing, with this resource's readiness rules and the object's record. */
  #trace(
    previous: ObjectState | undefined,
    current: ObjectState | undefined,
    now: number,
    replay: boolean,
    record: TraceRecord | undefined,
  ): TraceStep | undefined {
    const tracer = this.#deps.tracer;
    if (!tracer) return undefined;
    const { identity: resource, statusSubresource } = this.#settings;
    const readiness = this.#kind.readiness;
    const change = {
      resource,
      statusSubresource,
      readiness,
      previous,
      current,
      nowMs: now * 1000,
      replay,
      joinRules: this.#joinRules,
    };
    return this.#guarded("tracing", () => tracer.observe(change, record));
  }

  /** Ends the root spans whose timeout has passed (the tracing clock's tick). */
  tickTraces(nowMs: number): void {
    const tracer = this.#deps.tracer;
    if (!tracer) return;
    for (const [uid, entry] of [...this.#store.entries()]) {
      if (!entry.trace?.open) continue;
      const record = entry.trace;
      const next = this.#guarded("tracing", () => tracer.tick(record, nowMs));
      if (next) this.#store.setTrace(uid, next);
    }
  }

  /** Objects with an open root span. */
  get openTraces(): number {
    let open = 0;
    for (const entry of this.#store.values()) if (entry.trace?.open) open++;
    return open;
  }

  /** Every object's trace record, for the collector that replaces this one. */
  traceRecords(): Map<string, TraceRecord> {
    const records = new Map<string, TraceRecord>();
    for (const [uid, entry] of this.#store.entries()) if (entry.trace) records.set(uid, entry.trace);
    return records;
  }

  /** On shutdown, when tracing ends open root spans then: ends this resource's. */
  interruptTraces(nowMs: number): void {
    const tracer = this.#deps.tracer;
    if (!tracer?.endsOpenSpansOnShutdown) return;
    for (const entry of this.#store.values()) {
      const record = entry.trace;
      if (record?.open) this.#guarded("tracing", () => tracer.interrupt(record, nowMs));
    }
  }

  #updateGauges(): void {
    this.#telemetry.held(this.#store.size, this.#store.series);
  }
}
