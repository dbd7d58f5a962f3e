// Which CRDs of which projects the real-CRD tests use, and where each one's
// YAML lives inside its Go module. Versions are pinned in modules/go.mod only.

export interface RealKind {
  /** "<project>/<Kind>": unique, stable, used by tests to ask for CRDs. */
  id: string;
  project: string;
  /** Go module path, as required in modules/go.mod. */
  module: string;
  /** Path of the YAML file inside the module. */
  file: string;
  /** metadata.name of the CRD. */
  crd: string;
  kind: string;
  /**
   * Part of the compatibility list every release is checked against; the
   * others are extra shapes (a run-to-completion kind, a phase-only kind).
   */
  listed: boolean;
}

const certManager = "github.com/cert-manager/cert-manager";
const kustomizeController = "github.com/fluxcd/kustomize-controller";
const helmController = "github.com/fluxcd/helm-controller";
const sourceController = "github.com/fluxcd/source-controller";
const argoCd = "github.com/argoproj/argo-cd/v3";
const crossplane = "github.com/crossplane/crossplane/v2";
const providerKubernetes = "github.com/crossplane-contrib/provider-kubernetes";
const clusterApi = "sigs.k8s.io/cluster-api";
const cloudNativePg = "github.com/cloudnative-pg/cloudnative-pg";

function kinds(
  project: string,
  module: string,
  directory: string,
  entries: [kind: string, crd: string, listed?: boolean][],
): RealKind[] {
  return entries.map(([kind, crd, listed = true]) => {
    const [plural, ...group] = crd.split(".");
    return {
      id: `${project}/${kind}`,
      project,
      module,
      file: `${directory}/${group.join(".")}_${plural}.yaml`,
      crd,
      kind,
      listed,
    };
  });
}

export const realKinds: readonly RealKind[] = [
  ...kinds("cert-manager", certManager, "deploy/crds", [
    ["Certificate", "certificates.cert-manager.io"],
    ["Issuer", "issuers.cert-manager.io"],
    ["ClusterIssuer", "clusterissuers.cert-manager.io"],
    ["CertificateRequest", "certificaterequests.cert-manager.io"],
  ]),
  ...kinds("flux", kustomizeController, "config/crd/bases", [
    ["Kustomization", "kustomizations.kustomize.toolkit.fluxcd.io"],
  ]),
  ...kinds("flux", helmController, "config/crd/bases", [
    ["HelmRelease", "helmreleases.helm.toolkit.fluxcd.io"],
  ]),
  ...kinds("flux", sourceController, "config/crd/bases", [
    ["GitRepository", "gitrepositories.source.toolkit.fluxcd.io"],
    ["HelmRepository", "helmrepositories.source.toolkit.fluxcd.io"],
    ["OCIRepository", "ocirepositories.source.toolkit.fluxcd.io"],
  ]),
  ...kinds("argo-cd", argoCd, "manifests/crds", [["Application", "applications.argoproj.io"]]).map(
    (kind) => ({
      ...kind,
      file: "manifests/crds/application-crd.yaml",
    }),
  ),
  ...kinds("crossplane", crossplane, "cluster/crds", [
    ["CompositeResourceDefinition", "compositeresourcedefinitions.apiextensions.crossplane.io"],
    ["Composition", "compositions.apiextensions.crossplane.io"],
    ["Provider", "providers.pkg.crossplane.io"],
    ["Operation", "operations.ops.crossplane.io", false],
  ]),
  // A managed resource (Crossplane's Ready/Synced on a cluster-scoped kind):
  // the core module ships none, so one comes from a provider's module.
  ...kinds("crossplane", providerKubernetes, "package/crds", [
    ["Object", "objects.kubernetes.crossplane.io"],
  ]),
  ...kinds("cluster-api", clusterApi, "config/crd/bases", [
    ["Cluster", "clusters.cluster.x-k8s.io"],
    ["Machine", "machines.cluster.x-k8s.io"],
    ["MachineDeployment", "machinedeployments.cluster.x-k8s.io"],
  ]),
  ...kinds("cloudnative-pg", cloudNativePg, "config/crd/bases", [
    ["Cluster", "clusters.postgresql.cnpg.io"],
    ["Backup", "backups.postgresql.cnpg.io", false],
  ]),
];
