// Cluster API v1beta2: metav1 conditions with observedGeneration, a phase
// enum beside them, the v1beta1 conditions kept under status.deprecated. A
// Cluster has no Ready condition (Available is its summary); a Machine has
// both. spec.paused (Cluster, MachineDeployment) or the
// cluster.x-k8s.io/paused annotation (Machine) pause reconciliation, which
// the Paused condition reports.
import { type ConditionDraft, condition, type DraftBuilder, type DraftClock, times } from "./drafts.ts";

const infrastructure = { apiGroup: "infrastructure.cluster.x-k8s.io", kind: "DockerCluster", name: "shop" };
const machineInfrastructure = {
  apiGroup: "infrastructure.cluster.x-k8s.io",
  kind: "DockerMachine",
  name: "shop-md-0-x7k2p",
};
const bootstrap = {
  configRef: { apiGroup: "bootstrap.cluster.x-k8s.io", kind: "KubeadmConfig", name: "shop-md-0-x7k2p" },
};

/** Positive conditions True with their reason, negative-polarity ones False ("NotPaused"), as of `since`. */
function summary(
  positive: [type: string, reason: string][],
  since: string,
  negative: string[],
): ConditionDraft[] {
  return [
    ...positive.map(([type, reason]) => condition(type, "True", reason, "", since, 1)),
    ...negative.map((type) => condition(type, "False", `Not${type}`, "", since, 1)),
  ];
}

function pausedConditions(clock: DraftClock, base: ConditionDraft[]): ConditionDraft[] {
  const t = times(clock);
  return [...base.filter((c) => c.type !== "Paused"), condition("Paused", "True", "Paused", "", t.recent, 1)];
}

export const cluster: DraftBuilder = (clock) => {
  const t = times(clock);
  const spec = {
    clusterNetwork: { pods: { cidrBlocks: ["192.168.0.0/16"] } },
    controlPlaneRef: {
      apiGroup: "controlplane.cluster.x-k8s.io",
      kind: "KubeadmControlPlane",
      name: "shop-control-plane",
    },
    infrastructureRef: infrastructure,
  };
  const replicas = {
    desiredReplicas: 3,
    replicas: 3,
    readyReplicas: 3,
    availableReplicas: 3,
    upToDateReplicas: 3,
  };
  const good = summary(
    [
      ["Available", "Available"],
      ["InfrastructureReady", "Ready"],
      ["ControlPlaneInitialized", "Initialized"],
      ["ControlPlaneAvailable", "Available"],
      ["WorkersAvailable", "Available"],
    ],
    t.settled,
    ["Paused", "Deleting"],
  );
  const provisioned = {
    observedGeneration: 1,
    phase: "Provisioned",
    initialization: { infrastructureProvisioned: true, controlPlaneInitialized: true },
    controlPlane: replicas,
    workers: replicas,
    conditions: good,
  };
  return [
    { scenario: "healthy", about: "provisioned and available", spec, status: provisioned },
    {
      scenario: "progressing",
      about: "infrastructure being provisioned",
      spec,
      status: {
        observedGeneration: 1,
        phase: "Provisioning",
        initialization: { infrastructureProvisioned: false },
        conditions: [
          condition(
            "Available",
            "False",
            "NotAvailable",
            "* InfrastructureReady: waiting for DockerCluster",
            t.recent,
            1,
          ),
          condition(
            "InfrastructureReady",
            "False",
            "NotReady",
            "waiting for DockerCluster to be provisioned",
            t.recent,
            1,
          ),
        ],
      },
    },
    {
      scenario: "failed",
      about: "the infrastructure failed for good (phase Failed)",
      spec,
      status: {
        observedGeneration: 1,
        phase: "Failed",
        conditions: [
          condition(
            "Available",
            "False",
            "NotAvailable",
            "* InfrastructureReady: load balancer cannot be created",
            t.failedLongAgo,
            1,
          ),
          condition(
            "InfrastructureReady",
            "False",
            "NotReady",
            "load balancer cannot be created",
            t.failedLongAgo,
            1,
          ),
        ],
        deprecated: {
          v1beta1: {
            failureReason: "InvalidConfiguration",
            failureMessage: "load balancer cannot be created",
          },
        },
      },
    },
    {
      scenario: "suspended",
      about: "spec.paused",
      spec: { ...spec, paused: true },
      status: { ...provisioned, conditions: pausedConditions(clock, good) },
    },
    {
      scenario: "terminating",
      about: "being deleted (phase Deleting)",
      finalizers: ["cluster.cluster.x-k8s.io"],
      spec,
      status: {
        ...provisioned,
        phase: "Deleting",
        conditions: [
          ...good.filter((c) => c.type !== "Deleting"),
          condition(
            "Deleting",
            "True",
            "WaitingForWorkersDeletion",
            "* MachineDeployment shop-md-0",
            t.recent,
            1,
          ),
        ],
      },
    },
  ];
};

