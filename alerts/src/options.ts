// Everything environment-specific about the shipped rules. The committed files
// are generated with DEFAULT_ALERT_OPTIONS; other deployments (a different job
// label, longer waits, kinds that should page) generate their own with
// `generateRuleGroups({ ...DEFAULT_ALERT_OPTIONS, ... })`.
import { defaultMetricPrefix } from "../../src/core/series/catalog.ts";
import type { Duration } from "./model.ts";

/** Regular expressions (RE2, fully anchored as in PromQL) on the objects' labels; empty or absent: no constraint. */
export interface AlertScope {
  readonly kinds?: string;
  readonly excludeKinds?: string;
  readonly namespaces?: string;
  readonly excludeNamespaces?: string;
}

export interface AlertOptions {
  /** The exporter's --metric-prefix; metric names come from its family catalog. */
  readonly metricPrefix: string;
  /**
   * Label matchers (without braces) that select the exporter's series, e.g.
   * `job="cr-status-exporter"`. Equality matchers keep `absent()` labelled.
   */
  readonly selector: string;
  /** Base URL of docs/runbook.md; each alert links to `<base>#<alertname in lower case>`. */
  readonly runbookBaseUrl: string;
  /** Kept firing this long after a per-object condition clears (rides over exporter restarts); null omits it. */
  readonly keepFiringFor: Duration | null;
  /** Kinds whose per-object health alerts page (severity critical) instead of warning. */
  readonly criticalKinds: readonly string[];
  /**
   * Families whose alerts are generated only when the deployment exports them:
   * `heartbeat` (a resource sets heartbeatField: cr_heartbeat_timestamp_seconds)
   * and `conditionStale` (the opt-in family cr_condition_stale).
   */
  readonly families: { readonly heartbeat: boolean; readonly conditionStale: boolean };
  /** Which objects the per-object and per-namespace alerts cover (all of them when empty)… */
  readonly scope: AlertScope;
  /** …and, per alert name, fields that replace the scope's for that alert. */
  readonly alertScopes: Readonly<Record<string, AlertScope>>;
  readonly for: {
    readonly notReady: Duration;
    readonly readyUnknown: Duration;
    /** CustomResourceFailed: Failed by state fields or phase, where no condition alert reports the object. */
    readonly failed: Duration;
    readonly stalled: Duration;
    readonly reconcilingTooLong: Duration;
    readonly generationMismatch: Duration;
    readonly stuckTerminating: Duration;
    readonly readyFlapping: Duration;
    readonly statusWriteStorm: Duration;
    readonly statusUpdateFailures: Duration;
    readonly notReadyHigh: Duration;
    readonly exporterDown: Duration;
    readonly watchErrors: Duration;
    readonly notSynced: Duration;
    readonly stale: Duration;
    readonly seriesDropped: Duration;
    readonly configReloadFailed: Duration;
    readonly heartbeatStale: Duration;
    readonly conditionStale: Duration;
    readonly shardMissing: Duration;
  };
  readonly thresholds: {
    /** An object still terminating this many seconds after its deletionTimestamp is stuck. */
    readonly terminatingSeconds: number;
    /** Ready transitions within `flapWindow` above which an object flaps. */
    readonly flapTransitions: number;
    readonly flapWindow: Duration;
    /** Status writes (meaningful + no-op) per second per object above which it is a write storm. */
    readonly writesPerSecond: number;
    /** Share of failed status writes per namespace and kind (0..1). */
    readonly updateFailureRatio: number;
    /** Share of a kind's objects in a namespace that are Ready=False for the aggregate alert (0..1)… */
    readonly notReadyRatio: number;
    /** …and the minimum count of such objects, so two of three objects do not page. */
    readonly notReadyMinObjects: number;
    /** Age of a resource's data (cr_exporter_resource_data_timestamp_seconds) past which it is stale. */
    readonly staleSeconds: number;
    /** Age in seconds of an object's heartbeat field above which its controller has stopped heartbeating. */
    readonly heartbeatSeconds: number;
  };
  /** Suspended objects (cr_suspended) count in the Not-Ready rules too (default: left out). */
  readonly includeSuspended?: boolean;
  /** Window of the rate() and increase() in the rules. */
  readonly rateWindow: Duration;
}

export const DEFAULT_ALERT_OPTIONS: AlertOptions = {
  metricPrefix: defaultMetricPrefix,
  selector: 'job="cr-status-exporter"',
  runbookBaseUrl: "https://github.com/cr-status-exporter/cr-status-exporter/blob/main/docs/runbook.md",
  keepFiringFor: "5m",
  criticalKinds: [],
  families: { heartbeat: false, conditionStale: false },
  scope: {},
  alertScopes: {},
  for: {
    notReady: "15m",
    readyUnknown: "30m",
    failed: "15m",
    stalled: "5m",
    reconcilingTooLong: "1h",
    generationMismatch: "15m",
    stuckTerminating: "5m",
    readyFlapping: "5m",
    statusWriteStorm: "15m",
    statusUpdateFailures: "15m",
    notReadyHigh: "15m",
    exporterDown: "10m",
    watchErrors: "15m",
    notSynced: "15m",
    stale: "5m",
    seriesDropped: "0m",
    configReloadFailed: "5m",
    heartbeatStale: "5m",
    conditionStale: "15m",
    shardMissing: "5m",
  },
  thresholds: {
    terminatingSeconds: 1800,
    flapTransitions: 4,
    flapWindow: "30m",
    writesPerSecond: 0.1,
    updateFailureRatio: 0.05,
    notReadyRatio: 0.5,
    notReadyMinObjects: 3,
    staleSeconds: 150,
    heartbeatSeconds: 600,
  },
  rateWindow: "10m",
};
