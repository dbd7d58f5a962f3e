// Builders for raw custom-resource objects, as the API would return them.
import { createHash } from "node:crypto";

/**
 * A deterministic uid that looks random, as the apiserver's (v4) are: shards
 * by range of the uid hash need spread-out hashes (uid-w1, uid-w2… hash into
 * one range).
 */
export function spreadUid(i: number): string {
  const h = createHash("sha256").update(String(i)).digest("hex");
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-8${h.slice(17, 20)}-${h.slice(20, 32)}`;
}
export interface RawCondition {
  type: string;
  status: string;
  reason?: string;
  message?: string;
  lastTransitionTime?: string;
  observedGeneration?: number;
  /** A volatile stamp (Deployment-style conditions), for no-op write tests. */
  lastUpdateTime?: string;
}

export interface WidgetInit {
  name?: string;
  namespace?: string;
  uid?: string;
  resourceVersion?: string;
  generation?: number;
  creationTimestamp?: string;
  deletionTimestamp?: string;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
  managedFields?: unknown[];
  /** Merged over the default spec ({ size: 1 }). */
  spec?: Record<string, unknown>;
  status?: Record<string, unknown>;
}

export function widget(init: WidgetInit = {}): Record<string, unknown> {
  const metadata: Record<string, unknown> = {
    name: init.name ?? "w1",
    namespace: init.namespace ?? "ns1",
    uid: init.uid ?? `uid-${init.name ?? "w1"}`,
    resourceVersion: init.resourceVersion ?? "1",
    generation: init.generation ?? 1,
    creationTimestamp: init.creationTimestamp ?? "2026-01-01T00:00:00Z",
  };
  if (init.deletionTimestamp) metadata.deletionTimestamp = init.deletionTimestamp;
  if (init.labels) metadata.labels = init.labels;
  if (init.annotations) metadata.annotations = init.annotations;
  if (init.managedFields) metadata.managedFields = init.managedFields;
  const object: Record<string, unknown> = {
    apiVersion: "example.com/v1",
    kind: "Widget",
    metadata,
    spec: { size: 1, ...init.spec },
  };
  if (init.status) object.status = init.status;
  return object;
}

export function cond(
  type: string,
  status: string,
  at = "2026-01-01T00:01:00Z",
  extra: Partial<RawCondition> = {},
): RawCondition {
  return {
    type,
    status,
    reason: extra.reason ?? "Because",
    message: extra.message ?? "",
    lastTransitionTime: at,
    ...extra,
  };
}

/** Unix seconds of an RFC 3339 time, for expectations. */
export function t(iso: string): number {
  return Date.parse(iso) / 1000;
}
