// The drafts of every real kind in the catalog, keyed by catalog id.
import * as argoCd from "./argo-cd.ts";
import * as certManager from "./cert-manager.ts";
import * as cloudNativePg from "./cloudnative-pg.ts";
import * as clusterApi from "./cluster-api.ts";
import * as crossplane from "./crossplane.ts";
import type { DraftBuilder } from "./drafts.ts";
import * as flux from "./flux.ts";

export * from "./drafts.ts";

export const draftBuilders: Record<string, DraftBuilder> = {
  "cert-manager/Certificate": certManager.certificate,
  "cert-manager/Issuer": certManager.issuer,
  "cert-manager/ClusterIssuer": certManager.issuer,
  "cert-manager/CertificateRequest": certManager.certificateRequest,
  "flux/Kustomization": flux.kustomization,
  "flux/HelmRelease": flux.helmRelease,
  "flux/GitRepository": flux.gitRepository,
  "flux/HelmRepository": flux.helmRepository,
  "flux/OCIRepository": flux.ociRepository,
  "argo-cd/Application": argoCd.application,
  "crossplane/CompositeResourceDefinition": crossplane.compositeResourceDefinition,
  "crossplane/Composition": crossplane.composition,
  "crossplane/Provider": crossplane.provider,
  "crossplane/Operation": crossplane.operation,
  "crossplane/Object": crossplane.managedObject,
  "cluster-api/Cluster": clusterApi.cluster,
  "cluster-api/Machine": clusterApi.machine,
  "cluster-api/MachineDeployment": clusterApi.machineDeployment,
  "cloudnative-pg/Cluster": cloudNativePg.cluster,
  "cloudnative-pg/Backup": cloudNativePg.backup,
};
