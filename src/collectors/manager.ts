// Keeps one ResourceCollector running per selected resource type. It watches
// CRDs (so resource types installed after start, deleted, or re-installed are
// followed) and re-plans on every CRD change, every configuration reload and
// every change of a kind's detected status shape (learned from its first
// objects). A failing resource type only affects itself.
import type { Config } from "../config/schema.ts";
import { type CrdSummary, summarizeCrd } from "../core/detect/crd.ts";
import { shapeLogFields } from "../core/detect/describe.ts";
import type { VersionDetection } from "../core/detect/schema.ts";
import type { DetectedShape } from "../core/detect/shape.ts";
import type { TraceRecord } from "../core/entry.ts";
import { type FamilySelection, sameSelection, selectFamilies } from "../core/series/family-selection.ts";
import { ListWatch } from "../kube/list-watch.ts";
import type { Logger } from "../log.ts";
import { type CollectorDeps, type CollectorSettings, ResourceCollector } from "./resource-collector.ts";
import { type CollectorPlan, missingExplicit, planFromCrds, planStatic, settingsFor } from "./selection.ts";
import { decisionOf, ShapeLearner } from "./shape-learner.ts";
import { WarningEvents } from "./warning-events.ts";
import { describeOverLimit, fitWatchLimit } from "./watch-budget.ts";

export interface ResourceReadiness {
  resource: string;
  /** Listed, and its data confirmed current within the silence bound. */
  ready: boolean;
  /** "synced, data 12 s old", or why it is not ready (initial list, stale, last error). */
  detail: string;
}

export interface Readiness {
  ready: boolean;
  resources: ResourceReadiness[];
  /** Explicitly configured resources whose CRD is not installed (not a readiness failure). */
  missing: string[];
  crds: { synced: boolean; error: string | undefined } | undefined;
  /** Set while the API proxy process has not answered yet (under the supervisor): why /readyz waits. */
  apiProxy?: string | undefined;
  /** Set when the matched resources need more list/watches than allowed (some are not watched). */
  overLimit: string | undefined;
}

interface Running {
  plan: CollectorPlan;
  prefix: string;
  selection: FamilySelection;
  collector: ResourceCollector;
}

export class CollectorManager {
  readonly #deps: CollectorDeps;
  readonly #logger: Logger;
  readonly #crds = new Map<string, CrdSummary>();
  readonly #running = new Map<string, Running>();
  /** Detection per `crd name/version` being watched: survives collector restarts. */
  readonly #learners = new Map<string, ShapeLearner>();
  #config: Config | undefined;
  #crdWatch: ListWatch | undefined;
  #crdListed = false;
  #crdError: string | undefined;
  #crdMark = new Set<string>();
  #overLimit: string | undefined;
  /** Configured resources last logged as not installed (#logMissing). */
  #missingLogged = new Set<string>();
  #queue: Promise<void> = Promise.resolve();
  /** The Warning events watch (warningEvents.enabled), following the running collectors' kinds and namespaces. */
  #warnings: WarningEvents | undefined;
  /** The running collectors by `${group}/${kind}`, for the Warning events to find theirs. */
  #byKind = new Map<string, ResourceCollector>();

  constructor(deps: CollectorDeps) {
    this.#deps = deps;
    this.#logger = deps.logger;
  }

