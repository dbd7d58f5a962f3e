// Whether metrics are pushed over OTLP, where, and how, from the `otlpMetrics`
// section and the standard OTEL_* variables, decided before any OpenTelemetry
// module is loaded. Endpoints follow the same rules as the traces endpoint
// (src/tracing/otel-env.ts): a base endpoint gets `/v1/metrics` appended, a
// metrics endpoint is used as given; the configuration wins over the
// environment, a metrics-specific variable over the general one. Errors are
// configuration errors naming the variable or field and the value.
import type { OtlpMetricsConfig } from "../config/otlp-metrics.ts";
import { ConfigError } from "../config/validate.ts";
import {
  defaultBaseEndpoint,
  type Environment,
  fromBase,
  fromSignal,
  type OtlpProtocol,
  type OtlpTarget,
  otlpProtocol,
  set,
  signalVariable,
} from "../tracing/otel-env.ts";

export interface OtlpMetricsSettings {
  target: OtlpTarget;
  /** Sent with every request (configuration over the variables). */
  headers: Readonly<Record<string, string>>;
  compression: "gzip" | "none";
  /** One request, retries not included. */
  timeoutMs: number;
  /** Between the starts of two exports. */
  intervalMs: number;
  /** One export: every request and retry. */
  exportTimeoutMs: number;
  /** The only one exported: totals are read from the store as they are. */
  temporality: "cumulative";
}

export type OtlpMetricsDecision = { on: true; settings: OtlpMetricsSettings } | { on: false; reason: string };

/** The specification's defaults (milliseconds). */
export const defaults = { timeoutMs: 10_000, intervalMs: 60_000, exportTimeoutMs: 30_000 } as const;

function milliseconds(source: string, raw: string, min: number): number {
  const value = Number(raw.trim());
  if (!Number.isInteger(value) || value < min || value > 2_147_483_647) {
    throw new ConfigError([`${source}: expected a whole number of milliseconds ≥ ${min}, got "${raw}"`]);
  }
  return value;
}

/** Configuration (seconds) over the variable (milliseconds) over the default. */
function durationMs(
  configured: number | undefined,
  variable: [string, string | undefined],
  fallback: number,
  min: number,
): number {
  if (configured !== undefined) return Math.max(min, Math.round(configured * 1000));
  const [source, raw] = variable;
  return set(raw) ? milliseconds(source, raw, min) : fallback;
}

/**
 * `key=value,key2=value2` as the specification writes OTEL_EXPORTER_OTLP_HEADERS
 * and OTEL_RESOURCE_ATTRIBUTES: values percent-decoded, surrounding spaces dropped.
 */
export function keyValueList(source: string, raw: string | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  if (!set(raw)) return out;
  for (const item of raw.split(",")) {
    if (item.trim() === "") continue;
    const at = item.indexOf("=");
    const key = at > 0 ? item.slice(0, at).trim() : "";
    if (key === "") throw new ConfigError([`${source}: expected key=value pairs, got "${item.trim()}"`]);
    try {
      out[key] = decodeURIComponent(item.slice(at + 1).trim());
    } catch {
      throw new ConfigError([`${source}: the value of ${key} is not percent-encoded correctly`]);
    }
  }
  return out;
}

function exportersAsked(env: Environment): string[] {
  const exporters = (env.OTEL_METRICS_EXPORTER ?? "")
    .split(",")
    .map((e) => e.trim().toLowerCase())
    .filter((e) => e !== "");
  // prometheus: the pull exporter, which /metrics always is.
  const unsupported = exporters.filter((e) => e !== "otlp" && e !== "none" && e !== "prometheus");
  if (unsupported.length > 0) {
    throw new ConfigError([
      `OTEL_METRICS_EXPORTER: expected otlp, prometheus or none, got "${env.OTEL_METRICS_EXPORTER}" (${unsupported.join(", ")} is not supported)`,
    ]);
  }
  return exporters;
}

function where(config: OtlpMetricsConfig, env: Environment): Omit<OtlpTarget, "protocol"> {
  if (set(config.metricsEndpoint)) return fromSignal("otlpMetrics.metricsEndpoint", config.metricsEndpoint);
  if (set(config.endpoint)) return fromBase("otlpMetrics.endpoint", config.endpoint, "metrics");
  if (set(env.OTEL_EXPORTER_OTLP_METRICS_ENDPOINT)) {
    return fromSignal("OTEL_EXPORTER_OTLP_METRICS_ENDPOINT", env.OTEL_EXPORTER_OTLP_METRICS_ENDPOINT);
  }
  if (set(env.OTEL_EXPORTER_OTLP_ENDPOINT)) {
    return fromBase("OTEL_EXPORTER_OTLP_ENDPOINT", env.OTEL_EXPORTER_OTLP_ENDPOINT, "metrics");
  }
  return fromBase("otlpMetrics (default endpoint)", defaultBaseEndpoint, "metrics");
}

