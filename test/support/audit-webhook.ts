// The apiserver side of the audit webhook, as docs/status-writes.md documents
// it: the audit policy (status writes of example.com at Metadata level,
// nothing else), the webhook kubeconfig pointing at a receiver, and the
// kube-apiserver flags that use both.
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { stringify } from "yaml";

export const documentedAuditPolicy = {
  apiVersion: "audit.k8s.io/v1",
  kind: "Policy",
  omitStages: ["RequestReceived"],
  rules: [
    {
      level: "Metadata",
      verbs: ["update", "patch"],
      resources: [{ group: "example.com", resources: ["*/status"] }],
    },
    { level: "None" },
  ],
};

/** Writes the policy and the webhook kubeconfig into `directory`; returns the apiserver flags. */
export function auditWebhookFiles(
  directory: string,
  receiver: { url: string; caPem: string; token: string },
): string[] {
  const policyPath = join(directory, "audit-policy.yaml");
  const webhookPath = join(directory, "audit-webhook.kubeconfig");
  writeFileSync(policyPath, stringify(documentedAuditPolicy));
  writeFileSync(
    webhookPath,
    stringify({
      apiVersion: "v1",
      kind: "Config",
      clusters: [
        {
          name: "cr-status-exporter",
          cluster: {
            server: receiver.url,
            "certificate-authority-data": Buffer.from(receiver.caPem).toString("base64"),
          },
        },
      ],
      users: [{ name: "kube-apiserver", user: { token: receiver.token } }],
      contexts: [{ name: "audit", context: { cluster: "cr-status-exporter", user: "kube-apiserver" } }],
      "current-context": "audit",
    }),
    { mode: 0o600 },
  );
  return [
    `--audit-policy-file=${policyPath}`,
    `--audit-webhook-config-file=${webhookPath}`,
    "--audit-webhook-batch-max-wait=1s",
  ];
}
