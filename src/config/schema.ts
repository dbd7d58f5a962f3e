// The configuration as the rest of the program sees it, after validation and
// defaults. The YAML shape is documented in config.example.yaml.
import { defaultMetricPrefix } from "../core/catalog.ts";
import { type FamilyRules, noFamilyRules } from "../core/family-selection.ts";
import type { MappedPhaseResult } from "../core/phase-result.ts";
import { defaultGenerationTimeoutSeconds } from "../tracing/planner/model.ts";
import { defaultStatusPage, type StatusPageConfig } from "./status-page.ts";

export interface LabelMapping {
  /** path: a scalar field of the object (kube-state-metrics' labelsFromPath). */
  from: "label" | "annotation" | "path";
  /** The label or annotation key, or the dotted path. */
  key: string;
  /** Prometheus label name. */
  name: string;
}

/** A string field exported as a state set (cr_state), optionally part of readiness. */
export interface StateOption {
  /** The `field` label value. */
  name: string;
  /** Dotted path from the object root. */
  path: string;
  /** The fixed values (e.g. the CRD's enum); undefined: the CRD's enum where detected, else learned. */
  values: string[] | undefined;
  /** Values that mean ready (empty: the field does not gate readiness). */
  ready: string[];
  /** Values that turn cr_status Failed once held for failedAfter. */
  failed: string[];
}

/** Per-resource options; every field is optional in the file. */
export interface ResourceOptions {
  namespaces: string[];
  labelSelector: string | undefined;
  /** Dotted paths; undefined = detected from the CRD schema (or the conventional default). */
  conditionsPath: string | undefined;
  observedGenerationPath: string | undefined;
  phasePath: string | undefined;
  heartbeatField: string | undefined;
  /** undefined: detected per kind (Ready, then Succeeded, then Available; see core/detect.ts). */
  readyCondition: string | undefined;
  failedAfterSeconds: number;
  /** Phase → result for cr_status (and tracing); undefined: the default table, for kinds without a readiness condition. */
  phaseResults: Record<string, MappedPhaseResult> | undefined;
  /** Dotted path of a suspend switch; undefined: detected (spec.suspend, else spec.paused, when a boolean). */
  suspendPath: string | undefined;
  /** An annotation whose value "true"/"on" suspends the object (crossplane.io/paused, cnpg.io/hibernation). */
  suspendAnnotation: string | undefined;
  /** undefined: the well-known state fields detected (Argo CD's health and sync); [] none. */
  states: StateOption[] | undefined;
  labels: LabelMapping[];
  maxReasons: number;
  phaseTransitions: Record<string, string[]> | undefined;
  mode: "objects" | "aggregate";
  maxSeries: number;
  /** Which families this resource exports, refining the global `metrics` rules. */
  metrics: FamilyRules;
}

/** Options for some kinds of a discovery entry (`kinds:`), merged over the entry's. */
export interface KindOverride {
  kind: string | undefined;
  resource: string | undefined;
  /** undefined: any group the entry selects. */
  group: string | undefined;
  /** The entry's options with the override's on top. */
  options: ResourceOptions;
}

/** Selects resource types: explicitly, or by discovering CRDs. */
export interface ResourceSelector {
  /** Explicit: the API group (exact). */
  group: string | undefined;
  /** Explicit: plural resource name, or kind. */
  resource: string | undefined;
  kind: string | undefined;
  /** Explicit: version; default = the CRD's storage version. */
  version: string | undefined;
  /** Explicit without CRD discovery: the scope must be given. */
  namespaced: boolean | undefined;
  /** Discovery: API group globs (`*.example.com`, `*`). */
  groups: string[];
  /** Discovery: CRD `spec.names.categories` (any of). */
  categories: string[];
  /** Discovery: label selector on the CRD objects. */
  crdSelector: string | undefined;
  options: ResourceOptions;
  /** Discovery: per-kind options (first match wins). */
  overrides: KindOverride[];
}

