// The running exporter's collectors as the status page's ViewSource: the
// kinds of the collectors running now, and a view per stored entry built on
// demand (nothing is kept beside the store). get() looks the uid up in each
// kind's store, which is keyed by uid: one Map lookup per watched kind. The
// result is the one the pipeline keeps current (cr_status shows the same), the
// generation-requested time is the core's memory, the transitions are the
// entry's ring, and the trace id from the entry's trace record through the
// tracer's seam: for get(), and through traceId() for the objects a page
// shows (it costs a sha256, too much for every object of every request).
import type { StatusPageConfig } from "../config/status-page.ts";
import type { ObjectEntry } from "../core/entry.ts";
import { toObjectView } from "../status/from-state.ts";
import type { KindRef, ObjectView, ViewSource } from "../status/view.ts";
import type { StateTracer } from "../tracing/state-tracer.ts";
import type { ResourceCollector } from "./resource-collector.ts";

export interface StoreViewSourceDeps {
  collectors: () => readonly Pick<ResourceCollector, "identity" | "settings" | "store">[];
  tracer: Pick<StateTracer, "traceIdFor"> | undefined;
  /** Read per request, so a reload of statusPage applies at once. */
  settings: () => Pick<StatusPageConfig, "flappingWindowSeconds">;
  /** Epoch seconds. */
  clock: () => number;
}

type Collector = ReturnType<StoreViewSourceDeps["collectors"]>[number];

export function storeViewSource(deps: StoreViewSourceDeps): ViewSource {
  const { tracer } = deps;

  function view(
    collector: Collector,
    entry: ObjectEntry,
    now: number,
    windowSeconds: number,
    withTrace: boolean,
  ): ObjectView {
    const { generation, uid } = entry.state;
    return toObjectView({
      identity: collector.identity,
      state: entry.state,
      status: collector.settings.kind.readiness,
      now,
      result: entry.summary,
      generationRequestedAt: entry.memory.requestedAt,
      ring: entry.ring,
      flappingWindowSeconds: windowSeconds,
      warning: entry.warning,
      traceId:
        withTrace && tracer && generation !== undefined
          ? tracer.traceIdFor(uid, entry.trace, generation)
          : undefined,
    });
  }

  return {
    kinds(): KindRef[] {
      return deps.collectors().map(({ identity: { group, version, kind, resource } }) => ({
        group,
        version,
        kind,
        resource,
      }));
    },
    *objects(): Iterable<ObjectView> {
      const now = deps.clock();
      const windowSeconds = deps.settings().flappingWindowSeconds;
      for (const collector of deps.collectors())
        for (const entry of collector.store.values()) yield view(collector, entry, now, windowSeconds, false);
    },
    get(uid: string): ObjectView | undefined {
      for (const collector of deps.collectors()) {
        const entry = collector.store.get(uid);
        if (entry) return view(collector, entry, deps.clock(), deps.settings().flappingWindowSeconds, true);
      }
      return undefined;
    },
    traceId(v: ObjectView): string | undefined {
      if (!tracer || v.generation === undefined) return undefined;
      const collector = deps
        .collectors()
        .find((c) => c.identity.group === v.group && c.identity.kind === v.kind);
      const entry = collector?.store.get(v.uid);
      return entry ? tracer.traceIdFor(v.uid, entry.trace, v.generation) : undefined;
    },
    now: deps.clock,
  };
}
