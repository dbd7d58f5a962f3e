// The settings and dependencies of a ResourceCollector, and what tracing
// offers it.

import type { ResourceTracing } from "../config/validate-tracing-joins.ts";
import type { KindSettings } from "../core/change/object-update.ts";
import type { FamilySelection } from "../core/series/family-selection.ts";
import type { ResourceIdentity } from "../core/state.ts";
import type { KubeClient } from "../kube/client.ts";
import type { Logger } from "../log.ts";
import type { SelfMetrics } from "../metrics/self-metrics.ts";
import type { StateTracer } from "../tracing/state-tracer.ts";
import type { ResourceInfo } from "./shape-settings.ts";

export type { ResourceInfo } from "./shape-settings.ts";

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
  /** Declared values per state field (absent: learned, up to a cap). */
  stateValues: Readonly<Record<string, readonly string[]>>;
  maxReasons: number;
  /** Cap on per-object series for this resource; 0 = unlimited. */
  maxSeries: number;
  scope: WatchScope;
  info: ResourceInfo;
  /** Fields `values` could add: the schema's candidates not exported (cr_exporter_value_candidate_info). */
  valueCandidates: readonly { path: string; type: string }[];
  /** What its root spans join (the resource's tracing option); unset: links to the controller owner only. */
  tracing?: ResourceTracing;
}

/** What a collector lists and watches: each namespace (none: the whole cluster), narrowed by selectors. */
export interface WatchScope {
  namespaces: readonly string[];
  labelSelector: string | undefined;
  fieldSelector: string | undefined;
}

export interface CollectorDeps {
  client: KubeClient;
  metrics: SelfMetrics;
  logger: Logger;
  tracer: StateTracer | undefined;
  /** With tracing on: the trace-context annotation, and whether other shards' objects are indexed for joins. */
  joins?: { traceContextAnnotation: string; acrossShards: boolean } | undefined;
  /** Epoch seconds. */
  clock: () => number;
  /**
   * Whether the object with this uid is this shard's (src/core/shard.ts);
   * read at every event, so a new shard assignment applies at once.
   */
  owns: (uid: string) => boolean;
  /**
   * The shardSelector to list and watch with (undefined: none), read when the
   * loops start, so a re-shard that relists asks for the new range.
   */
  shardSelector?: () => string | undefined;
  /** Whether this process keeps only some of the objects (a shard of several): read when the loops start. */
  sharded?: () => boolean;
  /** Overrides for the list/watch loop (tests shorten timeouts). */
  listWatch?: { watchTimeoutSeconds?: [number, number]; inactivityMs?: number; pageSize?: number };
}

/** Where a collector hands the first objects it sees, for detection to learn from (see ShapeLearner). */
export interface ObjectSampler {
  /** Takes one object; false once no more are wanted. */
  sample(raw: unknown): boolean;
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
