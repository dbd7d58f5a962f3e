// The exporter's view of one resource's list/watch loops, in one place: it is
// the loops' observer (like kube-state-metrics' instrumented lister-watcher),
// so every list, watch event, error and skipped object is counted and logged
// here and nowhere else. It also answers readiness questions (listed, synced,
// how old the data is, last error) for the resource.
//
// The data of a scope (one list/watch) is confirmed current whenever a list
// finishes, a watch opens, or the watch delivers an event or a bookmark. The
// oldest confirmation over the resource's scopes is its data timestamp: a
// gauge from the start (0 before the first list), and the resource is stale
// (not ready) once it is older than the loop's silence bound, by which time
// a healthy watch has always said something (kube/list-watch.ts). Over h2 the
// connection speaks for a quiet watch (its PINGs are answered), which
// confirms the data too, and the bound is the shorter one the loop reports
// when its watch opens; all of a resource's watches go to one apiserver
// through one client, so they share it.
import { type CelError, celFailures } from "../core/cel.ts";
import type { ObjectCuts, ResourceIdentity } from "../core/state.ts";
import type { ListWatchObserver } from "../kube/list-watch.ts";
import type { Logger } from "../log.ts";
import type { SelfMetrics } from "../metrics/self-metrics.ts";

export class WatchTelemetry {
  readonly #metrics: SelfMetrics;
  readonly #logger: Logger;
  readonly #clock: () => number;
  readonly #labels: { group: string; version: string; kind: string };
  readonly #what: string;
  readonly #synced = new Set<string>();
  /** What a failure with this HTTP code means for this resource, added to its warning (e.g. a 403's missing grant). */
  readonly #hint: ((code: number) => string | undefined) | undefined;
  /** Value names whose unreadable value was logged (once each). */
  readonly #unreadableLogged = new Set<string>();
  /** Epoch seconds a failed CEL evaluation was last logged, per reason (at most once a minute each). */
  readonly #celLogged = new Map<string, number>();
  readonly #listed = new Set<string>();
  /** Bound counter children: every watch event passes here, so labels are not hashed each time. */
  readonly #eventCounters = new Map<string, { inc(): void }>();
  /** Epoch seconds of the newest confirmation per scope (absent: never listed). */
  readonly #confirmed = new Map<string, number>();
  readonly #dataTimestamp: { set(value: number): void };
  /** Who keeps this shard's objects, once a list asked with a shard selector said so. */
  #filter: "apiserver" | "exporter" | undefined;
  /** Until a watch opens and says otherwise: the bound without a transport's liveness check. */
  #staleAfterSeconds: number;
  /** The resource's data timestamp as last written: the oldest scope's confirmation. */
  #oldest = 0;
  #lastError: string | undefined;
  /** Epoch seconds since when the watch of some scope has been down (undefined: all up). */
  #downSince: number | undefined;
  /** The gauge values last written, so unchanged ones are not written again. */
  readonly #shown = { objects: 0, series: 0 };

