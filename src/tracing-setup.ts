// Turns the tracing configuration into a running tracer (or none), with
// Lease-based leader election when several replicas run.
import { hostname } from "node:os";
import type { Config } from "./config/schema.ts";
import type { KubeClient } from "./kube/client.ts";
import type { Logger } from "./log.ts";
import { createTracing, LeaseElector, type StateTracer } from "./tracing/index.ts";

export interface TracingHandle {
  tracer: StateTracer | undefined;
  /** Hands the Lease back (the exporter shuts the tracer itself down). */
  stopElection(): Promise<void>;
}

export async function setUpTracing(
  config: Config,
  client: KubeClient,
  logger: Logger,
): Promise<TracingHandle> {
  const t = config.tracing;
  if (t.enabled === false) return { tracer: undefined, stopElection: async () => {} };
  let elector: LeaseElector | undefined;
  if (t.leaseName && t.leaseNamespace) {
    elector = new LeaseElector({
      transport: {
        request: (method, path, body, contentType) => {
          const options: Parameters<KubeClient["request"]>[2] = {};
          if (body !== undefined) options.body = body;
          if (contentType !== undefined) options.contentType = contentType;
          return client.request(method, path, options);
        },
      },
      namespace: t.leaseNamespace,
      name: t.leaseName,
      identity: process.env.POD_NAME ?? `${hostname()}-${process.pid}`,
      logger,
    });
  }
  const tracer = await createTracing(
    {
      cluster: t.clusterName,
      ...(t.endpoint !== undefined && { endpoint: t.endpoint }),
      planner: { timeoutMs: t.generationTimeoutSeconds * 1000 },
      ...(elector && { isLeader: () => elector.isLeader() }),
    },
    logger,
  );
  if (!tracer) {
    // createTracing has logged why.
    return { tracer: undefined, stopElection: async () => {} };
  }
  elector?.start();
  logger.info("tracing on", { leaderElection: elector ? `${t.leaseNamespace}/${t.leaseName}` : "off" });
  return {
    tracer,
    stopElection: async () => {
      await elector?.stop();
    },
  };
}