  collectors(): ResourceCollector[] {
    return [...this.#running.values()].map((r) => r.collector);
  }

  /** Applies a (new) configuration: starts, restarts and stops collectors as needed. */
  applyConfig(config: Config): Promise<void> {
    const previous = this.#config;
    this.#config = config;
    if (config.crdDiscovery && !this.#crdWatch) this.#startCrdWatch();
    if (!config.crdDiscovery && this.#crdWatch) {
      const watch = this.#crdWatch;
      this.#crdWatch = undefined;
      // Stryker disable next-line CallExpression: nothing reads the set before the next full list, whose sweep drops what it does not return; clearing only frees memory
      this.#crds.clear();
      // Turned on again, nothing is known until the CRDs are listed anew: until
      // then no collector is stopped and nothing reads as missing.
      this.#crdListed = false;
      this.#crdError = undefined;
      void watch.stop();
    }
    if (previous && previous.metricPrefix !== config.metricPrefix) this.#logger.info("metric prefix changed");
    return this.#reconcile();
  }

  readiness(): Readiness {
    const resources = [...this.#running.values()].map(({ collector }) => {
      const s = collector.status();
      const id = collector.identity;
      return { resource: `${id.resource}.${id.group}/${id.version}`, ready: s.ready, detail: s.detail };
    });
    const crds = this.#config?.crdDiscovery ? { synced: this.#crdListed, error: this.#crdError } : undefined;
    // Until CRDs could be listed nothing is known to be missing: a forbidden
    // list must not read as "not installed".
    const missing =
      this.#config?.crdDiscovery && this.#crdListed
        ? missingExplicit(this.#config.resources, this.#crds.values())
        : [];
    return {
      ready:
        (crds === undefined || crds.synced) &&
        this.#overLimit === undefined &&
        resources.every((r) => r.ready),
      resources,
      missing,
      crds,
      overLimit: this.#overLimit,
    };
  }

  async stop(): Promise<void> {
    await this.#crdWatch?.stop();
    this.#crdWatch = undefined;
    await this.#queue;
    await this.#warnings?.stop();
    this.#warnings = undefined;
    const nowMs = this.#deps.clock() * 1000;
    for (const r of this.#running.values()) r.collector.interruptTraces(nowMs);
    await Promise.all([...this.#running.values()].map((r) => r.collector.stop()));
    this.#running.clear();
  }

  /** The tracing clock's tick: every collector ends the root spans whose timeout has passed. */
  tickTraces(nowMs: number): void {
    for (const r of this.#running.values()) r.collector.tickTraces(nowMs);
  }

  /** Objects with an open root span, over every collector. */
  get openTraces(): number {
    let open = 0;
    for (const r of this.#running.values()) open += r.collector.openTraces;
    return open;
  }

  #startCrdWatch(): void {
    const log = this.#logger;
    const schedule = (): void => {
      void this.#reconcile();
    };
    this.#crdWatch = new ListWatch(
      this.#deps.client,
      {
        listStarted: () => {
          this.#crdMark = new Set();
        },
        listed: (raw) => {
          const crd = summarizeCrd(raw);
          if (!crd) return;
          this.#crdMark.add(crd.name);
          this.#crds.set(crd.name, crd);
        },
        listFinished: () => {
          for (const name of [...this.#crds.keys()]) if (!this.#crdMark.has(name)) this.#crds.delete(name);
          this.#crdListed = true;
          schedule();
        },
        event: (type, raw) => {
          const crd = summarizeCrd(raw);
          if (!crd) return;
          if (type === "DELETED") this.#crds.delete(crd.name);
          else this.#crds.set(crd.name, crd);
          schedule();
        },
      },
      {
        synced: (synced) => {
          if (synced) this.#crdError = undefined;
        },
        relist: () => {},
        listDuration: () => {},
        watchEvent: () => {},
        error: (operation, code, error) => {
          this.#crdError = `${operation} customresourcedefinitions failed${code ? ` (HTTP ${code})` : ""}: ${
            error instanceof Error ? error.message : String(error)
          }`;
          log.warn("cannot watch CRDs", { error: this.#crdError });
        },
        handlerError: (error) => log.warn("CRD skipped", { error: String(error) }),
      },
      {
        path: "/apis/apiextensions.k8s.io/v1/customresourcedefinitions",
        ...this.#deps.listWatch,
        pageSize: 100,
      },
    );
    this.#crdWatch.start();
  }

  /**
   * A new shard assignment: every collector drops the objects no longer its
   * own and, when `relist`, lists again to take the ones it gained. In the
   * plan queue, so it never interleaves with starting or stopping collectors.
   */
  reshard(relist: boolean): Promise<void> {
    const now = async (): Promise<void> => {
      await Promise.all([...this.#running.values()].map((r) => r.collector.reshard(relist)));
    };
    this.#queue = this.#queue.then(now, now);
    return this.#queue;
  }

  /**
   * A configured resource whose CRD is not installed is logged once when it
   * goes missing and once when it appears (/readyz lists it meanwhile), not
   * on every CRD event.
   */
  #logMissing(missing: readonly string[]): void {
    const now = new Set(missing);
    for (const resource of now) {
      if (!this.#missingLogged.has(resource))
        this.#logger.warn("configured resource's CRD is not installed; watched once it is", { resource });
    }
    for (const resource of this.#missingLogged) {
      if (!now.has(resource)) this.#logger.info("configured resource's CRD is installed", { resource });
    }
    this.#missingLogged = now;
  }

  /** Serialized: plans never interleave, so a collector is never started twice. */
  #reconcile(): Promise<void> {
    this.#queue = this.#queue.then(
      () => this.#reconcileNow(),
      () => this.#reconcileNow(),
    );
    return this.#queue;
  }

  /** The collectors the configuration and the CRDs ask for, within the watch limit (what is over it is logged once). */
  #plans(config: Config): CollectorPlan[] {
    const used = new Set<string>();
    const budget = fitWatchLimit(
      config.crdDiscovery
        ? planFromCrds(config.resources, this.#crds.values(), (crd, version) => {
            const learner = this.#learner(crd, version);
            used.add(`${crd.name}/${version.version}`);
            return learner.shape;
          })
        : planStatic(config.resources),
    );
    for (const key of [...this.#learners.keys()]) if (!used.has(key)) this.#learners.delete(key);
    const overLimit = budget.skipped.length > 0 ? describeOverLimit(budget) : undefined;
    if (overLimit !== undefined && overLimit !== this.#overLimit)
      this.#logger.error("watch limit reached", { error: overLimit });
    this.#overLimit = overLimit;
    return budget.kept;
  }

  async #reconcileNow(): Promise<void> {
    const config = this.#config;
    if (!config) return;
    if (config.crdDiscovery && !this.#crdListed) return;
    if (config.crdDiscovery) this.#logMissing(missingExplicit(config.resources, this.#crds.values()));
    const plans = this.#plans(config);
    const wanted = new Map(plans.map((p) => [p.key, p]));
    const inheritedTraces = new Map<string, Map<string, TraceRecord>>();

    for (const [key, running] of [...this.#running]) {
      const next = wanted.get(key);
      if (next && next.fingerprint === running.plan.fingerprint) {
        // Same watch: new readiness rules re-judge, a new family selection or
        // prefix re-renders what is held.
        const prefix = config.metricPrefix;
        const selection = selectFamilies(prefix, [config.metrics, next.options.metrics]);
        if (next.judging !== running.plan.judging) {
          running.collector.rejudge(this.#settings(next, prefix, running.selection));
          this.#logger.info("resource judged again", { resource: key, ...next.info });
        }
        if (!sameSelection(selection, running.selection) || running.prefix !== prefix) {
          running.collector.reselect(selection, prefix);
          this.#logger.info("resource re-rendered for a new metric selection", { resource: key });
        }
        this.#running.set(key, { ...running, plan: next, prefix, selection });
        continue;
      }
      this.#running.delete(key);
      // A reconfigured resource's new collector takes up what tracing kept of its objects.
      if (next) inheritedTraces.set(key, running.collector.traceRecords());
      await running.collector.stop(!next);
      this.#logger.info(next ? "resource reconfigured" : "resource no longer watched", { resource: key });
    }
    for (const [key, plan] of wanted) {
      if (this.#running.has(key)) continue;
      const selection = selectFamilies(config.metricPrefix, [config.metrics, plan.options.metrics]);
      const learner = this.#learnerOf(plan);
      const collector = new ResourceCollector(
        this.#settings(plan, config.metricPrefix, selection),
        this.#deps,
        learner?.shape.learning ? learner : undefined,
        inheritedTraces.get(key),
      );
      this.#running.set(key, { plan, prefix: config.metricPrefix, selection, collector });
      collector.start();
      this.#logger.info("watching resource", {
        resource: key,
        version: plan.identity.version,
        kind: plan.identity.kind,
        statusSubresource: plan.statusSubresource,
        // How its objects are read and judged, and (detected) why.
        ...plan.info,
        ...(plan.shape && { detected: shapeLogFields(plan.shape) }),
      });
    }
    await this.#syncWarnings(config);
  }

  /**
   * The Warning events watch after a plan: on while enabled and some
   * resource is watched, over the whole cluster unless every resource is
   * restricted to namespaces (then over their union).
   */
  async #syncWarnings(config: Config): Promise<void> {
    const collectors = [...this.#running.values()].map((r) => r.collector);
    this.#byKind = new Map();
    for (const c of collectors) {
      const key = `${c.identity.group}/${c.identity.kind}`;
      if (!this.#byKind.has(key)) this.#byKind.set(key, c);
    }
    if (!config.warningEvents.enabled || collectors.length === 0) {
      await this.#warnings?.stop();
      this.#warnings = undefined;
      return;
    }
    const restricted = collectors.every((c) => !c.scopes.includes(""));
    const scopes = restricted ? [...new Set(collectors.flatMap((c) => c.scopes))].sort() : [""];
    this.#warnings ??= new WarningEvents(this.#deps, (group, kind) => this.#byKind.get(`${group}/${kind}`));
    await this.#warnings.configure({ maxReasons: config.warningEvents.maxReasons, scopes });
  }

  #learnerOf(plan: CollectorPlan): ShapeLearner | undefined {
    // A CRD's name is always <plural>.<group>.
    const { resource, group, version } = plan.identity;
    return this.#learners.get(`${resource}.${group}/${version}`);
  }

  /** The learner of one CRD version; a new one when the version's schema changed. */
  #learner(crd: CrdSummary, version: VersionDetection): ShapeLearner {
    const key = `${crd.name}/${version.version}`;
    const existing = this.#learners.get(key);
    if (existing && existing.schemaKey === JSON.stringify(version)) return existing;
    const learner = new ShapeLearner(version, (previous, next) => this.#shapeChanged(key, previous, next));
    this.#learners.set(key, learner);
    return learner;
  }

  /** Objects changed what detection decided for a kind: logged, and the plans are made again. */
  #shapeChanged(key: string, previous: DetectedShape, next: DetectedShape): void {
    this.#logger.info("status shape decision changed", {
      crd: key,
      from: JSON.parse(decisionOf(previous)),
      to: shapeLogFields(next),
    });
    void this.#reconcile();
  }

  #settings(plan: CollectorPlan, prefix: string, selection: FamilySelection): CollectorSettings {
    return settingsFor(plan, prefix, selection);
  }
}