  constructor(
    identity: ResourceIdentity,
    deps: {
      metrics: SelfMetrics;
      logger: Logger;
      clock: () => number;
      staleAfterSeconds: number;
      /** The kind's CEL expressions (their `field` labels): their error counters exist from the start. */
      celFields?: readonly string[];
      hint?: (code: number) => string | undefined;
    },
  ) {
    this.#hint = deps.hint;
    this.#metrics = deps.metrics;
    this.#logger = deps.logger;
    this.#clock = deps.clock;
    this.#staleAfterSeconds = deps.staleAfterSeconds;
    const { group, version, kind } = identity;
    this.#labels = { group, version, kind };
    this.#what = `${group}/${version}/${identity.resource}`;
    // Error counters exist from the start (at 0), so "no errors" is a value, not missing data.
    deps.metrics.handlerErrors.inc(this.#labels, 0);
    deps.metrics.seriesDropped.inc(this.#labels, 0);
    deps.metrics.labelValuesTruncated.inc(this.#labels, 0);
    deps.metrics.conditionsDropped.inc(this.#labels, 0);
    deps.metrics.valuesUnreadable.inc(this.#labels, 0);
    for (const field of deps.celFields ?? [])
      for (const reason of celFailures) deps.metrics.celErrors.inc({ ...this.#labels, field, reason }, 0);
    // Timestamps exist from the start too: 0 says "nothing yet", and alerts on
    // `time() - …` see a resource that never delivered anything.
    deps.metrics.lastEvent.set(this.#labels, 0);
    // Gauges of what is held exist from the start as well, which also fixes
    // their order on /metrics to the order resources were configured: two
    // replicas answer line for line alike whichever resource lists first.
    deps.metrics.synced.set(this.#labels, 0);
    deps.metrics.objects.set(this.#labels, 0);
    deps.metrics.series.set(this.#labels, 0);
    this.#dataTimestamp = deps.metrics.dataTimestamp.labels(this.#labels);
    this.#dataTimestamp.set(0);
  }

  get labels(): { group: string; version: string; kind: string } {
    return this.#labels;
  }

  get lastError(): string | undefined {
    return this.#lastError;
  }

  listedAll(scopes: readonly string[]): boolean {
    return scopes.every((s) => this.#listed.has(s));
  }

  syncedAll(scopes: readonly string[]): boolean {
    return scopes.every((s) => this.#synced.has(s));
  }

  /** Objects held and series rendered, after every event: the client library's set() is not free, so only changes are written. */
  held(objects: number, series: number): void {
    if (objects !== this.#shown.objects) {
      this.#shown.objects = objects;
      this.#metrics.objects.set(this.#labels, objects);
    }
    if (series !== this.#shown.series) {
      this.#shown.series = series;
      this.#metrics.series.set(this.#labels, series);
    }
  }

  /** A full list of `scope` finished. */
  listFinished(scope: string, scopes: readonly string[]): void {
    this.#listed.add(scope);
    const now = this.#clock();
    this.#metrics.lastSync.set(this.#labels, now);
    this.#confirm(scope, scopes, now);
  }

  /** The data of `scope` is current as of `now`. */
  #confirm(scope: string, scopes: readonly string[], now: number): void {
    const before = this.#confirmed.get(scope);
    this.#confirmed.set(scope, now);
    if (scopes.length === 1) {
      this.#oldest = now;
      this.#dataTimestamp.set(now);
      return;
    }
    // Only the oldest scope moving can move the minimum: rescans stay rare.
    if (before !== undefined && before > this.#oldest) return;
    let oldest = Number.POSITIVE_INFINITY;
    for (const s of scopes) oldest = Math.min(oldest, this.#confirmed.get(s) ?? 0);
    if (oldest !== this.#oldest) {
      this.#oldest = oldest;
      this.#dataTimestamp.set(oldest);
    }
  }

  /**
   * Whether the resource's data can be trusted now, and why not. Listed at
   * least once, and confirmed within the silence bound; a watch that is down
   * is reported, and turns the resource stale once its data is too old.
   */
  readiness(now: number): { ready: boolean; detail: string } {
    const error = this.#lastError ? `; last error: ${this.#lastError}` : "";
    if (this.#oldest === 0) return { ready: false, detail: `initial list in progress${error}` };
    const age = Math.max(0, Math.round(now - this.#oldest));
    const down =
      this.#downSince === undefined
        ? ""
        : `, watch down for ${Math.max(0, Math.round(now - this.#downSince))} s`;
    if (age > this.#staleAfterSeconds) {
      return {
        ready: false,
        detail: `stale: data not confirmed for ${age} s (more than ${this.#staleAfterSeconds} s)${down}${error}`,
      };
    }
    return { ready: true, detail: `synced, data ${age} s old${down}${down ? error : ""}` };
  }

  /**
   * What the projection cut from one object version (over-long label values,
   * conditions past the cap, values it could not read, CEL expressions that
   * failed). An unreadable value is logged as a warning the first time per
   * value name (a CRD whose field is not what the config says would
   * otherwise log on every event), then only counted; a failed expression at
   * most once a minute per reason.
   */
  cuts(cuts: ObjectCuts, object?: { namespace: string; name: string }): void {
    if (cuts.labelValues > 0) this.#metrics.labelValuesTruncated.inc(this.#labels, cuts.labelValues);
    if (cuts.conditions > 0) this.#metrics.conditionsDropped.inc(this.#labels, cuts.conditions);
    for (const error of cuts.celErrors ?? []) this.#celFailed(error, object);
    if (cuts.unreadableValues === 0) return;
    this.#metrics.valuesUnreadable.inc(this.#labels, cuts.unreadableValues);
    const first = cuts.firstUnreadable;
    if (first === undefined || this.#unreadableLogged.has(first.name)) return;
    this.#unreadableLogged.add(first.name);
    this.#logger.warn(
      "value not readable as a number: no series for it (counted in exporter_values_unreadable_total, logged once per value)",
      {
        resource: this.#what,
        value: first.name,
        reason: first.reason,
        ...(object ? { object: object.namespace ? `${object.namespace}/${object.name}` : object.name } : {}),
      },
    );
  }

  #celFailed(error: CelError, object?: { namespace: string; name: string }): void {
    this.#metrics.celErrors.inc({ ...this.#labels, field: error.field, reason: error.reason });
    const now = this.#clock();
    const last = this.#celLogged.get(error.reason);
    if (last !== undefined && now - last < 60) return;
    this.#celLogged.set(error.reason, now);
    this.#logger.warn(
      "CEL expression failed: readiness Unknown, or no series for the value (counted in exporter_cel_errors_total, logged at most once a minute per reason)",
      {
        resource: this.#what,
        field: error.field,
        reason: error.reason,
        error: error.message,
        ...(object ? { object: object.namespace ? `${object.namespace}/${object.name}` : object.name } : {}),
      },
    );
  }

  /** A malformed object (or a failing side effect): counted and logged, never fatal. */
  objectSkipped(error: unknown, what = "object skipped"): void {
    this.#metrics.handlerErrors.inc(this.#labels);
    this.#logger.debug(what, {
      resource: this.#what,
      error: error instanceof Error ? error.message : String(error),
    });
  }

  observer(scope: string, scopes: readonly string[], objects: () => number): ListWatchObserver {
    const m = this.#metrics;
    const log = this.#logger;
    const what = `${this.#what}${scope ? ` in ${scope}` : ""}`;
    const lastEvent = m.lastEvent.labels(this.#labels);
    return {
      synced: (synced) => {
        const was = this.syncedAll(scopes);
        if (synced) {
          this.#synced.add(scope);
          this.#lastError = undefined;
          // The watch opened: the server accepted the resourceVersion, so what is held is current.
          this.#confirm(scope, scopes, this.#clock());
        } else this.#synced.delete(scope);
        const all = this.syncedAll(scopes);
        m.synced.set(this.#labels, all ? 1 : 0);
        if (all) this.#downSince = undefined;
        else if (synced === false && this.#listed.size > 0) this.#downSince ??= this.#clock();
        if (all && !was) log.info("resource synced", { resource: what, objects: objects() });
      },
      alive: () => this.#confirm(scope, scopes, this.#clock()),
      silenceBound: (ms) => {
        this.#staleAfterSeconds = ms / 1000;
      },
      relist: (reason) => {
        m.relists.inc({ ...this.#labels, reason });
        if (reason !== "initial") log.info("relisting", { resource: what, reason });
      },
      shardSelector: (outcome) => this.#shardFilter(what, outcome),
      listDuration: (seconds, count) => {
        m.listDuration.observe(this.#labels, seconds);
        log.debug("list finished", { resource: what, objects: count, seconds });
      },
      watchEvent: (type) => {
        let counter = this.#eventCounters.get(type);
        if (!counter) {
          counter = m.watchEvents.labels({ ...this.#labels, type });
          this.#eventCounters.set(type, counter);
        }
        counter.inc();
        const now = this.#clock();
        lastEvent.set(now);
        this.#confirm(scope, scopes, now);
      },
      error: (operation, code, error) => {
        m.watchErrors.inc({ ...this.#labels, operation, code: String(code) });
        const message = `${operation} failed${code ? ` (HTTP ${code})` : ""}: ${error instanceof Error ? error.message : String(error)}`;
        // One warning per kind of failure; repeats of the same one (retries) go to debug.
        const level = message === this.#lastError ? "debug" : "warn";
        this.#lastError = message;
        const hint = level === "warn" ? this.#hint?.(code) : undefined;
        log[level](`${operation} failed`, { resource: what, code, error: message, ...(hint && { hint }) });
      },
      handlerError: (error) => this.objectSkipped(error),
    };
  }

  /** The resource is no longer watched: its per-resource gauges go. */
  remove(): void {
    const m = this.#metrics;
    for (const gauge of [m.synced, m.objects, m.series, m.lastEvent, m.lastSync, m.dataTimestamp])
      gauge.remove(this.#labels);
    for (const filter of ["apiserver", "exporter"]) m.shardFilter.remove({ ...this.#labels, filter });
  }

  /** After a sharded list: who keeps the shard's objects, said once per change. */
  #shardFilter(what: string, outcome: "applied" | "ignored" | "refused" | "unasked"): void {
    const filter = outcome === "applied" ? "apiserver" : "exporter";
    if (filter === this.#filter) return;
    const m = this.#metrics.shardFilter;
    if (this.#filter) m.remove({ ...this.#labels, filter: this.#filter });
    m.set({ ...this.#labels, filter }, 1);
    this.#filter = filter;
    if (outcome === "applied")
      this.#logger.info("the apiserver sends this shard's objects only", { resource: what });
    else if (outcome === "unasked")
      this.#logger.info("this shard receives every object and keeps its own", {
        resource: what,
        why: "sharding.filter: exporter",
      });
    else
      this.#logger.info("the apiserver sends every object; this shard keeps its own", {
        resource: what,
        why:
          outcome === "refused"
            ? "it refused the shard selector"
            : "it ignored the shard selector (no ShardedListAndWatch)",
      });
  }
}
