// Starts the request-path sources of status-write metrics that the
// configuration asks for: the sidecar API proxy and the audit webhook
// receiver. Kinds and namespaces are confirmed through discovery and the
// namespace list with the exporter's own client; the proxy never adds those
// credentials to forwarded requests.
import type { KubeConfig } from "@kubernetes/client-node";
import type { Registry } from "@prometheus-io/client";
import { readFieldFile } from "../config/field-file.ts";
import type { ApiProxyConfig, AuditReceiverConfig } from "../config/schema.ts";
import type { KubeClient } from "../kube/client.ts";
import type { Logger } from "../log.ts";
import { startAuditReceiver } from "./audit/audit-receiver.ts";
import type { KindResolver } from "./kinds.ts";
import { createStatusWriteMetrics, type StatusWriteMetrics } from "./metrics.ts";
import { type ApiProxy, startApiProxy } from "./proxy/api-proxy.ts";
import { createApiserverKindResolver } from "./proxy/apiserver-resolver.ts";
import { operatorUserFrom } from "./proxy/operator-user.ts";
import { upstreamOf } from "./proxy/upstream.ts";

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
  /** Why /readyz must wait (the API proxy process has not answered yet); undefined when nothing is missing. */
  notReady?(): string | undefined;
  close(): Promise<void>;
}

/** Starts the API proxy as `apiProxy` configures it (in the exporter's process, or in its own: proxy-process.ts). */
export function startConfiguredApiProxy(
  p: ApiProxyConfig,
  kubeConfig: KubeConfig,
  kinds: KindResolver,
  metrics: StatusWriteMetrics,
  logger: Logger,
): Promise<ApiProxy> {
  return startApiProxy(
    {
      listen: p.listen,
      allowNonLoopback: p.allowNonLoopback,
      upstream: upstreamOf(kubeConfig),
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
}

/** Starts what is configured; on a failure, closes what had started and rethrows. */
export async function startStatusWriteSources(
  settings: StatusWriteSourceSettings,
  deps: StatusWriteSourceDeps,
): Promise<RunningSources> {
  const { logger } = deps;
  const metrics = createStatusWriteMetrics(deps.registry, settings.metricPrefix);
  // Labels come from what the apiserver confirms to the exporter's own identity.
  const kinds = createApiserverKindResolver(
    (path, query) => deps.client.request("GET", path, { query }),
    logger,
  );
  const closers: (() => Promise<void>)[] = [];
  const close = async (): Promise<void> => {
    await Promise.all(closers.splice(0).map((c) => c()));
  };
  let proxyUrl: string | undefined;
  let proxyCaPem: string | undefined;
  let auditUrl: string | undefined;
  try {
    if (settings.apiProxy) {
      const proxy = await startConfiguredApiProxy(settings.apiProxy, deps.kubeConfig, kinds, metrics, logger);
      closers.push(() => proxy.close());
      proxyUrl = proxy.url;
      proxyCaPem = proxy.caPem;
    }
    if (settings.auditReceiver) {
      const a = settings.auditReceiver;
      const receiver = await startAuditReceiver(
        {
          listen: a.listen,
          certPem: readFieldFile("auditReceiver.certFile", a.certFile) as string,
          keyPem: readFieldFile("auditReceiver.keyFile", a.keyFile) as string,
          bearerToken: readFieldFile("auditReceiver.bearerTokenFile", a.bearerTokenFile),
          clientCaPem: readFieldFile("auditReceiver.clientCaFile", a.clientCaFile),
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
