// The objects of the join e2e tests, created and written as their controllers
// write them: a Cluster API MachineDeployment → MachineSet → Machine chain
// (each child created with a controller ownerReference to its parent) and a
// Flux Kustomization → HelmRelease pair (the HelmRelease labelled with the
// Kustomization's name and namespace, as kustomize-controller labels what it
// applies). The real CRDs come from the projects' Go modules.

import { generationTraceKey, spanIdOf, traceIdOf } from "../../src/tracing/ids.ts";
import { type CrdManifest, condition, crPath, type ResourceRef, type RestClient } from "../cluster/index.ts";
import type { RealKind } from "../realcrds/catalog.ts";
import { realKinds } from "../realcrds/catalog.ts";
import { realCrd } from "../realcrds/index.ts";
import { refOf } from "../realcrds/testbed.ts";

const capiKind = (id: string) => realKinds.find((k) => k.id === id) as RealKind;

/** Cluster API's MachineSet is not in the catalog: the same module, the same directory. */
function machineSetKind(): RealKind {
  const machine = capiKind("cluster-api/Machine");
  return {
    ...machine,
    id: "cluster-api/MachineSet",
    kind: "MachineSet",
    crd: "machinesets.cluster.x-k8s.io",
    file: machine.file.replace("_machines.yaml", "_machinesets.yaml"),
  };
}

export interface JoinCrds {
  machineDeployment: CrdManifest;
  machineSet: CrdManifest;
  machine: CrdManifest;
  kustomization: CrdManifest;
  helmRelease: CrdManifest;
}

export function joinCrds(): JoinCrds {
  return {
    machineDeployment: realCrd(capiKind("cluster-api/MachineDeployment")),
    machineSet: realCrd(machineSetKind()),
    machine: realCrd(capiKind("cluster-api/Machine")),
    kustomization: realCrd(capiKind("flux/Kustomization")),
    helmRelease: realCrd(capiKind("flux/HelmRelease")),
  };
}

/** The exporter's resources for them: the chain hangs under owners, the HelmRelease under its Kustomization. */
export function joinResources(namespace: string): Record<string, unknown>[] {
  return [
    {
      group: "cluster.x-k8s.io",
      resource: "machinedeployments",
      namespaces: [namespace],
      readyCondition: "Available",
    },
    {
      group: "cluster.x-k8s.io",
      resource: "machinesets",
      namespaces: [namespace],
      readyCondition: "Available",
      tracing: { parent: "owner" },
    },
    {
      group: "cluster.x-k8s.io",
      resource: "machines",
      namespaces: [namespace],
      readyCondition: "Ready",
      tracing: { parent: "owner" },
    },
    { group: "kustomize.toolkit.fluxcd.io", resource: "kustomizations", namespaces: [namespace] },
    {
      group: "helm.toolkit.fluxcd.io",
      resource: "helmreleases",
      namespaces: [namespace],
      tracing: {
        parent: "source",
        source: {
          group: "kustomize.toolkit.fluxcd.io",
          kind: "Kustomization",
          name: { fromLabel: "kustomize.toolkit.fluxcd.io/name" },
          namespace: { fromLabel: "kustomize.toolkit.fluxcd.io/namespace" },
        },
      },
    },
  ];
}

interface Served {
  metadata: { uid: string; name: string; generation: number };
}

async function create(
  rest: RestClient,
  crd: CrdManifest,
  ns: string,
  name: string,
  spec: Record<string, unknown>,
  metadata: Record<string, unknown> = {},
): Promise<{ ref: ResourceRef; served: Served }> {
  const ref = refOf(crd, ns, name);
  const served = await rest.create<Served>(crPath({ ...ref, name: undefined }), {
    apiVersion: `${ref.group}/${ref.version}`,
    kind: crd.spec.names.kind,
    metadata: { ...metadata, name, namespace: ns },
    spec,
  });
  return { ref, served };
}

const status = (rest: RestClient, ref: ResourceRef, body: Record<string, unknown>) =>
  rest.patch(crPath(ref, "status"), { status: body }, "merge");

