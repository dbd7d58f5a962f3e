// Crossplane: conditions without a top-level observedGeneration on its own
// kinds (Established/Offered on definitions, Installed/Healthy on packages,
// Succeeded on operations), Ready/Synced plus observedGeneration on managed
// resources; the crossplane.io/paused annotation pauses reconciliation
// (Synced=False, reason ReconcilePaused). Compositions have no status at all.
import { condition, type DraftBuilder, testFinalizer, times } from "./drafts.ts";

const paused = { "crossplane.io/paused": "true" };
const pausedCondition = (since: string) =>
  condition("Synced", "False", "ReconcilePaused", "Reconciliation is paused via the pause annotation", since);

export const compositeResourceDefinition: DraftBuilder = (clock) => {
  const t = times(clock);
  const spec = {
    group: "platform.example",
    names: { kind: "XDatabase", plural: "xdatabases" },
    versions: [
      {
        name: "v1alpha1",
        served: true,
        referenceable: true,
        schema: {
          openAPIV3Schema: {
            type: "object",
            properties: { spec: { type: "object", properties: { size: { type: "string" } } } },
          },
        },
      },
    ],
  };
  const controllers = {
    compositeResourceType: { apiVersion: "platform.example/v1alpha1", kind: "XDatabase" },
  };
  const established = {
    conditions: [condition("Established", "True", "WatchingCompositeResource", "", t.settled, 1)],
    controllers,
  };
  return [
    {
      scenario: "healthy",
      about: "established: its composite resources are served and watched",
      spec,
      status: established,
    },
    {
      scenario: "terminating",
      about: "deleted: the composite resources are being removed",
      finalizers: ["defined.apiextensions.crossplane.io"],
      spec,
      status: {
        conditions: [condition("Established", "False", "TerminatingCompositeResource", "", t.recent, 1)],
        controllers,
      },
    },
  ];
};

export const composition: DraftBuilder = () => {
  const spec = {
    compositeTypeRef: { apiVersion: "platform.example/v1alpha1", kind: "XDatabase" },
    mode: "Pipeline",
    pipeline: [{ step: "render", functionRef: { name: "function-patch-and-transform" } }],
  };
  return [
    { scenario: "healthy", about: "a composition (no status in its schema)", spec },
    { scenario: "terminating", about: "deleted while in use", finalizers: [testFinalizer], spec },
  ];
};

export const provider: DraftBuilder = (clock) => {
  const t = times(clock);
  const spec = { package: "xpkg.example/crossplane-contrib/provider-kubernetes:v1.3.1" };
  const revision = { currentRevision: "provider-kubernetes-3a1b5c7d9e0f", currentIdentifier: spec.package };
  const installed = condition("Installed", "True", "ActivePackageRevision", "", t.settled, 1);
  const healthy = {
    ...revision,
    conditions: [installed, condition("Healthy", "True", "HealthyPackageRevision", "", t.settled, 1)],
  };
  return [
    { scenario: "healthy", about: "installed and healthy", spec, status: healthy },
    {
      scenario: "progressing",
      about: "the package is being unpacked",
      spec,
      status: {
        conditions: [
          condition("Installed", "False", "UnpackingPackage", "Waiting for unpack to complete", t.recent, 1),
          condition("Healthy", "Unknown", "UnknownPackageRevisionHealth", "", t.recent, 1),
        ],
      },
    },
    {
      scenario: "failed",
      about: "installed, its runtime unhealthy",
      spec,
      status: {
        ...revision,
        conditions: [
          installed,
          condition(
            "Healthy",
            "False",
            "UnhealthyPackageRevision",
            "post establish runtime hook failed for package: Deployment has not become available",
            t.failedLongAgo,
            1,
          ),
        ],
      },
    },
    {
      scenario: "suspended",
      about: "paused with the crossplane.io/paused annotation",
      annotations: paused,
      spec,
      status: { ...healthy, conditions: [...healthy.conditions, pausedCondition(t.recent)] },
    },
    {
      scenario: "terminating",
      about: "deleted while healthy",
      finalizers: [testFinalizer],
      spec,
      status: healthy,
    },
  ];
};

