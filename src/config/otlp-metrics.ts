// The `otlpMetrics` section: pushing every family /metrics serves over
// OTLP/HTTP (docs/otlp-metrics.md). Each key has its standard OTEL_* variable
// (src/otlp-metrics/settings.ts), which it wins over; unset keys fall back to
// the variables, then to the specification's defaults.
import { custom, duration, type OptionValues, section, tableDefaults, text, toggle } from "./option.ts";
import { dns1123 } from "./resource-fields.ts";

/** A duration that is unset unless given (the variable or the default decides then). */
function optionalDuration(key: string, doc: string) {
  const base = duration(key, doc, 0, "");
  return custom<number | undefined>({ ...base, default: undefined, read: base.read });
}

const url = { pattern: /^https?:\/\//, what: "an http(s) URL" };

const otlpMetricsTable = {
  enabled: toggle(
    "enabled",
    "Push metrics over OTLP/HTTP. Unset: on when an endpoint is set here, by OTEL_EXPORTER_OTLP_METRICS_ENDPOINT, or OTEL_METRICS_EXPORTER=otlp.",
    undefined,
  ),
  endpoint: text(
    "endpoint",
    "OTLP/HTTP base URL; /v1/metrics is appended (like OTEL_EXPORTER_OTLP_ENDPOINT).",
    url,
  ),
  metricsEndpoint: text(
    "metricsEndpoint",
    "OTLP/HTTP metrics URL, used as given (like OTEL_EXPORTER_OTLP_METRICS_ENDPOINT); wins over endpoint.",
    url,
  ),
  protocol: text(
    "protocol",
    "http/protobuf or http/json. Unset: OTEL_EXPORTER_OTLP_(METRICS_)PROTOCOL, else http/protobuf.",
    { pattern: /^http\/(protobuf|json)$/, what: "http/protobuf or http/json" },
  ),
  headers: custom<Record<string, string>>({
    key: "headers",
    doc: "HTTP headers of every request (e.g. authorization: a bearer token, from an environment variable by substitution), over OTEL_EXPORTER_OTLP_(METRICS_)HEADERS.",
    default: {},
    shown: "{}",
    schema: (Type) => Type.Record(Type.String({ minLength: 1 }), Type.String()),
    read: (c, path, value) => {
      if (value === undefined) return undefined;
      if (typeof value !== "object" || value === null || Array.isArray(value)) {
        return c.fail(path, "a mapping of header names to values", value);
      }
      const out: Record<string, string> = {};
      for (const [name, v] of Object.entries(value)) {
        if (!/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/.test(name))
          c.fail(`${path}.${name}`, "an HTTP header name", name);
        else if (typeof v !== "string") c.fail(`${path}.${name}`, "a string", v);
        else out[name] = v;
      }
      return out;
    },
  }),
  compression: text(
    "compression",
    "gzip or none. Unset: OTEL_EXPORTER_OTLP_(METRICS_)COMPRESSION, else none.",
    { pattern: /^(gzip|none)$/, what: "gzip or none" },
  ),
  timeoutSeconds: optionalDuration(
    "timeout",
    "How long one request may take. Unset: OTEL_EXPORTER_OTLP_(METRICS_)TIMEOUT, else 10s.",
  ),
  intervalSeconds: optionalDuration(
    "interval",
    "Time between the starts of two exports. Unset: OTEL_METRIC_EXPORT_INTERVAL, else 60s.",
  ),
  exportTimeoutSeconds: optionalDuration(
    "exportTimeout",
    "How long one export (all its requests and retries) may take. Unset: OTEL_METRIC_EXPORT_TIMEOUT, else 30s.",
  ),
  temporality: text(
    "temporality",
    "cumulative, the only temporality exported (totals are read from the store). Unset: OTEL_EXPORTER_OTLP_METRICS_TEMPORALITY_PREFERENCE, else cumulative.",
    { pattern: /^(cumulative|delta|lowmemory)$/i, what: "cumulative, delta or lowmemory" },
  ),
  leaseNamespace: text(
    "leaseNamespace",
    "With leaseName: the namespace of the Lease that elects the one replica (of a shard) pushing metrics.",
    { pattern: dns1123, what: "a namespace name" },
  ),
  leaseName: text(
    "leaseName",
    "The Lease that elects the one replica pushing metrics (off when unset: every replica pushes); the tracing Lease may be named.",
    { pattern: dns1123, what: "a Lease name" },
  ),
};

export type OtlpMetricsConfig = OptionValues<typeof otlpMetricsTable>;

export const defaultOtlpMetrics: OtlpMetricsConfig = tableDefaults(otlpMetricsTable);

export const otlpMetricsSection = section({
  key: "otlpMetrics",
  doc: "Every family /metrics serves, pushed over OTLP/HTTP as well (docs/otlp-metrics.md); OTEL_* variables fill what is unset.",
  table: otlpMetricsTable,
  default: defaultOtlpMetrics,
  finish: (c, path, values) => {
    if ((values.leaseName === undefined) !== (values.leaseNamespace === undefined)) {
      c.problems.push(`${path}: leaseName and leaseNamespace go together`);
      return undefined;
    }
    return values;
  },
});
