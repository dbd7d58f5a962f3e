// Starts the request-path sources of status-write metrics that the
// configuration asks for: the sidecar API proxy and the audit webhook
// receiver. Kinds are resolved through discovery with the exporter's own
// client; the proxy never adds those credentials to forwarded requests.
import { readFileSync } from "node:fs";
import type { KubeConfig } from "@kubernetes/client-node";
import type { Registry } from "@prometheus-io/client";
import type { ApiProxyConfig, AuditReceiverConfig } from "../config/schema.ts";
import type { KubeClient } from "../kube/client.ts";
import type { Logger } from "../log.ts";
import { startApiProxy } from "./api-proxy.ts";
import { startAuditReceiver } from "./audit-receiver.ts";
import { createDiscoveryKindResolver, type KindResolver } from "./kinds.ts";
import { createStatusWriteMetrics } from "./metrics.ts";
import { operatorUserFrom } from "./operator-user.ts";
import { upstreamOf } from "./upstream.ts";

export interface StatusWriteSourceSettings {
  apiProxy: ApiProxyConfig | undefined;
  auditReceiver: AuditReceiverConfig | undefined;
  metricPrefix: string;
}

export interface StatusWriteSourceDeps {
  kubeConfig: KubeConfig;
  client: KubeClient;
  registry: Registry;
  logger: Logger;
}

export interface RunningSources {
  proxyUrl: string | undefined;
  /** The CA that signed the proxy's serving certificate (undefined for plain HTTP). */
  proxyCaPem: string | undefined;
  auditUrl: string | undefined;
  close(): Promise<void>;
}

function discoveryKinds(client: KubeClient, logger: Logger): KindResolver {
  return createDiscoveryKindResolver({
    fetchResourceList: async (group, version) => {
      const path = group === "" ? `/api/${version}` : `/apis/${group}/${version}`;
      const response = await client.request<{ resources?: { name?: unknown; kind?: unknown }[] }>(
        "GET",
        path,
      );
      if (response.status !== 200) throw new Error(`discovery ${path}: HTTP ${response.status}`);
      return response.body;
    },
    onError: (error, group, version) =>
      logger.debug("kind discovery failed", {
        group,
        version,
        error: error instanceof Error ? error.message : String(error),
      }),
  });
}

function readTrimmed(path: string | undefined): string | undefined {
  return path ? readFileSync(path, "utf8").trim() : undefined;
}

/** Starts what is configured; on a failure, closes what had started and rethrows. */
export async function startStatusWriteSources(
  settings: StatusWriteSourceSettings,
  deps: StatusWriteSourceDeps,
): Promise<RunningSources> {
  const { logger } = deps;
  const metrics = createStatusWriteMetrics(deps.registry, settings.metricPrefix);
  const kinds = discoveryKinds(deps.client, logger);
  const closers: (() => Promise<void>)[] = [];
  const close = async (): Promise<void> => {
    await Promise.all(closers.splice(0).map((c) => c()));
  };
  let proxyUrl: string | undefined;
  let proxyCaPem: string | undefined;
  let auditUrl: string | undefined;
  try {
    if (settings.apiProxy) {
      const p = settings.apiProxy;
      const proxy = await startApiProxy(
        {
          listen: p.listen,
          allowNonLoopback: p.allowNonLoopback,
          upstream: upstreamOf(deps.kubeConfig),
          kubeconfigPath: p.kubeconfigPath,
          tokenFile: p.tokenFile,
          user: p.userFromKubeconfig
            ? operatorUserFrom(p.userFromKubeconfig, "apiProxy.userFromKubeconfig")
            : undefined,
          plainHttp: p.plainHttp,
          kinds,
        },
        metrics,
        logger,
      );
      closers.push(() => proxy.close());
      proxyUrl = proxy.url;
      proxyCaPem = proxy.caPem;
    }
    if (settings.auditReceiver) {
      const a = settings.auditReceiver;
      const receiver = await startAuditReceiver(
        {
          listen: a.listen,
          certPem: readTrimmed(a.certFile) as string,
          keyPem: readTrimmed(a.keyFile) as string,
          bearerToken: readTrimmed(a.bearerTokenFile),
          clientCaPem: readTrimmed(a.clientCaFile),
          kinds,
        },
        metrics,
        logger,
      );
      closers.push(() => receiver.close());
      auditUrl = receiver.url;
    }
  } catch (error) {
    await close();
    throw error;
  }
  return { proxyUrl, proxyCaPem, auditUrl, close };
}
