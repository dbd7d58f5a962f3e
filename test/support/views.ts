// Builders for ObjectView values in tests: a Ready widget unless told otherwise.
import type { ConditionView, ObjectView, ViewSource } from "../../src/status/view.ts";

export const viewNow = 1_800_000_000;

export function condition(
  type: string,
  status: ConditionView["status"],
  extra: Partial<ConditionView> = {},
): ConditionView {
  return {
    type,
    status,
    reason: extra.reason ?? "",
    message: "",
    since: viewNow - 3600,
    sinceSource: "lastTransitionTime",
    observedGeneration: undefined,
    ...extra,
  };
}

export function view(init: Partial<ObjectView> & { name: string }): ObjectView {
  const ready = init.ready === undefined && !("ready" in init) ? condition("Ready", "True") : init.ready;
  return {
    group: "example.com",
    version: "v1",
    kind: "Widget",
    // Kubernetes' default plural: the kind in lower case with an s.
    resource: `${(init.kind ?? "Widget").toLowerCase()}s`,
    namespace: "shop",
    uid: `uid-${init.namespace ?? "shop"}-${init.name}`,
    labels: {},
    result: "Current",
    conditions: ready ? [ready] : [],
    phase: undefined,
    generation: 1,
    observedGeneration: 1,
    generationRequestedAt: viewNow - 7200,
    createdAt: viewNow - 7200,
    terminatingSince: undefined,
    transitionsInWindow: 0,
    recentTransitions: [],
    traceId: undefined,
    warning: undefined,
    ...init,
    ready,
  };
}

/** An in-memory source over `views`; a test may push to the array to change what it serves. */
export function fixedSource(views: ObjectView[], now = viewNow): ViewSource {
  return {
    kinds: () => [
      ...new Map(
        views.map((v) => [
          `${v.group}/${v.kind}`,
          { group: v.group, version: v.version, kind: v.kind, resource: v.resource },
        ]),
      ).values(),
    ],
    objects: () => views.values(),
    get: (uid) => views.find((v) => v.uid === uid),
    now: () => now,
  };
}
