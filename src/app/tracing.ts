// Tracing as parts of the app: the tracer the collectors feed (with its
// Lease elector when several replicas run, one Lease per shard when sharded),
// and the clock that ends open root
// spans whose timeout passed when nothing else happens. The OpenTelemetry SDK
// is imported only when tracing is on.
import { hostname } from "node:os";
import type { SpanProcessor } from "@opentelemetry/sdk-trace";
import type { Registry } from "@prometheus-io/client";
import type { Config } from "../config/schema.ts";
import type { KubeClient } from "../kube/client.ts";
import { LeaseElector } from "../kube/lease-elector.ts";
import type { Logger } from "../log.ts";
import { registerTracingMetrics } from "../tracing/metrics.ts";
import { type Environment, resolveTracingTarget, rootSampling } from "../tracing/otel-env.ts";
import type { StateTracer } from "../tracing/state-tracer.ts";
import { type Component, changed } from "./component.ts";

export interface TracingParts {
  /** Undefined when tracing is off. */
  tracer: StateTracer | undefined;
  /** Elector and SDK: started first, stopped last (after the last span is planned). */
  tracing: Component;
  /** The periodic timeout check: started last, stopped first. */
  clock: Component;
  /** The tracing Lease's elector (undefined: tracing off, or no Lease), which the OTLP metrics export may share. */
  elector: { namespace: string; name: string; elector: LeaseElector } | undefined;
}

export interface TracingDeps {
  client: KubeClient;
  registry: Registry;
  logger: Logger;
  env: Environment;
  /** Epoch milliseconds. */
  nowMs: () => number;
  /** Span processors instead of the OTLP exporter (tests). */
  spanProcessors: SpanProcessor[] | undefined;
  /** How often open root spans are checked against their timeout. */
  tickIntervalMs: number;
  /**
   * Where the objects' trace records are (their store entries: the
   * collectors'): what the clock ticks, and what the open-episodes gauge counts.
   */
  records: { tick(nowMs: number): void; open(): number };
}

const restartNotice = (logger: Logger) =>
  async function reload(next: Config, previous: Config): Promise<void> {
    if (changed(next, previous, (c) => c.tracing)) {
      logger.warn("tracing changes take effect after a restart");
    }
  };

/**
 * The Lease of this process's shard: each shard emits its own objects'
 * spans, so replicas of one shard elect among themselves, and the shards
 * never compete. (StatefulSet shards need none: each is one pod.)
 */
export function shardLeaseName(name: string | undefined, sharding: Config["sharding"]): string | undefined {
  if (name === undefined || sharding?.kind !== "fixed" || sharding.total === 1) return name;
  return `${name}-shard-${sharding.shard}`;
}

/** The Lease elector that lets one replica of a shard export spans (or push metrics); undefined without a Lease name and namespace. */
export function leaseElector(
  name: string | undefined,
  namespace: string | undefined,
  deps: Pick<TracingDeps, "client" | "env" | "logger" | "nowMs">,
): LeaseElector | undefined {
  if (!name || !namespace) return undefined;
  return new LeaseElector({
    request: deps.client.request,
    namespace,
    name,
    identity: deps.env.POD_NAME ?? `${hostname()}-${process.pid}`,
    logger: deps.logger,
    nowMs: deps.nowMs,
  });
}

export async function buildTracing(config: Config, deps: TracingDeps): Promise<TracingParts> {
  const { logger, env } = deps;
  const t = config.tracing;
  const target = deps.spanProcessors
    ? undefined
    : resolveTracingTarget(
        { enabled: t.enabled, endpoint: t.endpoint, tracesEndpoint: t.tracesEndpoint },
        env,
      );
  const idle = async (): Promise<void> => {};
  if (target && !target.on) {
    logger.info("tracing off", { reason: target.reason });
    return {
      tracer: undefined,
      tracing: { name: "tracing", start: idle, reload: restartNotice(logger), stop: idle },
      clock: { name: "tracing clock", start: idle, reload: idle, stop: idle },
      elector: undefined,
    };
  }
  if (target?.otlp.warning) logger.warn("tracing endpoint", { warning: target.otlp.warning });
  const sampling = rootSampling(env);
  const leaseName = shardLeaseName(t.leaseName, config.sharding);
  const elector = leaseElector(leaseName, t.leaseNamespace, deps);
  const metrics = registerTracingMetrics(deps.registry, config.metricPrefix);
  const { createTracing } = await import("../tracing/sdk-setup.ts");
  const tracer = createTracing({
    cluster: t.clusterName,
    destination: target ? { otlp: target.otlp } : { spanProcessors: deps.spanProcessors ?? [] },
    sampling,
    planner: { timeoutMs: t.generationTimeoutSeconds * 1000 },
    ...(elector && { isLeader: () => elector.isLeader() }),
    nowMs: deps.nowMs,
    metrics,
    env,
    logger,
  });
  metrics.follow({ isLeader: () => elector?.isLeader() ?? true, openEpisodes: deps.records.open });
  let ticker: NodeJS.Timeout | undefined;
  return {
    tracer,
    elector: elector && { namespace: t.leaseNamespace as string, name: leaseName as string, elector },
    tracing: {
      name: "tracing",
      async start() {
        elector?.start();
        logger.info("tracing on", {
          url: target?.otlp.url ?? "(span processors)",
          protocol: target?.otlp.protocol,
          from: target?.otlp.source,
          cluster: t.clusterName,
          leaderElection: elector ? `${t.leaseNamespace}/${leaseName}` : "off",
        });
      },
      reload: restartNotice(logger),
      async stop() {
        // Flush what has ended before handing the Lease to the next leader.
        await tracer.shutdown();
        await elector?.stop();
      },
    },
    clock: {
      name: "tracing clock",
      async start() {
        ticker = setInterval(() => deps.records.tick(deps.nowMs()), deps.tickIntervalMs);
        ticker.unref();
      },
      reload: idle,
      async stop() {
        clearInterval(ticker);
      },
    },
  };
}
