// Where the real apiserver is and how to verify it: server URL and CA only.
// Credentials in a kubeconfig are deliberately ignored: the proxy forwards the
// caller's own and never holds any.
import { readFileSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { parse } from "yaml";

export interface Upstream {
  /** https://host:port */
  server: string;
  /** PEM bundle to verify the apiserver; the system CAs when undefined. */
  caPem: string | undefined;
}

const serviceAccountDir = "/var/run/secrets/kubernetes.io/serviceaccount";
export const serviceAccountTokenPath = `${serviceAccountDir}/token`;

/** The in-cluster apiserver, from the service environment variables and the mounted CA. */
export function inClusterUpstream(
  env: NodeJS.ProcessEnv = process.env,
  caPath = `${serviceAccountDir}/ca.crt`,
): Upstream {
  const host = env.KUBERNETES_SERVICE_HOST;
  const port = env.KUBERNETES_SERVICE_PORT;
  if (!host || !port) {
    throw new Error("in-cluster upstream: KUBERNETES_SERVICE_HOST and KUBERNETES_SERVICE_PORT must be set");
  }
  const hostPart = host.includes(":") ? `[${host}]` : host;
  return { server: `https://${hostPart}:${port}`, caPem: readFileSync(caPath, "utf8") };
}

interface KubeconfigCluster {
  server?: unknown;
  "certificate-authority"?: unknown;
  "certificate-authority-data"?: unknown;
}

interface Kubeconfig {
  "current-context"?: unknown;
  contexts?: { name?: unknown; context?: { cluster?: unknown } }[];
  clusters?: { name?: unknown; cluster?: KubeconfigCluster }[];
}

/** The current context's cluster from a kubeconfig file. */
export function kubeconfigUpstream(path: string): Upstream {
  const config = parse(readFileSync(path, "utf8")) as Kubeconfig | null;
  const contextName = config?.["current-context"];
  const context = config?.contexts?.find((c) => c.name === contextName)?.context;
  const cluster = config?.clusters?.find((c) => c.name === context?.cluster)?.cluster;
  if (!cluster || typeof cluster.server !== "string") {
    throw new Error(
      `kubeconfig ${path}: no cluster server for current-context ${JSON.stringify(contextName)}`,
    );
  }
  if (!cluster.server.startsWith("https://")) {
    throw new Error(`kubeconfig ${path}: server ${JSON.stringify(cluster.server)} is not https`);
  }
  let caPem: string | undefined;
  const data = cluster["certificate-authority-data"];
  const file = cluster["certificate-authority"];
  if (typeof data === "string") caPem = Buffer.from(data, "base64").toString("utf8");
  else if (typeof file === "string") caPem = readFileSync(resolve(dirname(path), file), "utf8");
  return { server: cluster.server, caPem };
}
