// The exporter's view of one resource's list/watch loops, in one place: it is
// the loops' observer (like kube-state-metrics' instrumented lister-watcher),
// so every list, watch event, error and skipped object is counted and logged
// here and nowhere else. It also answers readiness questions (listed, synced,
// last error) for the resource.
import type { ResourceIdentity } from "../core/state.ts";
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
  readonly #listed = new Set<string>();
  /** Bound counter children: every watch event passes here, so labels are not hashed each time. */
  readonly #eventCounters = new Map<string, { inc(): void }>();
  #lastError: string | undefined;
  /** The gauge values last written, so unchanged ones are not written again. */
  readonly #shown = { objects: -1, series: -1 };

  constructor(
    identity: ResourceIdentity,
    deps: { metrics: SelfMetrics; logger: Logger; clock: () => number },
  ) {
    this.#metrics = deps.metrics;
    this.#logger = deps.logger;
    this.#clock = deps.clock;
    const { group, version, kind } = identity;
    this.#labels = { group, version, kind };
    this.#what = `${group}/${version}/${identity.resource}`;
    // Error counters exist from the start (at 0), so "no errors" is a value, not missing data.
    deps.metrics.handlerErrors.inc(this.#labels, 0);
    deps.metrics.seriesDropped.inc(this.#labels, 0);
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
  listFinished(scope: string): void {
    this.#listed.add(scope);
    this.#metrics.lastSync.set(this.#labels, this.#clock());
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
        } else this.#synced.delete(scope);
        const now = this.syncedAll(scopes);
        m.synced.set(this.#labels, now ? 1 : 0);
        if (now && !was) log.info("resource synced", { resource: what, objects: objects() });
      },
      relist: (reason) => {
        m.relists.inc({ ...this.#labels, reason });
        if (reason !== "initial") log.info("relisting", { resource: what, reason });
      },
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
        lastEvent.set(this.#clock());
      },
      error: (operation, code, error) => {
        m.watchErrors.inc({ ...this.#labels, operation, code: String(code) });
        const message = `${operation} failed${code ? ` (HTTP ${code})` : ""}: ${error instanceof Error ? error.message : String(error)}`;
        // One warning per kind of failure; repeats of the same one (retries) go to debug.
        const level = message === this.#lastError ? "debug" : "warn";
        this.#lastError = message;
        log[level](`${operation} failed`, { resource: what, code, error: message });
      },
      handlerError: (error) => this.objectSkipped(error),
    };
  }

  /** The resource is no longer watched: its per-resource gauges go. */
  remove(): void {
    const m = this.#metrics;
    for (const gauge of [m.synced, m.objects, m.series, m.lastEvent, m.lastSync]) gauge.remove(this.#labels);
  }
}
