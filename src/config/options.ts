// The configuration file's options, each declared once (see option.ts): the
// top-level keys and the tracing section here, the resource entries in
// resource-options.ts and validate-resources.ts, the other sections beside
// their readers. validate.ts reads a file with these tables; the defaults,
// the Config type (schema.ts), docs/config.schema.json and
// docs/configuration.md come from them (scripts/generate.ts).
import { defaultMetricPrefix } from "../core/series/catalog.ts";
import { type FamilyRules, noFamilyRules } from "../core/series/family-selection.ts";
import { defaultGenerationTimeoutSeconds } from "../tracing/planner/model.ts";
import { familyRules, familyRulesSchema } from "./metrics-rules.ts";
import {
  choice,
  custom,
  duration,
  hostPort,
  type OptionValues,
  section,
  tableDefaults,
  tableSchema,
  text,
  textWithDefault,
  toggle,
} from "./option.ts";
import { otlpMetricsSection } from "./otlp-metrics.ts";
import { dns1123, prefixPattern } from "./resource-fields.ts";
import { defaultResourceOptions } from "./resource-options.ts";
import { statusPageSection } from "./status-page.ts";
import { type ResourceSelector, selector, selectorSchema } from "./validate-resources.ts";
import { shardingOption } from "./validate-sharding.ts";
import { apiProxySection, auditReceiverSection } from "./validate-status-writes.ts";
import { warningEventsSection } from "./warning-events.ts";
import { checkWatchTotal } from "./watch-limits.ts";

const tracingTable = {
  enabled: toggle(
    "enabled",
    "Export spans. Unset: on when an endpoint is set here, by flag or by OTEL_EXPORTER_OTLP_(TRACES_)ENDPOINT.",
    undefined,
  ),
  endpoint: text(
    "endpoint",
    "OTLP/HTTP base URL; /v1/traces is appended (like OTEL_EXPORTER_OTLP_ENDPOINT).",
    {
      pattern: /^https?:\/\//,
      what: "an http(s) URL",
    },
  ),
  tracesEndpoint: text(
    "tracesEndpoint",
    "OTLP/HTTP traces URL, used as given (like OTEL_EXPORTER_OTLP_TRACES_ENDPOINT); wins over endpoint.",
    { pattern: /^https?:\/\//, what: "an http(s) URL" },
  ),
  clusterName: textWithDefault("clusterName", "Salts the deterministic trace ids.", "default"),
  generationTimeoutSeconds: duration(
    "generationTimeout",
    "A generation not reconciled by then ends its trace with an error.",
    defaultGenerationTimeoutSeconds,
    `${defaultGenerationTimeoutSeconds / 3600}h`,
  ),
  traceContextAnnotation: textWithDefault(
    "traceContextAnnotation",
    'The annotation holding the W3C trace context of the request that changed an object (a traceparent, or JSON {"traceparent", "tracestate"} as kubernetes-sigs/agent-sandbox writes it): the generation root becomes a child of that span. Malformed values are ignored and counted.',
    "opentelemetry.io/trace-context",
    {
      pattern: /^([a-z0-9]([-a-z0-9.]*[a-z0-9])?\/)?[A-Za-z0-9]([-A-Za-z0-9_.]*[A-Za-z0-9])?$/,
      what: "an annotation key such as opentelemetry.io/trace-context",
    },
  ),
  joinAcrossShards: toggle(
    "joinAcrossShards",
    "Sharded: every shard also reads the other shards' objects (without the apiserver's shard selector) and keeps a few numbers of each, so roots join owners and sources on other shards with the same ids as in one process (docs/tracing.md#joins).",
    false,
  ),
  leaseNamespace: text(
    "leaseNamespace",
    "With leaseName: the namespace of the Lease that elects the one replica exporting spans.",
    {
      pattern: dns1123,
      what: "a namespace name",
    },
  ),
  leaseName: text("leaseName", "The Lease that elects the one replica exporting spans (off when unset).", {
    pattern: dns1123,
    what: "a Lease name",
  }),
};

export type TracingConfig = OptionValues<typeof tracingTable>;

const tracingSection = section({
  key: "tracing",
  doc: "OpenTelemetry spans for state transitions, exported over OTLP/HTTP (docs/tracing.md).",
  table: tracingTable,
  default: tableDefaults(tracingTable),
  finish: (_c, _path, values) => values,
});

/** With no resources configured, every CRD in the cluster is watched. */
const everyCrd: ResourceSelector = {
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
};

const resources = custom<ResourceSelector[]>({
  key: "resources",
  doc: "What to watch: each entry selects resource types explicitly (group + resource or kind) or by discovery (groups, categories, crdSelector), with the per-resource options; the first entry that selects a CRD handles it. Unset: every CRD.",
  default: [everyCrd],
  shown: '[{groups: ["*"]}]',
  schema: (Type) => Type.Array(selectorSchema(Type), { minItems: 1 }),
  read: (c, path, value, context) => {
    if (value === undefined) return undefined;
    if (!Array.isArray(value) || value.length === 0)
      return c.fail(path, "a non-empty list of resource selectors", value);
    const list = value
      .map((item, i) => selector(c, `${path}[${i}]`, item, context))
      .filter((s): s is ResourceSelector => s !== undefined);
    checkWatchTotal(c, list);
    return list;
  },
});

export const configTable = {
  listen: textWithDefault(
    "listen",
    "Where /metrics, /healthz and /readyz are served (0.0.0.0:9184 in a pod).",
    "127.0.0.1:9184",
    hostPort,
  ),
  metricPrefix: textWithDefault("metricPrefix", "Prefix of every metric name.", defaultMetricPrefix, {
    pattern: prefixPattern,
    what: "a metric name prefix such as cr_",
  }),
  metrics: custom<FamilyRules>({
    key: "metrics",
    doc: "Which metric families every resource exports ({allow | deny, optIn}: globs over the names as exported; docs/metrics.md). Unset: the default set.",
    default: noFamilyRules,
    shown: "",
    schema: familyRulesSchema,
    read: (c, path, value, context) => familyRules(c, path, value, context.prefix),
  }),
  logLevel: choice(
    "logLevel",
    "debug, info, warn or error; JSON lines on stderr.",
    ["debug", "info", "warn", "error"],
    "info",
  ),
  crdDiscovery: toggle(
    "crdDiscovery",
    "Watch CRDs to resolve and discover resources; false: only fully specified entries (group, version, resource, kind, namespaced).",
    true,
  ),
  resources,
  tracing: tracingSection,
  otlpMetrics: otlpMetricsSection,
  apiProxy: apiProxySection,
  auditReceiver: auditReceiverSection,
  webConfigFile: text(
    "webConfigFile",
    "An exporter-toolkit web configuration file: HTTPS (and client certificates) for /metrics. Unset: plain HTTP.",
  ),
  metricsAuth: choice(
    "metricsAuth",
    "Who may read /metrics: none (whoever can connect) or kubernetes (TokenReview and SubjectAccessReview; needs webConfigFile).",
    ["none", "kubernetes"],
    "none",
  ),
  statusPage: statusPageSection,
  sharding: shardingOption,
  warningEvents: warningEventsSection,
};

/** The JSON Schema of a configuration file (after ${VAR} substitution). */
export const configSchema = tableSchema(configTable);
