// One collector per watched resource type: runs the list/watch loop(s), turns
// each object change into projected state, counters, histogram observations
// and trace observations, and keeps the object's series pre-rendered for the
// /metrics writer. Malformed objects are counted and skipped; nothing here can
// take /metrics down.
import { countObjects, renderAggregate } from "../core/aggregate.ts";
import { F } from "../core/families.ts";
import { newMemory, observe } from "../core/observations.ts";
import { type ProjectionSettings, projectObject } from "../core/project.ts";
import {
  type KindContext,
  learnPhase,
  newCounters,
  renderDynamic,
  renderObject,
  renderPhase,
} from "../core/render.ts";
import type { ObjectState, ResourceIdentity, Transition } from "../core/state.ts";
import { diffStates } from "../core/transitions.ts";
import type { KubeClient } from "../kube/client.ts";
import { ListWatch, type ListWatchHandler, type ListWatchObserver } from "../kube/list-watch.ts";
import type { Logger } from "../log.ts";
import type { SelfMetrics } from "../metrics/self-metrics.ts";
import type { StateTracer } from "../tracing/state-tracer.ts";
import { type ObjectEntry, ObjectStore } from "./object-store.ts";

export interface CollectorSettings {
  identity: ResourceIdentity;
  statusSubresource: boolean;
  projection: ProjectionSettings;
  kind: KindContext;
  mode: "objects" | "aggregate";
  /** Cap on per-object series for this resource; 0 = unlimited. */
  maxSeries: number;
  /** Allowed phase transitions (`from` → allowed `to`s); undefined = not checked. */
  phaseTransitions: Record<string, string[]> | undefined;
  /** Watch only these namespaces (empty = all). */
  namespaces: string[];
  labelSelector: string | undefined;
  prefix: string;
}

export interface CollectorDeps {
  client: KubeClient;
  metrics: SelfMetrics;
  logger: Logger;
  tracer: StateTracer | undefined;
  /** Epoch seconds. */
  clock: () => number;
  /** Overrides for the list/watch loop (tests shorten timeouts). */
  listWatch?: { watchTimeoutSeconds?: [number, number]; inactivityMs?: number; pageSize?: number };
}

export interface CollectorStatus {
  /** The initial list finished at least once for every namespace watched. */
  initialSyncDone: boolean;
  /** The watch is currently running for every namespace watched. */
  synced: boolean;
  lastError: string | undefined;
}

export class ResourceCollector {
  readonly settings: CollectorSettings;
  readonly #deps: CollectorDeps;
  readonly #store = new ObjectStore();
  readonly #loops: ListWatch[] = [];
  readonly #labels: { group: string; version: string; kind: string };
  readonly #syncedScopes = new Set<string>();
  readonly #listedScopes = new Set<string>();
  #lastError: string | undefined;
  #listMark = 0;
  /** The gauge values last written, so unchanged ones are not written again. */
  readonly #shown = { objects: -1, series: -1 };