/** A run-to-completion kind: Succeeded is Unknown while the pipeline runs. */
export const operation: DraftBuilder = (clock) => {
  const t = times(clock);
  const spec = {
    mode: "Pipeline",
    pipeline: [{ step: "rotate", functionRef: { name: "function-rotate-credentials" } }],
    retryLimit: 3,
  };
  const synced = condition("Synced", "True", "ReconcileSuccess", "", t.settled, 1);
  const succeeded = {
    conditions: [synced, condition("Succeeded", "True", "PipelineSuccess", "", t.settled, 1)],
    pipeline: [{ step: "rotate", output: { rotated: 2 } }],
    appliedResourceRefs: [{ apiVersion: "v1", kind: "Secret", namespace: "shop", name: "db-credentials" }],
  };
  return [
    { scenario: "healthy", about: "the run succeeded", spec, status: succeeded },
    {
      scenario: "progressing",
      about: "the pipeline is running",
      spec,
      status: { conditions: [synced, condition("Succeeded", "Unknown", "PipelineRunning", "", t.recent, 1)] },
    },
    {
      scenario: "failed",
      about: "the run failed after its retries",
      spec,
      status: {
        conditions: [
          synced,
          condition("Succeeded", "False", "PipelineError", "failure limit of 3 reached", t.failedLongAgo, 1),
        ],
        failures: 3,
      },
    },
    {
      scenario: "terminating",
      about: "deleted once done",
      finalizers: [testFinalizer],
      spec,
      status: succeeded,
    },
  ];
};

/** provider-kubernetes' Object: the managed-resource shape (Ready/Synced, cluster-scoped). */
export const managedObject: DraftBuilder = (clock) => {
  const t = times(clock);
  const manifest = {
    apiVersion: "v1",
    kind: "ConfigMap",
    metadata: { name: "settings", namespace: "shop" },
    data: { mode: "live" },
  };
  const spec = { forProvider: { manifest }, providerConfigRef: { name: "in-cluster" } };
  const synced = condition("Synced", "True", "ReconcileSuccess", "", t.settled, 1);
  const available = {
    observedGeneration: 1,
    conditions: [condition("Ready", "True", "Available", "", t.settled, 1), synced],
    atProvider: {
      manifest: {
        ...manifest,
        metadata: { ...manifest.metadata, uid: "0b8f2c3e-5c1d-4e6a-9f7b-2a1c3d4e5f60" },
      },
    },
  };
  return [
    { scenario: "healthy", about: "Ready (Available) and Synced", spec, status: available },
    {
      scenario: "progressing",
      about: "being created",
      spec,
      status: {
        observedGeneration: 1,
        conditions: [condition("Ready", "False", "Creating", "", t.recent, 1), synced],
      },
    },
    {
      scenario: "failed",
      about: "the provider cannot apply it",
      spec,
      status: {
        observedGeneration: 1,
        conditions: [
          condition("Ready", "False", "Unavailable", "", t.failedLongAgo, 1),
          condition(
            "Synced",
            "False",
            "ReconcileError",
            'cannot create object: configmaps "settings" is forbidden: User cannot create resource',
            t.failedLongAgo,
            1,
          ),
        ],
      },
    },
    {
      scenario: "suspended",
      about: "paused with the crossplane.io/paused annotation",
      annotations: paused,
      spec,
      status: {
        ...available,
        conditions: [condition("Ready", "True", "Available", "", t.settled, 1), pausedCondition(t.recent)],
      },
    },
    {
      scenario: "terminating",
      about: "being deleted from the provider",
      finalizers: ["finalizer.managedresource.crossplane.io"],
      spec,
      status: {
        observedGeneration: 1,
        conditions: [condition("Ready", "False", "Deleting", "", t.recent, 1), synced],
      },
    },
  ];
};
