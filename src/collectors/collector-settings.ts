// The settings and dependencies of a ResourceCollector, and what tracing
// offers it.

import type { FamilySelection } from "../core/family-selection.ts";
import type { KindSettings } from "../core/object-update.ts";
import type { ResourceIdentity } from "../core/state.ts";
import type { KubeClient } from "../kube/client.ts";
import type { Logger } from "../log.ts";
import type { SelfMetrics } from "../metrics/self-metrics.ts";
import type { StateTracer } from "../tracing/state-tracer.ts";

/** Labels of cr_exporter_resource_info beyond group/version/kind: how the resource is read. */
export interface ResourceInfo {
  status_subresource: string;
  conditions_path: string;
  observed_generation_path: string;
  observed_generation_source: string;
  phase_path: string;
  ready_condition: string;
}

export interface CollectorSettings {
  identity: ResourceIdentity;
  statusSubresource: boolean;
  /** The core's settings; `render` is filled in by the collector from mode, prefix and selection. */
  kind: Omit<KindSettings, "render">;
  mode: "objects" | "aggregate";
  selection: FamilySelection;
  prefix: string;
  extraLabelNames: readonly string[];
  /** The CRD's phase enum (empty: phases are learned, up to a cap). */
  phaseEnum: readonly string[];
  maxReasons: number;
  /** Cap on per-object series for this resource; 0 = unlimited. */
  maxSeries: number;
  /** Watch only these namespaces (empty = all). */
  namespaces: readonly string[];
  labelSelector: string | undefined;
  info: ResourceInfo;
}

export interface CollectorDeps {
  client: KubeClient;
  metrics: SelfMetrics;
  logger: Logger;
  tracer: StateTracer | undefined;
  /** Epoch seconds. */
  clock: () => number;
  /** Overrides for the list/watch loop (tests shorten timeouts). */
  listWatch?: { watchTimeoutSeconds?: [number, number]; inactivityMs?: number; pageSize?: number };
}

export interface CollectorStatus {
  /** The initial list finished at least once for every namespace watched. */
  initialSyncDone: boolean;
  /** The watch is currently running for every namespace watched. */
  synced: boolean;
  lastError: string | undefined;
  /** Listed, and the data confirmed current within the silence bound (see WatchTelemetry). */
  ready: boolean;
  /** What /readyz says about the resource: synced and how old its data is, or why not. */
  detail: string;
}
