// The request-path sources of status-write metrics that the configuration
// asks for, as one part of the app: the sidecar API proxy and the audit
// webhook receiver. Kinds are resolved through discovery with the exporter's
// own client; the proxy never adds those credentials to forwarded requests.
import { readFileSync } from "node:fs";
import type { KubeConfig } from "@kubernetes/client-node";
import type { Registry } from "@prometheus-io/client";
import type { Config } from "../config/schema.ts";
import type { KubeClient } from "../kube/client.ts";
import type { Logger } from "../log.ts";
import { startApiProxy } from "../statuswrites/api-proxy.ts";
import { startAuditReceiver } from "../statuswrites/audit-receiver.ts";
import { createDiscoveryKindResolver, type KindResolver } from "../statuswrites/kinds.ts";
import { createStatusWriteMetrics, type StatusWriteMetrics } from "../statuswrites/metrics.ts";
import { upstreamOf } from "../statuswrites/upstream.ts";
import { type Component, changed } from "./component.ts";

export interface StatusWriteSources extends Component {
  /** Where the API proxy listens, once started (undefined when it is off). */
  readonly proxyUrl: string | undefined;
  /** Where the audit receiver listens, once started (undefined when it is off). */
  readonly auditUrl: string | undefined;
}

export interface StatusWriteDeps {
  kubeConfig: KubeConfig;
  client: KubeClient;
  registry: Registry;
  logger: Logger;
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

export function buildStatusWriteSources(config: Config, deps: StatusWriteDeps): StatusWriteSources {
  const { logger } = deps;
  const closers: (() => Promise<void>)[] = [];
  let proxyUrl: string | undefined;
  let auditUrl: string | undefined;
  let metrics: StatusWriteMetrics | undefined;
  const stop = async (): Promise<void> => {
    const closing = closers.splice(0);
    await Promise.all(closing.map((close) => close()));
  };

  async function start(): Promise<void> {
    if (!config.apiProxy && !config.auditReceiver) return;
    metrics ??= createStatusWriteMetrics(deps.registry, config.metricPrefix);
    const kinds = discoveryKinds(deps.client, logger);
    try {
      if (config.apiProxy) {
        const p = config.apiProxy;
        const proxy = await startApiProxy(
          {
            listen: p.listen,
            allowNonLoopback: p.allowNonLoopback,
            upstream: upstreamOf(deps.kubeConfig),
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
      await stop();
      throw error;
    }
  }

  return {
    name: "status-write sources",
    get proxyUrl() {
      return proxyUrl;
    },
    get auditUrl() {
      return auditUrl;
    },
    start,
    async reload(next, previous) {
      if (changed(next, previous, (c) => [c.apiProxy, c.auditReceiver])) {
        logger.warn("apiProxy and auditReceiver changes take effect after a restart");
      }
    },
    stop,
  };
}
