// What zero configuration exports for each real kind (test/unit/real-kinds-decisions.test.ts checks the
// plans and verdicts through the pure pipeline, test/e2e/examples.test.ts the cr_status on the testbed):
// the labels of cr_exporter_resource_info and the cr_status of each draft. docs/compatibility.md is this table.

// kind → [version, conditions, observed generation, phase, readiness (source), runs, condition times, cr_status per draft]
export const zeroConfigExports: Record<string, string> = {
  "cert-manager/Certificate":
    "v1 | status.conditions | condition | - | Ready (observed) | false | lastTransitionTime | healthy=Current progressing=InProgress failed=Failed terminating=Terminating",
  "cert-manager/Issuer":
    "v1 | status.conditions | condition | - | Ready (observed) | false | lastTransitionTime | healthy=Current failed=Failed terminating=Terminating",
  "cert-manager/ClusterIssuer":
    "v1 | status.conditions | condition | - | Ready (observed) | false | lastTransitionTime | healthy=Current failed=Failed terminating=Terminating",
  "cert-manager/CertificateRequest":
    "v1 | status.conditions | condition | - | Ready (observed) | false | lastTransitionTime | healthy=Current progressing=InProgress failed=Failed terminating=Terminating",
  "flux/Kustomization":
    "v1 | status.conditions | status status.observedGeneration | - | Ready (observed) | false | lastTransitionTime | healthy=Current progressing=InProgress failed=Failed suspended=Failed terminating=Terminating",
  "flux/HelmRelease":
    "v2 | status.conditions | status status.observedGeneration | - | Ready (observed) | false | lastTransitionTime | healthy=Current progressing=InProgress failed=Failed suspended=Failed terminating=Terminating",
  "flux/GitRepository":
    "v1 | status.conditions | status status.observedGeneration | - | Ready (observed) | false | lastTransitionTime | healthy=Current progressing=InProgress failed=Failed suspended=Failed terminating=Terminating",
  "flux/HelmRepository":
    "v1 | status.conditions | status status.observedGeneration | - | Ready (observed) | false | lastTransitionTime | healthy=Current progressing=InProgress failed=Failed suspended=Failed terminating=Terminating",
  "flux/OCIRepository":
    "v1 | status.conditions | status status.observedGeneration | - | Ready (observed) | false | lastTransitionTime | healthy=Current progressing=InProgress failed=Failed suspended=Failed terminating=Terminating",
  // Health and sync are state strings, not conditions: ready when Healthy and Synced, Degraded
  // Failed after failedAfter (since status.health.lastTransitionTime); health Suspended is progress.
  "argo-cd/Application":
    "v1alpha1 | - | condition | - | - (states) | false | - | healthy=Current progressing=InProgress failed=Failed suspended=InProgress terminating=Terminating",
  // Established/Offered: none of Ready, Succeeded, Available; Ready stands in until the sample bound,
  // and meanwhile an object without it, whose conditions carry observedGeneration, is not yet reconciled.
  "crossplane/CompositeResourceDefinition":
    "v1 | status.conditions | condition | - | Ready (pending) | false | lastTransitionTime | healthy=InProgress terminating=Terminating",
  "crossplane/Composition":
    "v1 | - | condition | - | - (none) | false | - | healthy=Unknown terminating=Terminating",
  // Installed/Healthy: no readiness condition is detected, so no state is judged (InProgress while Ready
  // stands in, Current after the sample bound): set readyCondition: Healthy.
  "crossplane/Provider":
    "v1 | status.conditions | condition | - | Ready (pending) | false | lastTransitionTime | healthy=InProgress progressing=InProgress failed=InProgress suspended=InProgress terminating=Terminating",
  "crossplane/Operation":
    "v1alpha1 | status.conditions | condition | - | Succeeded (observed) | true | lastTransitionTime | healthy=Current progressing=InProgress failed=Failed terminating=Terminating",
  "crossplane/Object":
    "v1alpha2 | status.conditions | status status.observedGeneration | - | Ready (observed) | false | lastTransitionTime | healthy=Current progressing=InProgress failed=Failed suspended=Current terminating=Terminating",
  "cluster-api/Cluster":
    "v1beta2 | status.conditions | status status.observedGeneration | status.phase | Available (observed) | false | lastTransitionTime | healthy=Current progressing=InProgress failed=Failed suspended=Current terminating=Terminating",
  "cluster-api/Machine":
    "v1beta2 | status.conditions | status status.observedGeneration | status.phase | Ready (observed) | false | lastTransitionTime | healthy=Current progressing=InProgress failed=Failed suspended=Current terminating=Terminating",
  "cluster-api/MachineDeployment":
    "v1beta2 | status.conditions | status status.observedGeneration | status.phase | Available (observed) | false | lastTransitionTime | healthy=Current progressing=InProgress failed=Failed suspended=Current terminating=Terminating",
  "cloudnative-pg/Cluster":
    "v1 | status.conditions | condition | status.phase | Ready (observed) | false | lastTransitionTime | healthy=Current progressing=InProgress failed=Failed suspended=InProgress terminating=Terminating",
  // Phase only ("completed", "failed", "running"): the default table, a run.
  "cloudnative-pg/Backup":
    "v1 | - | condition | status.phase | - (none) | true | - | healthy=Current progressing=InProgress failed=Failed terminating=Terminating",
};

/** The cr_status zero config gives each draft of a kind: scenario → result. */
export function zeroConfigStatuses(id: string): Record<string, string> {
  const row = zeroConfigExports[id];
  if (!row) throw new Error(`no zero-config expectation for ${id}`);
  const results = row.split(" | ").at(-1) ?? "";
  return Object.fromEntries(results.split(" ").map((pair) => pair.split("=") as [string, string]));
}
