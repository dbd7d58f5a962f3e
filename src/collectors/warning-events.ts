// Kubernetes Warning events about the watched objects: one list/watch of
// events.k8s.io/v1 Events with the field selector type=Warning (the
// apiserver selects on type, reason and regarding.*; involvedObject.* is
// core/v1's only), over the whole cluster, or per namespace when every
// watched resource is restricted to namespaces. Each event whose `regarding`
// object is of a watched kind (group from its apiVersion, and kind) goes to
// that kind's collector, which counts it per kind and per object and keeps it
// as the object's latest warning; events about other kinds are dropped as
// they come, unremembered. What one version of an event adds is decided by
// the core (core/events/warning-event.ts: the count's increase, no history
// from before the watch started); the counts last seen are kept here,
// bounded. The loop has its own telemetry, like every watched resource
// (cr_exporter_watch_* with group events.k8s.io, kind Event), and a failure to
// list events (a 403 where RBAC lacks the grant) is logged once as a warning
// and counted there, never affecting the other resources or readiness.
import {
  EventMemory,
  projectWarningEvent,
  ReasonBound,
  type WarningEvent,
} from "../core/events/warning-event.ts";
import type { ResourceIdentity } from "../core/state.ts";
import { ListWatch, type ListWatchHandler, silenceBoundMs } from "../kube/list-watch.ts";
import type { CollectorDeps } from "./collector-settings.ts";
import { WatchTelemetry } from "./watch-telemetry.ts";

/** The events resource, as its telemetry labels it. */
export const eventsIdentity: ResourceIdentity = {
  group: "events.k8s.io",
  version: "v1",
  kind: "Event",
  resource: "events",
  namespaced: true,
};

/** What the Warning events are handed to: the collector of a watched kind. */
export interface WarningTarget {
  takesWarning(event: WarningEvent): boolean;
  warning(event: WarningEvent, reason: string, occurrences: number): void;
}

export interface WarningEventsSettings {
  /** Distinct reason labels per kind; later reasons are "other". */
  maxReasons: number;
  /** Namespaces to watch, each a list/watch of its own; [""]: the whole cluster. */
  scopes: readonly string[];
}

const forbiddenHint =
  "Warning events are not counted and no object shows its latest warning: grant list and watch on events.k8s.io events (every deploy form in deploy/ does), or set warningEvents.enabled: false; everything else keeps working";

export class WarningEvents {
  readonly #deps: CollectorDeps;
  /** The watched kind's collector, by `${group}/${kind}`; read at every event. */
  readonly #route: (group: string, kind: string) => WarningTarget | undefined;
  readonly #memory: EventMemory;
  readonly #reasons = new Map<string, ReasonBound>();
  readonly #telemetry: WatchTelemetry;
  #maxReasons = 0;
  #scopes: readonly string[] = [];
  #loops: ListWatch[] = [];

  constructor(deps: CollectorDeps, route: (group: string, kind: string) => WarningTarget | undefined) {
    this.#deps = deps;
    this.#route = route;
    // Occurrences are counted from now on: history is not (see the core's header).
    this.#memory = new EventMemory(deps.clock());
    this.#telemetry = new WatchTelemetry(eventsIdentity, {
      ...deps,
      staleAfterSeconds: silenceBoundMs(deps.listWatch ?? {}) / 1000,
      hint: (code) => (code === 403 ? forbiddenHint : undefined),
    });
  }

  /** Applies new settings: a new reason bound at once, new scopes by restarting the watch. */
  async configure(settings: WarningEventsSettings): Promise<void> {
    this.#maxReasons = settings.maxReasons;
    for (const bound of this.#reasons.values()) bound.limit = settings.maxReasons;
    if (sameScopes(this.#scopes, settings.scopes)) return;
    await this.#stopLoops();
    this.#scopes = [...settings.scopes];
    for (const scope of this.#scopes) {
      const observer = this.#telemetry.observer(scope, this.#scopes, () => this.#memory.size);
      const loop = new ListWatch(this.#deps.client, this.#handler(scope), observer, {
        path: scope
          ? `/apis/events.k8s.io/v1/namespaces/${encodeURIComponent(scope)}/events`
          : "/apis/events.k8s.io/v1/events",
        fieldSelector: "type=Warning",
        ...this.#deps.listWatch,
      });
      this.#loops.push(loop);
      loop.start();
    }
  }

  async stop(): Promise<void> {
    await this.#stopLoops();
    this.#telemetry.remove();
  }

  async #stopLoops(): Promise<void> {
    const loops = this.#loops;
    this.#loops = [];
    await Promise.all(loops.map((l) => l.stop()));
  }

  /** Events remembered (their last count), for tests and the objects gauge. */
  get remembered(): number {
    return this.#memory.size;
  }

  #handler(scope: string): ListWatchHandler {
    let listed = new Set<string>();
    return {
      listStarted: () => {
        listed = new Set();
      },
      listed: (raw) => {
        const uid = this.#take(raw, scope);
        if (uid !== undefined) listed.add(uid);
      },
      listFinished: () => {
        this.#memory.sweep(scope, listed);
        listed = new Set();
        this.#telemetry.listFinished(scope, this.#scopes);
        this.#held();
      },
      event: (type, raw) => {
        const uid = this.#take(raw, scope);
        // Gone (deleted, or its TTL passed): what it counted stays counted.
        if (type === "DELETED" && uid !== undefined) this.#memory.forget(uid);
        this.#held();
      },
    };
  }

  /** Counts one version of an event; returns its uid when it is about a watched object (and so remembered). */
  #take(raw: unknown, scope: string): string | undefined {
    const event = projectWarningEvent(raw);
    if (!event) return undefined;
    const target = this.#route(event.regarding.group, event.regarding.kind);
    if (!target?.takesWarning(event)) return undefined;
    const occurrences = this.#memory.occurrences(event, scope);
    // Only counted reasons take a place in the bound (not history seen at start).
    const reason = occurrences > 0 ? this.#bound(event).label(event.reason) : event.reason;
    target.warning(event, reason, occurrences);
    return event.uid;
  }

  #bound(event: WarningEvent): ReasonBound {
    const key = `${event.regarding.group}/${event.regarding.kind}`;
    let bound = this.#reasons.get(key);
    if (!bound) {
      bound = new ReasonBound(this.#maxReasons);
      this.#reasons.set(key, bound);
    }
    return bound;
  }

  #held(): void {
    this.#telemetry.held(this.#memory.size, 0);
  }
}

function sameScopes(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((s, i) => s === b[i]);
}