export interface TracingConfig {
  /** OTLP/HTTP base URL, `/v1/traces` appended (like OTEL_EXPORTER_OTLP_ENDPOINT). */
  endpoint: string | undefined;
  /** OTLP/HTTP traces URL, used as given (like OTEL_EXPORTER_OTLP_TRACES_ENDPOINT); wins over `endpoint`. */
  tracesEndpoint: string | undefined;
  enabled: boolean | undefined;
  clusterName: string;
  generationTimeoutSeconds: number;
  /** Lease used to elect the one replica that exports spans (off when unset). */
  leaseNamespace: string | undefined;
  leaseName: string | undefined;
}

/**
 * Which objects this process keeps, renders and traces (off when undefined):
 * a fixed shard, or the shard of a StatefulSet pod (ordinal from the pod's
 * name, shard count from the StatefulSet's replicas, followed as it scales).
 */
export type ShardingConfig =
  | { kind: "fixed"; shard: number; total: number }
  | { kind: "statefulset"; pod: string; podNamespace: string };

/** The sidecar API proxy that counts the operator's status writes (off when undefined). */
export interface ApiProxyConfig {
  listen: string;
  allowNonLoopback: boolean;
  /** Where to write the kubeconfig that points the operator at the proxy. */
  kubeconfigPath: string | undefined;
  /** Token file that kubeconfig names (default: the pod's service-account token). */
  tokenFile: string | undefined;
  /** A kubeconfig whose current user that kubeconfig uses instead of tokenFile. */
  userFromKubeconfig: string | undefined;
  /** Serve plain HTTP instead of TLS (client-go sends no credentials over it). */
  plainHttp: boolean;
}

/** The audit webhook receiver (off when undefined). */
export interface AuditReceiverConfig {
  listen: string;
  certFile: string;
  keyFile: string;
  bearerTokenFile: string | undefined;
  clientCaFile: string | undefined;
}

export interface Config {
  listen: string;
  metricPrefix: string;
  logLevel: "debug" | "info" | "warn" | "error";
  /** Which families every resource exports (each resource entry may refine it). */
  metrics: FamilyRules;
  /** Watch CRDs to resolve and discover resources (needs list/watch on CRDs). */
  crdDiscovery: boolean;
  resources: ResourceSelector[];
  tracing: TracingConfig;
  apiProxy: ApiProxyConfig | undefined;
  auditReceiver: AuditReceiverConfig | undefined;
  /** Exporter-toolkit style web configuration file: HTTPS for the metrics listener (plain HTTP when unset). */
  webConfigFile: string | undefined;
  /** Who may read /metrics: anyone who can connect, or whom Kubernetes RBAC allows (needs HTTPS). */
  metricsAuth: "none" | "kubernetes";
  statusPage: StatusPageConfig;
  sharding: ShardingConfig | undefined;
}

export const defaultResourceOptions: ResourceOptions = {
  namespaces: [],
  labelSelector: undefined,
  conditionsPath: undefined,
  observedGenerationPath: undefined,
  phasePath: undefined,
  heartbeatField: undefined,
  readyCondition: undefined,
  failedAfterSeconds: 300,
  phaseResults: undefined,
  states: undefined,
  suspendPath: undefined,
  suspendAnnotation: undefined,
  labels: [],
  maxReasons: 20,
  phaseTransitions: undefined,
  mode: "objects",
  maxSeries: 0,
  metrics: noFamilyRules,
};

export const defaultConfig: Config = {
  listen: "127.0.0.1:9184",
  metricPrefix: defaultMetricPrefix,
  logLevel: "info",
  metrics: noFamilyRules,
  crdDiscovery: true,
  // With no resources configured, every CRD in the cluster is watched.
  resources: [
    {
      group: undefined,
      resource: undefined,
      kind: undefined,
      version: undefined,
      namespaced: undefined,
      groups: ["*"],
      categories: [],
      crdSelector: undefined,
      options: defaultResourceOptions,
      overrides: [],
    },
  ],
  tracing: {
    endpoint: undefined,
    tracesEndpoint: undefined,
    enabled: undefined,
    clusterName: "default",
    generationTimeoutSeconds: defaultGenerationTimeoutSeconds,
    leaseNamespace: undefined,
    leaseName: undefined,
  },
  apiProxy: undefined,
  auditReceiver: undefined,
  webConfigFile: undefined,
  metricsAuth: "none",
  statusPage: defaultStatusPage,
  sharding: undefined,
};