function compression(config: OtlpMetricsConfig, env: Environment): "gzip" | "none" {
  if (config.compression !== undefined) return config.compression as "gzip" | "none";
  const [source, raw] = signalVariable(env, "metrics", "COMPRESSION");
  const value = raw?.trim().toLowerCase() || "none";
  if (value === "gzip" || value === "none") return value;
  throw new ConfigError([`${source}: expected gzip or none, got "${raw}"`]);
}

function temporality(config: OtlpMetricsConfig, env: Environment): "cumulative" {
  const [source, raw] =
    config.temporality !== undefined
      ? ["otlpMetrics.temporality", config.temporality]
      : [
          "OTEL_EXPORTER_OTLP_METRICS_TEMPORALITY_PREFERENCE",
          env.OTEL_EXPORTER_OTLP_METRICS_TEMPORALITY_PREFERENCE,
        ];
  const value = raw?.trim().toLowerCase() || "cumulative";
  if (value === "cumulative") return value;
  throw new ConfigError([
    `${source}: "${raw}" is not supported: counters and histograms are exported cumulative only (their totals are read from the store at each export, nothing remembers the previous one); turn them into deltas in an OpenTelemetry Collector (cumulativetodelta processor)`,
  ]);
}

/** Whether metrics are pushed, and everything about how, from the configuration and OTEL_* variables. */
export function resolveOtlpMetrics(config: OtlpMetricsConfig, env: Environment): OtlpMetricsDecision {
  if (config.enabled === false) return { on: false, reason: "otlpMetrics.enabled is false" };
  if (env.OTEL_SDK_DISABLED?.trim().toLowerCase() === "true") {
    return { on: false, reason: "OTEL_SDK_DISABLED=true" };
  }
  const exporters = exportersAsked(env);
  if (exporters.includes("none")) return { on: false, reason: "OTEL_METRICS_EXPORTER=none" };
  const asked =
    config.enabled === true ||
    set(config.endpoint) ||
    set(config.metricsEndpoint) ||
    exporters.includes("otlp") ||
    set(env.OTEL_EXPORTER_OTLP_METRICS_ENDPOINT);
  if (!asked) {
    return {
      on: false,
      reason:
        "not asked for (otlpMetrics.enabled, an otlpMetrics endpoint, OTEL_METRICS_EXPORTER=otlp or OTEL_EXPORTER_OTLP_METRICS_ENDPOINT)",
    };
  }
  const protocol: OtlpProtocol =
    (config.protocol as OtlpProtocol | undefined) ?? otlpProtocol(env, "metrics");
  const [generalSource, general] = ["OTEL_EXPORTER_OTLP_HEADERS", env.OTEL_EXPORTER_OTLP_HEADERS];
  const headers = set(env.OTEL_EXPORTER_OTLP_METRICS_HEADERS)
    ? keyValueList("OTEL_EXPORTER_OTLP_METRICS_HEADERS", env.OTEL_EXPORTER_OTLP_METRICS_HEADERS)
    : keyValueList(generalSource, general);
  const intervalMs = durationMs(
    config.intervalSeconds,
    ["OTEL_METRIC_EXPORT_INTERVAL", env.OTEL_METRIC_EXPORT_INTERVAL],
    defaults.intervalMs,
    100,
  );
  return {
    on: true,
    settings: {
      target: { ...where(config, env), protocol },
      headers: { ...headers, ...config.headers },
      compression: compression(config, env),
      timeoutMs: durationMs(
        config.timeoutSeconds,
        signalVariable(env, "metrics", "TIMEOUT"),
        defaults.timeoutMs,
        1,
      ),
      intervalMs,
      exportTimeoutMs: durationMs(
        config.exportTimeoutSeconds,
        ["OTEL_METRIC_EXPORT_TIMEOUT", env.OTEL_METRIC_EXPORT_TIMEOUT],
        defaults.exportTimeoutMs,
        1,
      ),
      temporality: temporality(config, env),
    },
  };
}
