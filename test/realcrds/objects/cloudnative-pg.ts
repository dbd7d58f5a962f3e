// CloudNativePG: a Cluster's phase is a sentence ("Cluster in healthy state"),
// not an enum, beside a Ready condition whose entries carry observedGeneration
// (no object-level one); hibernation (the cnpg.io/hibernation annotation,
// reported as a condition of that type) is its suspend. A Backup is a
// run-to-completion kind with a lower-case phase and no conditions.
import { condition, type DraftBuilder, testFinalizer, times } from "./drafts.ts";

export const cluster: DraftBuilder = (clock) => {
  const t = times(clock);
  const spec = {
    instances: 3,
    imageName: "ghcr.io/cloudnative-pg/postgresql:17.6",
    storage: { size: "10Gi" },
  };
  const instanceNames = ["shop-db-1", "shop-db-2", "shop-db-3"];
  const ready = condition("Ready", "True", "ClusterIsReady", "Cluster is Ready", t.settled, 1);
  const healthy = {
    phase: "Cluster in healthy state",
    instances: 3,
    readyInstances: 3,
    instanceNames,
    instancesStatus: { healthy: instanceNames },
    currentPrimary: "shop-db-1",
    targetPrimary: "shop-db-1",
    latestGeneratedNode: 3,
    conditions: [
      ready,
      condition(
        "ContinuousArchiving",
        "True",
        "ContinuousArchivingSuccess",
        "Continuous archiving is working",
        t.settled,
        1,
      ),
    ],
  };
  const notReady = (since: string) =>
    condition("Ready", "False", "ClusterIsNotReady", "Cluster Is Not Ready", since, 1);
  return [
    { scenario: "healthy", about: "three instances, all ready", spec, status: healthy },
    {
      scenario: "progressing",
      about: "the primary is being set up",
      spec,
      status: {
        phase: "Setting up primary",
        phaseReason: "Creating primary instance shop-db-1",
        instances: 1,
        readyInstances: 0,
        targetPrimary: "shop-db-1",
        latestGeneratedNode: 1,
        conditions: [notReady(t.recent)],
      },
    },
    {
      scenario: "failed",
      about: "unrecoverable, waiting for manual intervention",
      spec,
      status: {
        ...healthy,
        phase: "Cluster is unrecoverable and needs manual intervention",
        phaseReason: "primary instance shop-db-1 has lost its data volume",
        readyInstances: 0,
        instancesStatus: { failed: instanceNames },
        conditions: [notReady(t.failedLongAgo)],
      },
    },
    {
      scenario: "suspended",
      about: "hibernated: all instances shut down on purpose",
      annotations: { "cnpg.io/hibernation": "on" },
      spec,
      status: {
        ...healthy,
        readyInstances: 0,
        instancesStatus: {},
        conditions: [
          notReady(t.recent),
          condition("cnpg.io/hibernation", "True", "Hibernated", "Cluster has been hibernated", t.recent, 1),
        ],
      },
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

export const backup: DraftBuilder = (clock) => {
  const t = times(clock);
  const spec = { cluster: { name: "shop-db" }, method: "barmanObjectStore" };
  const started = {
    method: "barmanObjectStore",
    serverName: "shop-db",
    destinationPath: "s3://backups/shop-db",
    startedAt: t.recent,
  };
  const completed = {
    ...started,
    phase: "completed",
    startedAt: t.settled,
    stoppedAt: t.settled,
    backupId: "20260101T000000",
    beginWal: "000000010000000000000003",
    endWal: "000000010000000000000004",
  };
  return [
    { scenario: "healthy", about: "completed", spec, status: completed },
    { scenario: "progressing", about: "running", spec, status: { ...started, phase: "running" } },
    {
      scenario: "failed",
      about: "barman-cloud could not reach the object store",
      spec,
      status: {
        ...started,
        phase: "failed",
        stoppedAt: t.failedLongAgo,
        error: "exit status 4: can't connect to the object store",
      },
    },
    {
      scenario: "terminating",
      about: "deleted once completed",
      finalizers: [testFinalizer],
      spec,
      status: completed,
    },
  ];
};
