// The pure parts of a collector: the kind settings the core judges and renders
// its objects with, the path of a scope (a namespace, or "" for the whole
// cluster) and the handler that turns a full list into applies plus a sweep of
// the objects the list no longer returned.
import type { KindSettings } from "../core/change/object-update.ts";
import { newKindRender } from "../core/series/render.ts";
import type { ResourceIdentity } from "../core/state.ts";
import type { ListWatchHandler } from "../kube/list-watch.ts";
import type { CollectorSettings } from "./collector-settings.ts";

/** What the core needs to judge and render this resource's objects (no renderer in aggregate mode). */
export function kindSettingsFor(settings: CollectorSettings): KindSettings {
  const { group, kind } = settings.identity;
  return {
    ...settings.kind,
    render:
      settings.mode === "objects"
        ? newKindRender({
            group,
            kind,
            prefix: settings.prefix,
            selected: settings.selection.objects,
            extraLabelNames: settings.extraLabelNames,
          })
        : undefined,
  };
}

/** The object's metadata.uid, when it has a usable one. */
export function uidOf(raw: unknown): string | undefined {
  const uid = (raw as { metadata?: { uid?: unknown } } | null)?.metadata?.uid;
  return typeof uid === "string" && uid !== "" ? uid : undefined;
}

/** The collection path of a resource in one scope ("" = all namespaces or cluster-scoped). */
export function listPath(identity: ResourceIdentity, scope: string): string {
  const base = `/apis/${identity.group}/${identity.version}`;
  return scope
    ? `${base}/namespaces/${encodeURIComponent(scope)}/${identity.resource}`
    : `${base}/${identity.resource}`;
}

export interface ScopeCallbacks {
  /** False for an object of another shard (passed over). */
  ours(raw: unknown): boolean;
  /** Applies a listed object; returns its uid. Throws for an object without identity. */
  apply(raw: unknown): string | undefined;
  skipped(error: unknown): void;
  /** The uids held in this scope, to sweep after a list. */
  heldIn(scope: string): Iterable<string>;
  remove(uid: string): void;
  listFinished(): void;
  event(type: "ADDED" | "MODIFIED" | "DELETED", object: unknown): void;
}

/** A list/watch handler for one scope: objects the new list did not return are removed when it finishes. */
export function scopeHandler(scope: string, on: ScopeCallbacks): ListWatchHandler {
  let seen = new Set<string>();
  return {
    listStarted: () => {
      seen = new Set();
    },
    listed: (object) => {
      if (!on.ours(object)) return;
      try {
        const uid = on.apply(object);
        if (uid !== undefined) seen.add(uid);
      } catch (error) {
        on.skipped(error);
      }
    },
    listFinished: () => {
      for (const uid of [...on.heldIn(scope)]) if (!seen.has(uid)) on.remove(uid);
      seen = new Set();
      on.listFinished();
    },
    event: (type, object) => on.event(type, object),
  };
}