const owner = (crd: CrdManifest, served: Served) => ({
  apiVersion: `${crd.spec.group}/${refOf(crd, "x").version}`,
  kind: crd.spec.names.kind,
  name: served.metadata.name,
  uid: served.metadata.uid,
  controller: true,
  blockOwnerDeletion: true,
});

/** One generation root's ids, as the exporter derives them. */
export interface RootIds {
  name: string;
  operation: string;
  uid: string;
  spanId: string;
  ownTraceId: string;
}

export function rootIds(
  cluster: string,
  operation: string,
  name: string,
  uid: string,
  generation = 1,
): RootIds {
  const key = generationTraceKey(cluster, uid, generation);
  return { name, operation, uid, spanId: spanIdOf(key, "root"), ownTraceId: traceIdOf(key) };
}

export interface JoinedObjects {
  machineDeployment: RootIds;
  machineSet: RootIds;
  machine: RootIds;
  kustomization: RootIds;
  helmRelease: RootIds;
}

/**
 * Creates the chain and the pair and drives them to ready, children first,
 * as the controllers do. `seen(kind, name)` waits until the exporter knows an
 * object before its child is created (a controller creates children of what
 * it reconciles).
 */
export async function driveJoinedObjects(
  rest: RestClient,
  crds: JoinCrds,
  ns: string,
  cluster: string,
  suffix: string,
  seen: (kind: string, name: string, uid: string) => Promise<unknown>,
): Promise<JoinedObjects> {
  const labels = {
    "cluster.x-k8s.io/cluster-name": "shop",
    "cluster.x-k8s.io/deployment-name": `md-${suffix}`,
  };
  const template = {
    metadata: { labels },
    spec: {
      clusterName: "shop",
      bootstrap: {
        configRef: { apiGroup: "bootstrap.cluster.x-k8s.io", kind: "KubeadmConfig", name: `m-${suffix}` },
      },
      infrastructureRef: {
        apiGroup: "infrastructure.cluster.x-k8s.io",
        kind: "DockerMachine",
        name: `m-${suffix}`,
      },
      version: "v1.34.1",
    },
  };
  const notAvailable = (message: string) => [
    condition("Available", "False", "NotAvailable", message, 1),
    condition("ScalingUp", "True", "ScalingUp", "Scaling up from 0 to 1 replicas", 1),
  ];
  const md = await create(rest, crds.machineDeployment, ns, `md-${suffix}`, {
    clusterName: "shop",
    replicas: 1,
    selector: { matchLabels: labels },
    template,
  });
  await status(rest, md.ref, {
    observedGeneration: 1,
    phase: "ScalingUp",
    replicas: 0,
    conditions: notAvailable("0 available replicas, at least 1 required"),
  });
  await seen("MachineDeployment", md.served.metadata.name, md.served.metadata.uid);
  const ms = await create(
    rest,
    crds.machineSet,
    ns,
    `md-${suffix}-7f9c`,
    { clusterName: "shop", replicas: 1, selector: { matchLabels: labels }, template },
    { labels, ownerReferences: [owner(crds.machineDeployment, md.served)] },
  );
  await status(rest, ms.ref, {
    observedGeneration: 1,
    replicas: 0,
    conditions: notAvailable("0 available replicas, at least 1 required"),
  });
  await seen("MachineSet", ms.served.metadata.name, ms.served.metadata.uid);
  const machine = await create(rest, crds.machine, ns, `md-${suffix}-7f9c-x7k2p`, template.spec, {
    labels,
    ownerReferences: [owner(crds.machineSet, ms.served)],
  });
  await status(rest, machine.ref, {
    observedGeneration: 1,
    phase: "Provisioning",
    conditions: [
      condition("Available", "False", "NotAvailable", "waiting for DockerMachine", 1),
      condition("Ready", "False", "NotReady", "waiting for DockerMachine", 1),
      condition("InfrastructureReady", "False", "NotReady", "waiting for DockerMachine", 1),
    ],
  });
  await seen("Machine", machine.served.metadata.name, machine.served.metadata.uid);

  const k = await create(rest, crds.kustomization, ns, `apps-${suffix}`, {
    interval: "10m",
    path: "./apps/shop",
    prune: true,
    sourceRef: { kind: "GitRepository", name: "fleet" },
  });
  await status(rest, k.ref, {
    observedGeneration: 1,
    conditions: [
      condition("Reconciling", "True", "Progressing", "Running 'apply' with revision main@sha1:6f8e9c3b", 1),
      condition("Ready", "Unknown", "Progressing", "Reconciliation in progress", 1),
    ],
  });
  await seen("Kustomization", k.served.metadata.name, k.served.metadata.uid);
  const hr = await create(
    rest,
    crds.helmRelease,
    ns,
    `web-${suffix}`,
    {
      interval: "10m",
      chart: {
        spec: { chart: "web", version: "1.4.x", sourceRef: { kind: "HelmRepository", name: "charts" } },
      },
    },
    {
      labels: {
        "kustomize.toolkit.fluxcd.io/name": k.served.metadata.name,
        "kustomize.toolkit.fluxcd.io/namespace": ns,
      },
    },
  );
  await status(rest, hr.ref, {
    observedGeneration: 1,
    conditions: [
      condition("Reconciling", "True", "Progressing", "Fulfilling prerequisites", 1),
      condition("Ready", "Unknown", "Progressing", "Fulfilling prerequisites", 1),
    ],
  });
  await seen("HelmRelease", hr.served.metadata.name, hr.served.metadata.uid);

  // Ready, children first.
  await status(rest, machine.ref, {
    observedGeneration: 1,
    phase: "Running",
    conditions: [
      condition("Available", "True", "Available", "", 1),
      condition("Ready", "True", "Ready", "", 1),
      condition("InfrastructureReady", "True", "Ready", "", 1),
    ],
  });
  const available = [
    condition("Available", "True", "Available", "", 1),
    condition("ScalingUp", "False", "NotScalingUp", "", 1),
  ];
  await status(rest, ms.ref, { observedGeneration: 1, replicas: 1, readyReplicas: 1, conditions: available });
  await status(rest, md.ref, { observedGeneration: 1, phase: "Running", replicas: 1, conditions: available });
  const installed = "Helm install succeeded for release shop/web.v1 with chart web@1.4.2";
  await status(rest, hr.ref, {
    observedGeneration: 1,
    conditions: [condition("Ready", "True", "InstallSucceeded", installed, 1)],
  });
  await status(rest, k.ref, {
    observedGeneration: 1,
    conditions: [
      condition("Ready", "True", "ReconciliationSucceeded", "Applied revision: main@sha1:6f8e9c3b", 1),
    ],
  });
  return {
    machineDeployment: rootIds(
      cluster,
      "MachineDeployment generation",
      md.served.metadata.name,
      md.served.metadata.uid,
    ),
    machineSet: rootIds(cluster, "MachineSet generation", ms.served.metadata.name, ms.served.metadata.uid),
    machine: rootIds(
      cluster,
      "Machine generation",
      machine.served.metadata.name,
      machine.served.metadata.uid,
    ),
    kustomization: rootIds(
      cluster,
      "Kustomization generation",
      k.served.metadata.name,
      k.served.metadata.uid,
    ),
    helmRelease: rootIds(cluster, "HelmRelease generation", hr.served.metadata.name, hr.served.metadata.uid),
  };
}

/** The expected tree: [child, parent] pairs, each pair in the parent's trace; the trace ids of the two trees. */
export function expectedTrees(o: JoinedObjects): {
  traces: { traceId: string; spans: { root: RootIds; parent: RootIds | undefined }[] }[];
} {
  return {
    traces: [
      {
        traceId: o.machineDeployment.ownTraceId,
        spans: [
          { root: o.machineDeployment, parent: undefined },
          { root: o.machineSet, parent: o.machineDeployment },
          { root: o.machine, parent: o.machineSet },
        ],
      },
      {
        traceId: o.kustomization.ownTraceId,
        spans: [
          { root: o.kustomization, parent: undefined },
          { root: o.helmRelease, parent: o.kustomization },
        ],
      },
    ],
  };
}
