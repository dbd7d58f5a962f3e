// Objects of the compatibility corpus (test/fixtures/crds-shapes), healthy,
// progressing and failed in each shape (and suspended where the shape has a
// switch), for the testbed.
import { condition, type DraftBuilder, times } from "../realcrds/objects/drafts.ts";
import type { CorpusName } from "./shapes-corpus.ts";

/** A condition the way the Beacon schema has it: no lastTransitionTime (the API server would prune one). */
const timeless = (type: string, status: "True" | "False" | "Unknown", reason: string) => ({
  type,
  status,
  reason,
  message: "",
});

export const corpusDrafts: Record<CorpusName, DraftBuilder> = {
  rollouts: (clock) => {
    const t = times(clock);
    const spec = { image: "registry.example/web:2", replicas: 2 };
    const rollout = (status: "True" | "False" | "Unknown", reason: string, since: string) => ({
      rollout: {
        observedGeneration: 1,
        revision: "2",
        conditions: [condition("Ready", status, reason, "", since, 1)],
      },
      components: [{ name: "web", conditions: [{ type: "Ready", status: "True" }] }],
    });
    return [
      { scenario: "healthy", about: "rolled out", spec, status: rollout("True", "RolledOut", t.settled) },
      {
        scenario: "progressing",
        about: "rolling out",
        spec,
        status: rollout("Unknown", "RollingOut", t.recent),
      },
      {
        scenario: "failed",
        about: "stuck",
        spec,
        status: rollout("False", "ProgressDeadlineExceeded", t.failedLongAgo),
      },
    ];
  },
  beacons: () => {
    const spec = { target: "https://status.example" };
    const status = (s: "True" | "False" | "Unknown", reason: string) => ({
      observedGeneration: 1,
      conditions: [timeless("Ready", s, reason)],
    });
    return [
      { scenario: "healthy", about: "reachable", spec, status: status("True", "Reachable") },
      { scenario: "progressing", about: "first probe pending", spec, status: status("Unknown", "Probing") },
      { scenario: "failed", about: "unreachable", spec, status: status("False", "Unreachable") },
    ];
  },
  runs: (clock) => {
    const t = times(clock);
    const spec = { task: "migrate" };
    return [
      {
        scenario: "healthy",
        about: "succeeded",
        spec,
        status: {
          observedGeneration: 1,
          startTime: t.settled,
          completionTime: t.settled,
          conditions: [condition("Succeeded", "True", "Completed", "", t.settled)],
        },
      },
      {
        scenario: "progressing",
        about: "running",
        spec,
        status: {
          observedGeneration: 1,
          startTime: t.recent,
          conditions: [condition("Succeeded", "Unknown", "Running", "", t.recent)],
        },
      },
      {
        scenario: "failed",
        about: "failed",
        spec,
        status: {
          observedGeneration: 1,
          startTime: t.failedLongAgo,
          completionTime: t.failedLongAgo,
          conditions: [condition("Succeeded", "False", "Failed", "step 2 exited with 1", t.failedLongAgo)],
        },
      },
    ];
  },
  pools: (clock) => {
    const t = times(clock);
    const spec = { replicas: 3 };
    return [
      {
        scenario: "healthy",
        about: "all replicas available",
        spec,
        status: {
          observedGeneration: 1,
          replicas: 3,
          availableReplicas: 3,
          conditions: [condition("Available", "True", "MinimumReplicasAvailable", "", t.settled)],
        },
      },
      {
        scenario: "progressing",
        about: "scaling up",
        spec,
        status: {
          observedGeneration: 1,
          replicas: 3,
          availableReplicas: 1,
          conditions: [
            condition("Available", "False", "MinimumReplicasUnavailable", "", t.recent),
            condition("Progressing", "True", "ReplicaSetUpdated", "", t.recent),
          ],
        },
      },
      {
        scenario: "failed",
        about: "replicas cannot be created",
        spec,
        status: {
          observedGeneration: 1,
          replicas: 0,
          availableReplicas: 0,
          conditions: [
            condition("Available", "False", "MinimumReplicasUnavailable", "", t.failedLongAgo),
            condition("ReplicaFailure", "True", "FailedCreate", "quota exceeded", t.failedLongAgo),
          ],
        },
      },
    ];
  },
  exports: (clock) => {
    const t = times(clock);
    const spec = { source: "orders" };
    return [
      {
        scenario: "healthy",
        about: "completed",
        spec,
        status: {
          phase: "Completed",
          verdict: "Succeeded",
          startTimestamp: t.settled,
          completionTimestamp: t.settled,
          itemsExported: 120,
        },
      },
      {
        scenario: "progressing",
        about: "in progress",
        spec,
        status: { phase: "InProgress", startTimestamp: t.recent },
      },
      {
        scenario: "failed",
        about: "partially failed",
        spec,
        status: {
          phase: "PartiallyFailed",
          verdict: "PartiallyFailed",
          startTimestamp: t.failedLongAgo,
          completionTimestamp: t.failedLongAgo,
          errors: 3,
        },
      },
    ];
  },
  chores: () => {
    const spec = { command: "vacuum" };
    return [
      { scenario: "healthy", about: "succeeded", spec, status: { phase: "Succeeded" } },
      { scenario: "progressing", about: "running", spec, status: { phase: "Running" } },
      { scenario: "failed", about: "failed", spec, status: { phase: "Failed", message: "exit status 2" } },
    ];
  },
  blobs: (clock) => {
    const t = times(clock);
    const spec = { size: "1Gi" };
    const status = (s: "True" | "False" | "Unknown", reason: string, since: string, phase: string) => ({
      observedGeneration: 1,
      phase,
      conditions: [condition("Ready", s, reason, "", since, 1)],
      free: { form: ["anything", 1, true] },
    });
    return [
      { scenario: "healthy", about: "stored", spec, status: status("True", "Stored", t.settled, "Active") },
      {
        scenario: "progressing",
        about: "uploading",
        spec,
        status: status("Unknown", "Uploading", t.recent, "Pending"),
      },
      {
        scenario: "failed",
        about: "upload failed",
        spec,
        status: status("False", "UploadFailed", t.failedLongAgo, "Failed"),
      },
    ];
  },
  tickets: (clock) => {
    const t = times(clock);
    const spec = { subject: "web.shop.example" };
    return [
      {
        scenario: "healthy",
        about: "valid",
        spec,
        status: {
          notAfter: "2030-01-01T00:00:00Z",
          conditions: [condition("Ready", "True", "Issued", "", t.settled, 1)],
        },
      },
      {
        scenario: "progressing",
        about: "issuing",
        spec,
        status: { conditions: [condition("Ready", "False", "Issuing", "", t.recent, 1)] },
      },
      {
        scenario: "failed",
        about: "refused",
        spec,
        status: { conditions: [condition("Ready", "False", "Denied", "", t.failedLongAgo, 1)] },
      },
    ];
  },
  mirrors: (clock) => {
    const t = times(clock);
    const spec = { url: "https://mirror.example/repo" };
    const status = (s: "True" | "False" | "Unknown", reason: string, since: string) => ({
      summary: { observedGeneration: 1, lastSyncTime: since },
      conditions: [condition("Ready", s, reason, "", since)],
    });
    return [
      { scenario: "healthy", about: "in sync", spec, status: status("True", "Synced", t.settled) },
      { scenario: "progressing", about: "syncing", spec, status: status("Unknown", "Syncing", t.recent) },
      {
        scenario: "failed",
        about: "upstream gone",
        spec,
        status: status("False", "UpstreamNotFound", t.failedLongAgo),
      },
      {
        scenario: "suspended",
        about: "spec.suspend",
        spec: { ...spec, suspend: true },
        status: status("False", "UpstreamNotFound", t.failedLongAgo),
      },
    ];
  },
  deliveries: (clock) => {
    const t = times(clock);
    const spec = { repo: "https://git.example/fleet.git", path: "apps/shop" };
    const status = (health: string, sync: string, phase: string) => ({
      reconciledAt: t.recent,
      health: { status: health },
      sync: { status: sync, revision: "6f8e9c3" },
      operation: { phase, finishedAt: t.settled },
    });
    return [
      {
        scenario: "healthy",
        about: "Healthy and Synced",
        spec,
        status: status("Healthy", "Synced", "Succeeded"),
      },
      {
        scenario: "progressing",
        about: "Progressing",
        spec,
        status: status("Progressing", "Synced", "Running"),
      },
      {
        scenario: "failed",
        about: "Degraded and OutOfSync",
        spec,
        status: {
          ...status("Degraded", "OutOfSync", "Failed"),
          conditions: [{ type: "SyncError", message: "apply failed" }],
        },
      },
    ];
  },
};
