// What detection must decide for each real kind: from the schema of every
// served version alone, and for the storage version once the kind's objects
// (the drafts, or the same objects as the API server serves them) are seen.
// The reasons are in the comments; the compatibility table is this file.
import { type ShapeSummary, withoutConditions } from "../support/shape-summary.ts";

const conditionsKind = {
  basis: "schema",
  conditions: "status.conditions",
  times: "lastTransitionTime",
  generation: "status status.observedGeneration",
  phase: "-",
  ready: "? (pending)",
  run: false,
  states: "-",
  suspend: "-",
  learning: true,
} as const satisfies ShapeSummary;

// Flux: conditions, object-level observedGeneration, spec.suspend. No type enum: readiness is learned.
const flux = { ...conditionsKind, suspend: "spec.suspend" } as const;
// cert-manager and Crossplane's own kinds: observedGeneration only on each condition.
const perCondition = { ...conditionsKind, generation: "conditions" } as const;
const capiCluster = {
  ...conditionsKind,
  phase: "status.phase [Pending,Provisioning,Provisioned,Deleting,Failed,Unknown]",
  suspend: "spec.paused",
} as const;
const capiMachine = {
  ...conditionsKind,
  phase: "status.phase [Pending,Provisioning,Provisioned,Running,Deleting,Deleted,Failed,Unknown]",
} as const;
const capiMachineDeployment = {
  ...conditionsKind,
  phase: "status.phase [ScalingUp,ScalingDown,Running,Failed,Unknown]",
  suspend: "spec.paused",
} as const;

/** "<catalog id> <version>" → the decision from that version's schema alone. */
export const schemaShapes: Record<string, ShapeSummary> = {
  "cert-manager/Certificate v1": perCondition,
  "cert-manager/Issuer v1": perCondition,
  "cert-manager/ClusterIssuer v1": perCondition,
  // No observedGeneration at all, not even per condition.
  "cert-manager/CertificateRequest v1": { ...conditionsKind, generation: "none" },
  "flux/Kustomization v1": flux,
  "flux/Kustomization v1beta2": flux,
  "flux/HelmRelease v2": flux,
  "flux/HelmRelease v2beta2": flux,
  "flux/GitRepository v1": flux,
  "flux/GitRepository v1beta2": flux,
  "flux/HelmRepository v1": flux,
  "flux/HelmRepository v1beta2": flux,
  "flux/OCIRepository v1": flux,
  "flux/OCIRepository v1beta2": flux,
  // status.conditions entries have no status (error records): not conditions. Health and sync are state fields.
  "argo-cd/Application v1alpha1": {
    ...conditionsKind,
    ...withoutConditions,
    ready: "- (states)",
    states: "status.health.status=Healthy status.sync.status=Synced",
    learning: false,
  },
  "crossplane/CompositeResourceDefinition v1": perCondition,
  "crossplane/CompositeResourceDefinition v2": perCondition,
  // No status in the schema at all.
  "crossplane/Composition v1": {
    ...conditionsKind,
    basis: "none",
    ...withoutConditions,
    ready: "- (none)",
    learning: false,
  },
  "crossplane/Provider v1": perCondition,
  "crossplane/Operation v1alpha1": perCondition,
  "crossplane/Object v1alpha1": conditionsKind,
  "crossplane/Object v1alpha2": conditionsKind,
  // v1beta1 also has status.v1beta2.conditions, v1beta2 status.deprecated.v1beta1.conditions: status.conditions wins.
  "cluster-api/Cluster v1beta1": capiCluster,
  "cluster-api/Cluster v1beta2": capiCluster,
  "cluster-api/Machine v1beta1": capiMachine,
  "cluster-api/Machine v1beta2": capiMachine,
  "cluster-api/MachineDeployment v1beta1": capiMachineDeployment,
  "cluster-api/MachineDeployment v1beta2": capiMachineDeployment,
  // The phase is a sentence without enum; values come from objects.
  "cloudnative-pg/Cluster v1": { ...perCondition, phase: "status.phase []" },
  // Phase only; status.stoppedAt marks a run.
  "cloudnative-pg/Backup v1": {
    ...conditionsKind,
    ...withoutConditions,
    phase: "status.phase []",
    ready: "- (none)",
    run: true,
  },
};

/** Catalog id → what changes for the storage version once its objects are seen (readiness, run, phase values). */
export const learnedShapes: Record<string, Partial<ShapeSummary>> = {
  "cert-manager/Certificate": { ready: "Ready (observed)" },
  "cert-manager/Issuer": { ready: "Ready (observed)" },
  "cert-manager/ClusterIssuer": { ready: "Ready (observed)" },
  "cert-manager/CertificateRequest": { ready: "Ready (observed)" },
  "flux/Kustomization": { ready: "Ready (observed)" },
  "flux/HelmRelease": { ready: "Ready (observed)" },
  "flux/GitRepository": { ready: "Ready (observed)" },
  "flux/HelmRepository": { ready: "Ready (observed)" },
  "flux/OCIRepository": { ready: "Ready (observed)" },
  "argo-cd/Application": { ready: "- (states)" },
  // Established / Installed+Healthy: none of Ready, Succeeded, Available; stays pending until the sample bound.
  "crossplane/CompositeResourceDefinition": { ready: "? (pending)" },
  "crossplane/Composition": { ready: "- (none)" },
  "crossplane/Provider": { ready: "? (pending)" },
  "crossplane/Operation": { ready: "Succeeded (observed)", run: true },
  "crossplane/Object": { ready: "Ready (observed)" },
  // A v1beta2 Cluster has no Ready condition: Available is its summary.
  "cluster-api/Cluster": { ready: "Available (observed)" },
  "cluster-api/Machine": { ready: "Ready (observed)" },
  "cluster-api/MachineDeployment": { ready: "Available (observed)" },
  "cloudnative-pg/Cluster": {
    ready: "Ready (observed)",
    phase:
      "status.phase [Cluster in healthy state,Cluster is unrecoverable and needs manual intervention,Setting up primary]",
  },
  "cloudnative-pg/Backup": { ready: "- (none)", run: true, phase: "status.phase [completed,failed,running]" },
};