export const machine: DraftBuilder = (clock) => {
  const t = times(clock);
  const spec = {
    clusterName: "shop",
    bootstrap,
    infrastructureRef: machineInfrastructure,
    version: "v1.34.1",
  };
  const good = summary(
    [
      ["Available", "Available"],
      ["Ready", "Ready"],
      ["UpToDate", "UpToDate"],
      ["BootstrapConfigReady", "Ready"],
      ["InfrastructureReady", "Ready"],
      ["NodeReady", "NodeReady"],
      ["NodeHealthy", "NodeHealthy"],
    ],
    t.settled,
    ["Paused", "Deleting"],
  );
  const running = {
    observedGeneration: 1,
    phase: "Running",
    nodeRef: { name: "shop-md-0-x7k2p" },
    initialization: { bootstrapDataSecretCreated: true, infrastructureProvisioned: true },
    conditions: good,
  };
  const notReady = (since: string, message: string) => [
    condition("Available", "False", "NotAvailable", message, since, 1),
    condition("Ready", "False", "NotReady", message, since, 1),
    condition("InfrastructureReady", "False", "NotReady", message, since, 1),
  ];
  return [
    { scenario: "healthy", about: "running, its node ready", spec, status: running },
    {
      scenario: "progressing",
      about: "provisioning",
      spec,
      status: {
        observedGeneration: 1,
        phase: "Provisioning",
        conditions: notReady(t.recent, "waiting for DockerMachine"),
      },
    },
    {
      scenario: "failed",
      about: "the infrastructure machine failed (phase Failed)",
      spec,
      status: {
        observedGeneration: 1,
        phase: "Failed",
        conditions: notReady(t.failedLongAgo, "instance terminated by the provider"),
      },
    },
    {
      scenario: "suspended",
      about: "the cluster.x-k8s.io/paused annotation",
      annotations: { "cluster.x-k8s.io/paused": "" },
      spec,
      status: { ...running, conditions: pausedConditions(clock, good) },
    },
    {
      scenario: "terminating",
      about: "draining before deletion (phase Deleting)",
      finalizers: ["machine.cluster.x-k8s.io"],
      spec,
      status: {
        ...running,
        phase: "Deleting",
        conditions: [
          ...good.filter((c) => c.type !== "Deleting"),
          condition("Deleting", "True", "DrainingNode", "Drain not completed yet", t.recent, 1),
        ],
        deletion: { nodeDrainStartTime: t.recent },
      },
    },
  ];
};

export const machineDeployment: DraftBuilder = (clock) => {
  const t = times(clock);
  const labels = { "cluster.x-k8s.io/cluster-name": "shop", "cluster.x-k8s.io/deployment-name": "shop-md-0" };
  const spec = {
    clusterName: "shop",
    replicas: 3,
    selector: { matchLabels: labels },
    template: {
      metadata: { labels },
      spec: { clusterName: "shop", bootstrap, infrastructureRef: machineInfrastructure, version: "v1.34.1" },
    },
  };
  const selector = Object.entries(labels)
    .map(([k, v]) => `${k}=${v}`)
    .join(",");
  const good = summary(
    [
      ["Available", "Available"],
      ["MachinesReady", "Ready"],
      ["MachinesUpToDate", "UpToDate"],
    ],
    t.settled,
    ["RollingOut", "ScalingUp", "ScalingDown", "Remediating", "Paused", "Deleting"],
  );
  const running = {
    observedGeneration: 1,
    phase: "Running",
    selector,
    replicas: 3,
    readyReplicas: 3,
    availableReplicas: 3,
    upToDateReplicas: 3,
    conditions: good,
  };
  return [
    { scenario: "healthy", about: "all replicas available and up to date", spec, status: running },
    {
      scenario: "progressing",
      about: "scaling up",
      spec,
      status: {
        ...running,
        phase: "ScalingUp",
        readyReplicas: 1,
        availableReplicas: 1,
        conditions: [
          condition(
            "Available",
            "False",
            "NotAvailable",
            "1 available replicas, at least 2 required",
            t.recent,
            1,
          ),
          condition("ScalingUp", "True", "ScalingUp", "Scaling up from 1 to 3 replicas", t.recent, 1),
        ],
      },
    },
    {
      scenario: "failed",
      about: "no replica comes up (phase Failed)",
      spec,
      status: {
        ...running,
        phase: "Failed",
        readyReplicas: 0,
        availableReplicas: 0,
        conditions: [
          condition(
            "Available",
            "False",
            "NotAvailable",
            "0 available replicas, at least 2 required",
            t.failedLongAgo,
            1,
          ),
        ],
      },
    },
    {
      scenario: "suspended",
      about: "spec.paused",
      spec: { ...spec, paused: true },
      status: { ...running, conditions: pausedConditions(clock, good) },
    },
    {
      scenario: "terminating",
      about: "deleting its machines",
      finalizers: ["cluster.x-k8s.io/machinedeployment"],
      spec,
      status: {
        ...running,
        conditions: [
          ...good.filter((c) => c.type !== "Deleting"),
          condition("Deleting", "True", "Deleting", "Deleting 3 replicas", t.recent, 1),
        ],
      },
    },
  ];
};
