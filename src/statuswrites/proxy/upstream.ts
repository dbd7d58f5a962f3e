// Where the real apiserver is and how to verify it: server URL and CA only.
// Credentials in a kubeconfig are deliberately ignored: the proxy forwards the
// caller's own and never holds any.
import { readFileSync } from "node:fs";
import type { KubeConfig } from "@kubernetes/client-node";

export interface Upstream {
  /** https://host:port */
  server: string;
  /** PEM bundle to verify the apiserver; the system CAs when undefined. */
  caPem: string | undefined;
}

export const serviceAccountTokenPath = "/var/run/secrets/kubernetes.io/serviceaccount/token";

/** The apiserver URL and CA of the kubeconfig's current cluster; never its credentials. */
export function upstreamOf(kubeConfig: KubeConfig): Upstream {
  const cluster = kubeConfig.getCurrentCluster();
  if (!cluster) throw new Error("apiProxy: the kubeconfig has no current cluster");
  let caPem: string | undefined;
  if (cluster.caData) caPem = Buffer.from(cluster.caData, "base64").toString("utf8");
  else if (cluster.caFile) caPem = readFileSync(cluster.caFile, "utf8");
  return { server: cluster.server, caPem };
}
