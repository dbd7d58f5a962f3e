// A ResourceCollector that is fed objects directly (never started), and the
// exposition it produces: for golden files and property tests of the pipeline
// from raw object to /metrics text.
import { ResourceCollector } from "../../src/collectors/resource-collector.ts";
import { defaultProjectionSettings, type ProjectionSettings } from "../../src/core/project.ts";
import { newKindContext } from "../../src/core/render.ts";
import type { KubeClient } from "../../src/kube/client.ts";
import { silentLogger } from "../../src/log.ts";
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

export function offlineCollector(
  options: {
    prefix?: string;
    projection?: Partial<ProjectionSettings>;
    reasons?: boolean;
    phases?: string[];
    mode?: "objects" | "aggregate";
    maxSeries?: number;
    phaseTransitions?: Record<string, string[]>;
    extraLabelNames?: string[];
    tracer?: StateTracer;
  } = {},
): OfflineCollector {
  const prefix = options.prefix ?? "cr_";
  const clock = { now: Date.parse("2026-01-01T01:00:00Z") / 1000 };
  const metrics = createSelfMetrics(prefix, "0.0.0-test");
  const identity = {
    group: "example.com",
    version: "v1",
    kind: "Widget",
    resource: "widgets",
    namespaced: true,
  };
  const collector = new ResourceCollector(
    {
      identity,
      statusSubresource: true,
      projection: { ...defaultProjectionSettings, ...options.projection },
      kind: newKindContext({
        group: identity.group,
        kind: identity.kind,
        prefix,
        phases: options.phases ?? [],
        reasonsEnabled: options.reasons ?? false,
        extraLabelNames: options.extraLabelNames ?? [],
      }),
      mode: options.mode ?? "objects",
      maxSeries: options.maxSeries ?? 0,
      phaseTransitions: options.phaseTransitions,
      namespaces: [],
      labelSelector: undefined,
      prefix,
    },
    { client: unusedClient, metrics, logger: silentLogger, tracer: options.tracer, clock: () => clock.now },
  );
  return { collector, metrics, clock };
}

/** The per-object part of /metrics only (no registry), as written to a scrape. */
export async function perObjectText(c: OfflineCollector, openMetrics = false): Promise<string> {
  let text = "";
  for await (const chunk of writeExposition({
    sources: [c.collector],
    registry: emptyRegistry(),
    prefix: c.collector.settings.prefix,
    openMetrics,
    now: c.clock.now,
  })) {
    text += chunk;
  }
  return text;
}

import { Registry } from "@prometheus-io/client";

function emptyRegistry(): Registry {
  return new Registry();
}
