// Starts the request-path sources of status-write metrics that the
// configuration asks for: the sidecar API proxy and the audit webhook receiver.
import { readFileSync } from "node:fs";
import type { KubeConfig } from "@kubernetes/client-node";
import type { Registry } from "@prometheus-io/client";
import { readFieldFile } from "./config/field-file.ts";
import type { Config } from "./config/schema.ts";
import type { KubeClient } from "./kube/client.ts";
import type { Logger } from "./log.ts";
import { createApiserverKindResolver } from "./statuswrites/apiserver-resolver.ts";
import {
  createStatusWriteMetrics,
  startApiProxy,
  startAuditReceiver,
  type Upstream,
} from "./statuswrites/index.ts";

export interface StatusWriteSources {
  proxyUrl: string | undefined;
  auditUrl: string | undefined;
  close(): Promise<void>;
}

/** The apiserver URL and CA of the kubeconfig's current cluster; never its credentials. */
export function upstreamOf(kubeConfig: KubeConfig): Upstream {
  const cluster = kubeConfig.getCurrentCluster();
  if (!cluster) throw new Error("apiProxy: the kubeconfig has no current cluster");
  let caPem: string | undefined;
  if (cluster.caData) caPem = Buffer.from(cluster.caData, "base64").toString("utf8");
  else if (cluster.caFile) caPem = readFileSync(cluster.caFile, "utf8");
  return { server: cluster.server, caPem };
}

export async function startStatusWriteSources(
  config: Config,
  kubeConfig: KubeConfig,
  client: KubeClient,
  registry: Registry,
  logger: Logger,
): Promise<StatusWriteSources> {
  if (!config.apiProxy && !config.auditReceiver) {
    return { proxyUrl: undefined, auditUrl: undefined, close: async () => {} };
  }
  const metrics = createStatusWriteMetrics(registry, config.metricPrefix);
  // Labels come from what the apiserver confirms to the exporter's own identity.
  const kinds = createApiserverKindResolver((path, query) => client.request("GET", path, { query }), logger);
  const closers: (() => Promise<void>)[] = [];
  let proxyUrl: string | undefined;
  let auditUrl: string | undefined;
  try {
    if (config.apiProxy) {
      const p = config.apiProxy;
      const proxy = await startApiProxy(
        {
          listen: p.listen,
          allowNonLoopback: p.allowNonLoopback,
          upstream: upstreamOf(kubeConfig),
          kubeconfigPath: p.kubeconfigPath,
          tokenFile: p.tokenFile,
          kinds,
        },
        metrics,
        logger,
      );
      closers.push(() => proxy.close());
      proxyUrl = proxy.url;
    }
    if (config.auditReceiver) {
      const a = config.auditReceiver;
      const read = (key: keyof typeof a): string | undefined => readFieldFile(`auditReceiver.${key}`, a[key]);
      const receiver = await startAuditReceiver(
        {
          listen: a.listen,
          certPem: read("certFile") as string,
          keyPem: read("keyFile") as string,
          bearerToken: read("bearerTokenFile"),
          clientCaPem: read("clientCaFile"),
          kinds,
        },
        metrics,
        logger,
      );
      closers.push(() => receiver.close());
      auditUrl = receiver.url;
    }
  } catch (error) {
    await Promise.all(closers.map((close) => close()));
    throw error;
  }
  return {
    proxyUrl,
    auditUrl,
    close: async () => {
      await Promise.all(closers.map((close) => close()));
    },
  };
}
