// The kubeconfig an operator in the same pod uses to talk through the proxy:
// server = the proxy, credentials = the pod's own service-account token file
// (client-go re-reads it, so rotation keeps working). It holds no secret.
import { renameSync, writeFileSync } from "node:fs";
import { stringify } from "yaml";
import { serviceAccountTokenPath } from "./upstream.ts";

export function operatorKubeconfigYaml(proxyUrl: string, tokenFile = serviceAccountTokenPath): string {
  return stringify({
    apiVersion: "v1",
    kind: "Config",
    clusters: [{ name: "cr-status-exporter-proxy", cluster: { server: proxyUrl } }],
    users: [{ name: "pod-service-account", user: { tokenFile } }],
    contexts: [
      {
        name: "cr-status-exporter-proxy",
        context: { cluster: "cr-status-exporter-proxy", user: "pod-service-account" },
      },
    ],
    "current-context": "cr-status-exporter-proxy",
  });
}

/** Writes atomically, so an operator starting at the same time never reads half a file. */
export function writeOperatorKubeconfig(path: string, proxyUrl: string, tokenFile?: string): void {
  const temporary = `${path}.tmp-${process.pid}`;
  writeFileSync(temporary, operatorKubeconfigYaml(proxyUrl, tokenFile), { mode: 0o644 });
  renameSync(temporary, path);
}
