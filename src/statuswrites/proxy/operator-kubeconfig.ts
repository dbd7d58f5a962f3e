// The kubeconfig an operator in the same pod uses to talk through the proxy:
// server = the proxy over https, trusted through the proxy's own CA
// (certificate-authority-data), credentials = the pod's own service-account
// token file (client-go re-reads it, so rotation keeps working). client-go
// sends a kubeconfig's credentials only to an https server, hence the TLS.
import { renameSync, writeFileSync } from "node:fs";
import { stringify } from "yaml";
import { serviceAccountTokenPath } from "./upstream.ts";

export interface OperatorKubeconfig {
  /** The proxy's URL. */
  server: string;
  /** The CA that signed the proxy's serving certificate; absent for a plain-HTTP proxy. */
  caPem?: string | undefined;
  /** The kubeconfig `user` entry; `{ tokenFile: <the pod's service-account token> }` by default. */
  user?: Record<string, unknown> | undefined;
}

export function operatorKubeconfigYaml(config: OperatorKubeconfig): string {
  const cluster: Record<string, unknown> = { server: config.server };
  if (config.caPem !== undefined) {
    cluster["certificate-authority-data"] = Buffer.from(config.caPem).toString("base64");
  }
  return stringify({
    apiVersion: "v1",
    kind: "Config",
    clusters: [{ name: "cr-status-exporter-proxy", cluster }],
    users: [{ name: "operator", user: config.user ?? { tokenFile: serviceAccountTokenPath } }],
    contexts: [
      {
        name: "cr-status-exporter-proxy",
        context: { cluster: "cr-status-exporter-proxy", user: "operator" },
      },
    ],
    "current-context": "cr-status-exporter-proxy",
  });
}

/**
 * Writes atomically, so an operator starting at the same time never reads
 * half a file. `mode` 0644 unless the user entry carries a secret inline.
 */
export function writeOperatorKubeconfig(path: string, config: OperatorKubeconfig, mode = 0o644): void {
  const temporary = `${path}.tmp-${process.pid}`;
  writeFileSync(temporary, operatorKubeconfigYaml(config), { mode });
  renameSync(temporary, path);
}
