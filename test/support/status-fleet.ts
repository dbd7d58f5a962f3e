// A fixed fleet of object views like the demo's, for tests of the status page
// and the API: healthy widgets, one stuck on ImagePullBackOff, one flapping,
// one waiting for its spec change, one stuck terminating, a cluster-scoped
// gadget, and one whose condition message is an HTML/script injection.
import type { ObjectView, TransitionRecord } from "../../src/status/view.ts";
import { condition, view, viewNow } from "./views.ts";

/** Calls `__xss(...)` if it ever runs as markup instead of being shown as text. */
export const xssMessage = `pull failed: <script>__xss("script")</script><img src="x" onerror="__xss('img')"> & "quoted"`;

function flips(count: number): TransitionRecord[] {
  return Array.from({ length: count }, (_, i) => ({
    at: viewNow - 600 + i * 60,
    what: "condition" as const,
    type: "Ready",
    from: i % 2 ? "False" : "True",
    to: i % 2 ? "True" : "False",
    reason: i % 2 ? "Ready" : "HealthCheckFailed",
    message: "",
  }));
}

export function statusFleet(): ObjectView[] {
  const healthy = ["alpha", "bravo", "charlie", "delta", "echo", "foxtrot", "golf", "hotel", "india"].map(
    (name, i) =>
      view({
        name: `${name}-widget`,
        namespace: i % 2 ? "search" : "shop",
        labels: { app: i % 2 ? "search" : "shop" },
      }),
  );
  return [
    ...healthy,
    view({
      name: "stuck-widget",
      result: "Failed",
      ready: condition("Ready", "False", {
        reason: "ImagePullBackOff",
        message: 'Back-off pulling image "registry.example.com/shop/widget:v2"',
        since: viewNow - 3 * 3600,
      }),
      generation: 2,
      observedGeneration: 2,
      createdAt: viewNow - 4 * 3600,
      recentTransitions: [
        {
          at: viewNow - 3 * 3600,
          what: "condition",
          type: "Ready",
          from: "True",
          to: "False",
          reason: "ImagePullBackOff",
        },
      ],
      traceId: "4bf92f3577b34da6a3ce929d0e0e4736",
      warning: {
        reason: "Failed",
        message: 'Failed to pull image "registry.example.com/shop/widget:v2": manifest unknown',
        at: viewNow - 45,
      },
    }),
    view({
      name: "flappy-widget",
      namespace: "search",
      transitionsInWindow: 8,
      recentTransitions: flips(8),
      result: "InProgress",
      ready: condition("Ready", "False", {
        reason: "HealthCheckFailed",
        message: "probe timed out",
        since: viewNow - 30,
      }),
    }),
    view({
      name: "slow-widget",
      namespace: "search",
      result: "InProgress",
      generation: 5,
      observedGeneration: 4,
      generationRequestedAt: viewNow - 1200,
    }),
    view({
      name: "leaving-widget",
      result: "Terminating",
      terminatingSince: viewNow - 5400,
      ready: condition("Ready", "False", {
        reason: "FinalizerPending",
        message: "waiting for backup/cleanup",
      }),
    }),
    view({
      name: "injected-widget",
      namespace: "shop",
      result: "Failed",
      ready: condition("Ready", "False", {
        reason: "ErrImagePull",
        message: xssMessage,
        since: viewNow - 900,
      }),
    }),
    view({
      name: "edge-gadget",
      group: "ops.example.com",
      kind: "Gadget",
      namespace: "",
      result: "Unknown",
      ready: undefined,
      createdAt: viewNow - 200,
    }),
  ];
}
