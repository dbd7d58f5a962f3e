// A ResourceCollector that is fed objects directly (never started), and the
// exposition it produces: for golden files and property tests of the pipeline
// from raw object to /metrics text.

import { Registry } from "@prometheus-io/client";
import type { CollectorSettings } from "../../src/collectors/collector-settings.ts";
import { type ObjectSampler, ResourceCollector } from "../../src/collectors/resource-collector.ts";
import type { TraceRecord } from "../../src/core/entry.ts";
import type { ObservedGenerationSource } from "../../src/core/judge/generations.ts";
import { defaultReadinessRules, type ReadinessRules } from "../../src/core/judge/readiness.ts";
import { defaultProjectionSettings, type ProjectionSettings } from "../../src/core/project/project.ts";
import { type FamilyRules, selectFamilies } from "../../src/core/series/family-selection.ts";
import type { KubeClient } from "../../src/kube/client.ts";
import { type Logger, silentLogger } from "../../src/log.ts";
import { createSelfMetrics, type SelfMetrics } from "../../src/metrics/self-metrics.ts";
import { writeExposition } from "../../src/metrics/writer.ts";
import type { StateTracer } from "../../src/tracing/state-tracer.ts";

const unusedClient: KubeClient = {
  server: "https://unused.invalid",
  request: () => Promise.reject(new Error("not started")),
  stream: () => Promise.reject(new Error("not started")),
};

export interface OfflineCollector {
  collector: ResourceCollector;
  metrics: SelfMetrics;
  clock: { now: number };
}

export interface OfflineOptions {
  prefix?: string;
  projection?: Partial<ProjectionSettings>;
  /** Family rules, applied to the default set like a resource entry's `metrics`. */
  metrics?: Partial<FamilyRules>;
  phases?: string[];
  maxReasons?: number;
  mode?: "objects" | "aggregate";
  maxSeries?: number;
  phaseTransitions?: Record<string, string[]>;
  extraLabelNames?: string[];
  generationSource?: ObservedGenerationSource;
  readyCondition?: string;
  failedAfterSeconds?: number;
  /** The rest of the readiness rules (default: defaultReadinessRules). */
  readiness?: Partial<ReadinessRules>;
  tracer?: StateTracer;
  /** Which uids are this shard's (default: all). */
  owns?: (uid: string) => boolean;
  /** The settings' value candidates (cr_exporter_value_candidate_info); default none. */
  valueCandidates?: { path: string; type: string }[];
  /** Whether the process is one of several shards (as the composition root says it); default: no. */
  sharded?: () => boolean;
  shardSelector?: () => string | undefined;
  /** Epoch seconds; default 2026-01-01T01:00:00Z. */
  now?: number;
  /** For a collector that is started: the API its list/watch loops talk to (default: one that fails every call). */
  client?: KubeClient;
  /** Namespaces watched one by one (default: all, one cluster-wide loop). */
  namespaces?: string[];
  labelSelector?: string;
  fieldSelector?: string;
  /** Takes the first objects, as detection does (see ObjectSampler). */
  sampler?: ObjectSampler;
  /** The trace records of a collector this one replaces. */
  inheritedTraces?: ReadonlyMap<string, TraceRecord>;
  /** Default: silent. */
  logger?: Logger;
  /** What roots join (with a tracer): the trace-context annotation, and whether other shards' objects are read too. */
  joins?: { traceContextAnnotation: string; acrossShards: boolean };
  /** The resource's `tracing` option: what its roots join. */
  tracing?: CollectorSettings["tracing"];
}

export function offlineCollector(options: OfflineOptions = {}): OfflineCollector {
  const prefix = options.prefix ?? "cr_";
  const clock = { now: options.now ?? Date.parse("2026-01-01T01:00:00Z") / 1000 };
  const metrics = createSelfMetrics(prefix, "0.0.0-test");
  const readyCondition = options.readyCondition ?? "Ready";
  const projection = { ...defaultProjectionSettings, ...options.projection };
  const collector = new ResourceCollector(
    {
      identity: {
        group: "example.com",
        version: "v1",
        kind: "Widget",
        resource: "widgets",
        namespaced: true,
      },
      statusSubresource: true,
      kind: {
        projection,
        readiness: {
          ...defaultReadinessRules,
          readyCondition,
          failedAfterSeconds: options.failedAfterSeconds ?? 300,
          ...options.readiness,
        },
        generationSource: options.generationSource ?? "status",
        phaseTransitions: options.phaseTransitions,
      },
      mode: options.mode ?? "objects",
      selection: selectFamilies(prefix, [
        { allow: undefined, deny: undefined, optIn: undefined, ...options.metrics },
      ]),
      prefix,
      extraLabelNames: options.extraLabelNames ?? [],
      phaseEnum: options.phases ?? [],
      stateValues: {},
      maxReasons: options.maxReasons ?? 20,
      maxSeries: options.maxSeries ?? 0,
      scope: {
        namespaces: options.namespaces ?? [],
        labelSelector: options.labelSelector,
        fieldSelector: options.fieldSelector,
      },
      info: {
        status_subresource: "true",
        conditions_path: projection.conditionsPath?.join(".") ?? "",
        observed_generation_path: projection.observedGenerationPath.join("."),
        observed_generation_source: options.generationSource ?? "status",
        phase_path: projection.phasePath?.join(".") ?? "",
        ready_condition: readyCondition,
        readiness_source: "config",
        run_to_completion: "false",
        condition_times: "lastTransitionTime",
      },
      valueCandidates: options.valueCandidates ?? [],
      ...(options.tracing && { tracing: options.tracing }),
    },
    {
      client: options.client ?? unusedClient,
      metrics,
      logger: options.logger ?? silentLogger,
      tracer: options.tracer,
      clock: () => clock.now,
      owns: options.owns ?? (() => true),
      ...(options.sharded && { sharded: options.sharded }),
      ...(options.shardSelector && { shardSelector: options.shardSelector }),
      ...(options.joins && { joins: options.joins }),
    },
    options.sampler,
    options.inheritedTraces,
  );
  return { collector, metrics, clock };
}

/** The per-object (or aggregate) part of /metrics only (no registry), as written to a scrape. */
export async function perObjectText(c: OfflineCollector, openMetrics = false): Promise<string> {
  let text = "";
  for await (const chunk of writeExposition({
    sources: c.collector.sources,
    registry: new Registry(),
    prefix: c.collector.settings.prefix,
    openMetrics,
  })) {
    text += chunk;
  }
  return Buffer.from(text, "latin1").toString("utf8");
}
