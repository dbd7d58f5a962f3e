// Flux: Ready / Reconciling / Stalled (kstatus-compatible) with an
// object-level observedGeneration and conditions that carry their own;
// spec.suspend pauses reconciliation and leaves the last status in place.
import { condition, type DraftBuilder, type ObjectDraft, times } from "./drafts.ts";

const finalizers = ["finalizers.fluxcd.io"];
const revision = "main@sha1:6f8e9c3b2a1d4e5f60718293a4b5c6d7e8f90a1b";
const digest = "sha256:2c26b46b68ffc68ff99b453c1d30413413422d706483bfa0f98a5e886266e7ae";

/** The five stages of a Flux object, given its healthy and failed statuses. */
function lifecycle(
  spec: Record<string, unknown>,
  healthy: Record<string, unknown>,
  progressing: Record<string, unknown>,
  failed: Record<string, unknown>,
  failure: string,
): ObjectDraft[] {
  return [
    { scenario: "healthy", about: "reconciled at the current revision", spec, status: healthy },
    { scenario: "progressing", about: "reconciliation in progress", spec, status: progressing },
    { scenario: "failed", about: failure, spec, status: failed },
    {
      scenario: "suspended",
      about: "suspended after a failure: the last status stays",
      spec: { ...spec, suspend: true },
      status: failed,
    },
    {
      scenario: "terminating",
      about: "deleted, finalizer not yet removed",
      finalizers,
      spec,
      status: healthy,
    },
  ];
}

function reconciling(clock: Parameters<DraftBuilder>[0], message: string) {
  const t = times(clock);
  return [
    condition("Reconciling", "True", "Progressing", message, t.recent, 1),
    condition("Ready", "Unknown", "Progressing", "Reconciliation in progress", t.recent, 1),
  ];
}

export const kustomization: DraftBuilder = (clock) => {
  const t = times(clock);
  const spec = {
    interval: "10m",
    path: "./apps/shop",
    prune: true,
    sourceRef: { kind: "GitRepository", name: "fleet" },
  };
  const applied = `Applied revision: ${revision}`;
  return lifecycle(
    spec,
    {
      observedGeneration: 1,
      conditions: [
        condition("Ready", "True", "ReconciliationSucceeded", applied, t.settled, 1),
        condition("Healthy", "True", "Succeeded", "Health check passed", t.settled, 1),
      ],
      lastAppliedRevision: revision,
      lastAttemptedRevision: revision,
      inventory: { entries: [{ id: "shop_web_apps_Deployment", v: "v1" }] },
      history: [
        {
          digest,
          firstReconciled: t.settled,
          lastReconciled: t.settled,
          lastReconciledDuration: "2.81s",
          lastReconciledStatus: "ReconciliationSucceeded",
          totalReconciliations: 1,
          metadata: { revision },
        },
      ],
    },
    { conditions: reconciling(clock, `Building manifests for revision ${revision}`) },
    {
      observedGeneration: 1,
      conditions: [
        condition(
          "Ready",
          "False",
          "BuildFailed",
          "kustomize build failed: accumulating resources: 'apps/shop/web.yaml' not found",
          t.failedLongAgo,
          1,
        ),
      ],
      lastAttemptedRevision: revision,
    },
    "the kustomize build fails",
  );
};