  constructor(settings: CollectorSettings, deps: CollectorDeps) {
    this.settings = settings;
    this.#deps = deps;
    const { group, version, kind } = settings.identity;
    this.#labels = { group, version, kind };
    // Error counters exist from the start (at 0), so "no errors" is a value, not missing data.
    deps.metrics.handlerErrors.inc(this.#labels, 0);
    deps.metrics.seriesDropped.inc(this.#labels, 0);
  }

  get identity(): ResourceIdentity {
    return this.settings.identity;
  }

  get store(): ObjectStore {
    return this.#store;
  }

  get scopes(): string[] {
    return this.settings.namespaces.length > 0 ? this.settings.namespaces : [""];
  }

  status(): CollectorStatus {
    const scopes = this.scopes;
    return {
      initialSyncDone: scopes.every((s) => this.#listedScopes.has(s)),
      synced: scopes.every((s) => this.#syncedScopes.has(s)),
      lastError: this.#lastError,
    };
  }

  start(): void {
    const { identity } = this.settings;
    for (const scope of this.scopes) {
      const base = `/apis/${identity.group}/${identity.version}`;
      const path = scope
        ? `${base}/namespaces/${scope}/${identity.resource}`
        : `${base}/${identity.resource}`;
      const options: ConstructorParameters<typeof ListWatch>[3] = { path, ...this.#deps.listWatch };
      if (this.settings.labelSelector) options.labelSelector = this.settings.labelSelector;
      const loop = new ListWatch(this.#deps.client, this.#handler(scope), this.#observer(scope), options);
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
    if (removed) for (const entry of this.#store.values()) this.#traceDeleted(entry.state, false);
    this.#store.clear();
    this.#updateGauges();
    const m = this.#deps.metrics;
    for (const gauge of [m.synced, m.objects, m.series, m.lastEvent, m.lastSync]) gauge.remove(this.#labels);
  }

  /**
   * This resource's text for per-object family `slot`, in chunks of about
   * `chunkChars` characters. Small chunks matter: the HTTP stream turns each
   * chunk into bytes in one go, and chunks of hundreds of KiB made that the
   * dominant cost of a scrape (and the cause of long GC pauses).
   */
  *familyText(slot: number, now: number, chunkChars = 32 * 1024): Generator<string> {
    if (this.settings.mode !== "objects") return;
    const ctx = this.settings.kind;
    let text = "";
    for (const entry of this.#store.values()) {
      const r = entry.rendered;
      if (!r) continue;
      if (r.dynamic & (1 << slot)) {
        text += renderDynamic(ctx, slot, r.labels, entry.state, entry.memory, now);
      } else {
        if (slot === F.phase && r.phasesVersion !== ctx.phasesVersion) {
          // The kind learned a new phase since this object was rendered.
          r.slots[F.phase] = renderPhase(ctx, r.labels, entry.state.phase);
          r.phasesVersion = ctx.phasesVersion;
        }
        text += r.slots[slot] ?? "";
      }
      if (text.length >= chunkChars) {
        yield text;
        text = "";
      }
    }
    if (text) yield text;
  }

  /** Text of aggregate family `index` (aggregate mode only; "" otherwise). */
  aggregateText(index: number, now: number): string {
    if (this.settings.mode !== "aggregate") return "";
    const states = (function* (store: ObjectStore) {
      for (const entry of store.values()) yield entry.state;
    })(this.#store);
    const counts = countObjects(states, this.settings.kind.status, now);
    return renderAggregate(
      index,
      counts,
      this.settings.prefix,
      this.settings.identity.group,
      this.settings.identity.kind,
    );
  }

  #handler(scope: string): ListWatchHandler {
    let mark = 0;
    return {
      listStarted: () => {
        mark = ++this.#listMark;
      },
      listed: (object) => {
        try {
          this.#upsert(object, true, mark);
        } catch (error) {
          this.#skipped(error);
        }
      },
      listFinished: () => {
        // Objects of this scope that the new list did not return are gone.
        for (const [uid, entry] of [...this.#store.entries()]) {
          if ((scope === "" || entry.state.namespace === scope) && entry.listMark !== mark) this.#remove(uid);
        }
        this.#listedScopes.add(scope);
        this.#deps.metrics.lastSync.set(this.#labels, this.#deps.clock());
        this.#updateGauges();
      },
      event: (type, object) => this.ingest(type, object, mark),
    };
  }

  /**
   * Applies one watch event. The list/watch loop calls this; tests and
   * benchmarks call it directly to drive the collector from recorded events.
   */
  ingest(type: "ADDED" | "MODIFIED" | "DELETED", object: unknown, mark = this.#listMark): void {
    try {
      if (type === "DELETED") this.#removeRaw(object);
      else this.#upsert(object, false, mark);
    } catch (error) {
      this.#skipped(error);
    }
    this.#updateGauges();
  }

  /** A malformed object: counted and skipped, never fatal. */
  #skipped(error: unknown): void {
    this.#deps.metrics.handlerErrors.inc(this.#labels);
    this.#deps.logger.debug("object skipped", {
      resource: this.settings.identity.resource,
      error: error instanceof Error ? error.message : String(error),
    });
  }

  #observer(scope: string): ListWatchObserver {
    const m = this.#deps.metrics;
    const log = this.#deps.logger;
    const id = this.settings.identity;
    const what = `${id.group}/${id.version}/${id.resource}${scope ? ` in ${scope}` : ""}`;
    const eventCounters = new Map<string, { inc(): void }>();
    const lastEvent = m.lastEvent.labels(this.#labels);
    return {
      synced: (synced) => {
        const was = this.status().synced;
        if (synced) {
          this.#syncedScopes.add(scope);
          this.#lastError = undefined;
        } else this.#syncedScopes.delete(scope);
        const now = this.status().synced;
        m.synced.set(this.#labels, now ? 1 : 0);
        if (now && !was) log.info("resource synced", { resource: what, objects: this.#store.size });
      },
      relist: (reason) => {
        m.relists.inc({ ...this.#labels, reason });
        if (reason !== "initial") log.info("relisting", { resource: what, reason });
      },
      listDuration: (seconds, objects) => {
        m.listDuration.observe(this.#labels, seconds);
        log.debug("list finished", { resource: what, objects, seconds });
      },
      watchEvent: (type) => {
        // Every watch event passes here: use bound children instead of hashing labels each time.
        let counter = eventCounters.get(type);
        if (!counter) {
          counter = m.watchEvents.labels({ ...this.#labels, type });
          eventCounters.set(type, counter);
        }
        counter.inc();
        lastEvent.set(this.#deps.clock());
      },
      error: (operation, code, error) => {
        m.watchErrors.inc({ ...this.#labels, operation, code: String(code) });
        const message = `${operation} failed${code ? ` (HTTP ${code})` : ""}: ${error instanceof Error ? error.message : String(error)}`;
        // One warning per kind of failure; repeats of the same one (retries) go to debug.
        const level = message === this.#lastError ? "debug" : "warn";
        this.#lastError = message;
        log[level](`${operation} failed`, { resource: what, code, error: message });
      },
      handlerError: (error) => {
        m.handlerErrors.inc(this.#labels);
        log.debug("object skipped", {
          resource: what,
          error: error instanceof Error ? error.message : String(error),
        });
      },
    };
  }

  #upsert(raw: unknown, replay: boolean, mark: number): void {
    const state = projectObject(raw, this.settings.projection);
    const now = this.#deps.clock();
    const replaced = this.#store.previousHolder(state, state.uid);
    if (replaced !== undefined) this.#remove(replaced);
    const previous = this.#store.get(state.uid);
    const transitions = diffStates(previous?.state, state, now);
    const entry: ObjectEntry = previous ?? {
      state,
      counters: newCounters(),
      memory: newMemory(),
      rendered: undefined,
      listMark: mark,
    };
    if (replay) entry.listMark = mark;
    if (previous && transitions.length === 0) {
      entry.state = state;
      return;
    }
    const prevState = previous?.state;
    entry.state = state;
    this.#count(entry, prevState, state, transitions);
    if (!previous) this.#store.set(state.uid, entry);
    this.#render(entry, now);
    // Side effects come after the object's own series are right, and a failure
    // in one of them never leaves the object half-updated.
    this.#sideEffect("tracing", () =>
      this.#deps.tracer?.observe({
        resource: this.settings.identity,
        statusSubresource: this.settings.statusSubresource,
        previous: prevState,
        current: state,
        nowMs: now * 1000,
        replay,
      }),
    );
    // After tracing, so the reconcile-duration exemplar can name the trace just completed.
    this.#sideEffect("histograms", () => this.#observeHistograms(prevState, state, transitions, entry, now));
  }

  #sideEffect(what: string, fn: () => void): void {
    try {
      fn();
    } catch (error) {
      this.#deps.metrics.handlerErrors.inc(this.#labels);
      this.#deps.logger.warn(`${what} failed for an object`, {
        resource: this.settings.identity.resource,
        error: error instanceof Error ? error.message : String(error),
      });
    }
  }

  #count(
    entry: ObjectEntry,
    previous: ObjectState | undefined,
    next: ObjectState,
    transitions: Transition[],
  ): void {
    const c = entry.counters;
    const ctx = this.settings.kind;
    for (const t of transitions) {
      if (t.kind === "statusWrite") {
        if (t.noop) c.noopUpdates++;
        else c.statusUpdates++;
      } else if (t.kind === "generation" && previous) {
        c.generationChanges++;
      } else if (t.kind === "condition" && t.to !== undefined && t.from !== undefined) {
        const key = `${t.type}\u0000${t.to}`;
        c.transitions.set(key, (c.transitions.get(key) ?? 0) + 1);
      } else if (t.kind === "phase" && t.from !== undefined && t.to !== undefined) {
        const allowed = this.settings.phaseTransitions?.[t.from];
        if (this.settings.phaseTransitions && !allowed?.includes(t.to)) {
          this.#deps.metrics.illegalPhaseTransitions.inc({
            group: ctx.group,
            kind: ctx.kind,
            namespace: next.namespace,
            from: t.from,
            to: t.to,
          });
        }
      }
    }
    learnPhase(ctx, next.phase);
  }

  #observeHistograms(
    previous: ObjectState | undefined,
    next: ObjectState,
    transitions: Transition[],
    entry: ObjectEntry,
    now: number,
  ): void {
    const ctx = this.settings.kind;
    const m = this.#deps.metrics;
    const result = observe(previous, next, transitions, entry.memory, ctx.status.readyCondition, now);
    const kindLabels = { group: ctx.group, kind: ctx.kind };
    for (const d of result.stateDurations) {
      m.conditionStateDuration.observe({ ...kindLabels, type: d.type, status: d.status }, d.seconds);
    }
    if (result.reconcile) {
      const traceId =
        result.reconcile.generation !== undefined
          ? this.#deps.tracer?.traceIdFor(this.settings.identity, next.uid, result.reconcile.generation)
          : undefined;
      // With exemplars enabled the histogram only takes the object form of observe().
      // The client's typings tie exemplar label names to the metric's own; OpenMetrics does not.
      const exemplarLabels = (traceId ? { trace_id: traceId } : {}) as unknown as typeof kindLabels;
      m.reconcileDuration.observe({ labels: kindLabels, value: result.reconcile.seconds, exemplarLabels });
    }
    if (result.timeToReadySeconds !== undefined) m.timeToReady.observe(kindLabels, result.timeToReadySeconds);
  }

  #render(entry: ObjectEntry, now: number): void {
    if (this.settings.mode !== "objects") return;
    const rendered = renderObject(this.settings.kind, entry.state, entry.counters, now);
    const cap = this.settings.maxSeries;
    const projected = this.#store.series - (entry.rendered?.series ?? 0) + rendered.series;
    if (cap > 0 && projected > cap) {
      this.#store.setRendered(entry, undefined);
      this.#deps.metrics.seriesDropped.inc(this.#labels, rendered.series);
      return;
    }
    this.#store.setRendered(entry, rendered);
  }

  #removeRaw(raw: unknown): void {
    const uid = (raw as { metadata?: { uid?: unknown } } | undefined)?.metadata?.uid;
    if (typeof uid === "string") this.#remove(uid);
  }

  #remove(uid: string): void {
    const entry = this.#store.delete(uid);
    if (entry) this.#traceDeleted(entry.state, false);
  }

  #traceDeleted(state: ObjectState, replay: boolean): void {
    this.#deps.tracer?.observe({
      resource: this.settings.identity,
      statusSubresource: this.settings.statusSubresource,
      previous: state,
      current: undefined,
      nowMs: this.#deps.clock() * 1000,
      replay,
    });
  }

  /** Called on every event; the client library's set() is not free, so only changes are written. */
  #updateGauges(): void {
    if (this.#store.size !== this.#shown.objects) {
      this.#shown.objects = this.#store.size;
      this.#deps.metrics.objects.set(this.#labels, this.#store.size);
    }
    if (this.#store.series !== this.#shown.series) {
      this.#shown.series = this.#store.series;
      this.#deps.metrics.series.set(this.#labels, this.#store.series);
    }
  }
}
