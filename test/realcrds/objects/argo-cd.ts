// Argo CD Application: no conditions in the kstatus sense (its
// status.conditions are error entries with no status), health in
// status.health.status and sync in status.sync.status, the last sync
// operation in status.operationState; no status subresource. "Suspended" is a
// health status (a paused rollout inside the app), not a spec switch.
import { type DraftBuilder, type DraftClock, times } from "./drafts.ts";

const source = { repoURL: "https://git.example/fleet.git", path: "apps/shop", targetRevision: "main" };
const destination = { server: "https://kubernetes.default.svc", namespace: "shop" };
const spec = {
  project: "default",
  source,
  destination,
  syncPolicy: { automated: { prune: true, selfHeal: true } },
};
const revision = "6f8e9c3b2a1d4e5f60718293a4b5c6d7e8f90a1b";

type Health = "Healthy" | "Progressing" | "Degraded" | "Suspended";
type Phase = "Running" | "Succeeded" | "Failed" | "Error";

function status(
  clock: DraftClock,
  health: Health,
  sync: "Synced" | "OutOfSync",
  phase: Phase,
  since: string,
) {
  const t = times(clock);
  const resource = (health: Health) => ({
    group: "apps",
    version: "v1",
    kind: "Deployment",
    namespace: "shop",
    name: "web",
    status: sync,
    health: { status: health },
  });
  const operation: Record<string, unknown> = {
    operation: { sync: { revision, prune: true }, initiatedBy: { automated: true }, retry: { limit: 5 } },
    phase,
    message:
      phase === "Succeeded"
        ? "successfully synced (all tasks run)"
        : phase === "Running"
          ? "waiting for healthy state of apps/Deployment/web"
          : 'one or more objects failed to apply, reason: Deployment.apps "web" is invalid',
    startedAt: since,
    syncResult: {
      revision,
      source,
      resources: [
        {
          group: "apps",
          version: "v1",
          kind: "Deployment",
          namespace: "shop",
          name: "web",
          status: phase === "Succeeded" ? "Synced" : "SyncFailed",
          syncPhase: "Sync",
        },
      ],
    },
  };
  if (phase !== "Running") operation.finishedAt = since;
  return {
    health: { status: health, lastTransitionTime: since },
    sync: { status: sync, revision, comparedTo: { source, destination } },
    operationState: operation,
    reconciledAt: t.recent,
    resources: [resource(health)],
    sourceType: "Directory",
    summary: { images: ["registry.example/shop/web:2.0.0"] },
    history: [
      {
        id: 0,
        revision,
        deployStartedAt: since,
        deployedAt: since,
        source,
        initiatedBy: { automated: true },
      },
    ],
    controllerNamespace: "argocd",
  };
}

export const application: DraftBuilder = (clock) => {
  const t = times(clock);
  const failed = status(clock, "Degraded", "OutOfSync", "Failed", t.failedLongAgo);
  return [
    {
      scenario: "healthy",
      about: "Healthy and Synced",
      spec,
      status: status(clock, "Healthy", "Synced", "Succeeded", t.settled),
    },
    {
      scenario: "progressing",
      about: "a sync is running, the rollout not yet healthy",
      spec,
      status: status(clock, "Progressing", "Synced", "Running", t.recent),
    },
    {
      scenario: "failed",
      about: "the sync failed and the app is Degraded",
      spec,
      status: {
        ...failed,
        conditions: [
          {
            type: "SyncError",
            message: 'Failed to sync: Deployment.apps "web" is invalid',
            lastTransitionTime: t.failedLongAgo,
          },
        ],
      },
    },
    {
      scenario: "suspended",
      about: "health Suspended: a paused rollout inside the app",
      spec,
      status: status(clock, "Suspended", "Synced", "Succeeded", t.settled),
    },
    {
      scenario: "terminating",
      about: "deleted with the cascading-delete finalizer",
      finalizers: ["resources-finalizer.argocd.argoproj.io"],
      spec,
      status: status(clock, "Healthy", "Synced", "Succeeded", t.settled),
    },
  ];
};