export const helmRelease: DraftBuilder = (clock) => {
  const t = times(clock);
  const spec = {
    interval: "10m",
    chart: {
      spec: { chart: "web", version: "1.4.x", sourceRef: { kind: "HelmRepository", name: "charts" } },
    },
    values: { replicaCount: 2 },
  };
  const snapshot = (status: string) => ({
    name: "web",
    namespace: "shop",
    version: 1,
    status,
    chartName: "web",
    chartVersion: "1.4.2",
    appVersion: "2.0.0",
    configDigest: digest,
    digest,
    firstDeployed: t.settled,
    lastDeployed: t.settled,
  });
  const installed = "Helm install succeeded for release shop/web.v1 with chart web@1.4.2";
  const installFailed =
    "Helm install failed for release shop/web with chart web@1.4.2: context deadline exceeded";
  return lifecycle(
    spec,
    {
      observedGeneration: 1,
      conditions: [
        condition("Ready", "True", "InstallSucceeded", installed, t.settled, 1),
        condition("Released", "True", "InstallSucceeded", installed, t.settled, 1),
      ],
      helmChart: "shop/shop-web",
      history: [snapshot("deployed")],
      lastAttemptedGeneration: 1,
      lastAttemptedReleaseAction: "install",
      lastAttemptedRevision: "1.4.2",
      storageNamespace: "shop",
    },
    { conditions: reconciling(clock, "Fresh install of release shop/web.v1") },
    {
      observedGeneration: 1,
      conditions: [
        condition("Ready", "False", "InstallFailed", installFailed, t.failedLongAgo, 1),
        condition("Released", "False", "InstallFailed", installFailed, t.failedLongAgo, 1),
        condition(
          "Stalled",
          "True",
          "RetriesExceeded",
          "Failed to install after 1 attempt(s)",
          t.failedLongAgo,
          1,
        ),
      ],
      failures: 1,
      installFailures: 1,
      history: [snapshot("failed")],
      lastAttemptedGeneration: 1,
      lastAttemptedReleaseAction: "install",
      lastAttemptedRevision: "1.4.2",
    },
    "the install failed and retries are exhausted (Stalled)",
  );
};

/** GitRepository, HelmRepository and OCIRepository: an artifact in storage, or a fetch failure. */
function source(
  kind: string,
  spec: Record<string, unknown>,
  artifactRevision: string,
  fetchReason: string,
  fetchMessage: string,
): DraftBuilder {
  return (clock) => {
    const t = times(clock);
    const stored = `stored artifact for revision '${artifactRevision}'`;
    const artifact = {
      path: `${kind}/shop/source/${digest.slice(7, 19)}.tar.gz`,
      url: `http://source-controller.flux-system.svc.cluster.local./${kind}/shop/source/${digest.slice(7, 19)}.tar.gz`,
      revision: artifactRevision,
      digest,
      lastUpdateTime: t.settled,
      size: 40_960,
    };
    const ready = [
      condition("Ready", "True", "Succeeded", stored, t.settled, 1),
      condition("ArtifactInStorage", "True", "Succeeded", stored, t.settled, 1),
    ];
    return lifecycle(
      spec,
      { observedGeneration: 1, conditions: ready, artifact },
      { conditions: reconciling(clock, "building artifact: new upstream revision") },
      {
        observedGeneration: 1,
        conditions: [
          condition("Ready", "False", fetchReason, fetchMessage, t.failedLongAgo, 1),
          condition("FetchFailed", "True", fetchReason, fetchMessage, t.failedLongAgo, 1),
        ],
      },
      "the source cannot be fetched",
    );
  };
}

export const gitRepository = source(
  "gitrepository",
  { interval: "5m", url: "https://git.example/fleet.git", ref: { branch: "main" } },
  revision,
  "GitOperationFailed",
  "failed to checkout and determine revision: unable to clone 'https://git.example/fleet.git': authentication required",
);

export const helmRepository = source(
  "helmrepository",
  { interval: "1h", url: "https://charts.example/stable" },
  "sha256:9a3b5c2d1e0f4a7b8c6d5e4f3a2b1c0d9e8f7a6b5c4d3e2f1a0b9c8d7e6f5a4b",
  "IndexationFailed",
  "failed to fetch Helm repository index: 404 Not Found",
);

export const ociRepository = source(
  "ocirepository",
  { interval: "5m", url: "oci://registry.example/manifests/shop", ref: { tag: "latest" } },
  "latest@sha256:0c1d2e3f4a5b6c7d8e9f0a1b2c3d4e5f6a7b8c9d0e1f2a3b4c5d6e7f8a9b0c1d",
  "OCIArtifactPullFailed",
  "failed to pull artifact from 'oci://registry.example/manifests/shop': unauthorized",
);
