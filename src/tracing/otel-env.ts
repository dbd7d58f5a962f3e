// Whether tracing is on, where spans go and how they are sampled, from the
// configuration and the standard OTEL_* variables, decided before any
// OpenTelemetry module is loaded (the SDK is loaded only when tracing is on).
// Endpoints follow the OpenTelemetry exporter specification: a base endpoint
// gets `/v1/traces` appended, a traces endpoint is used as given; the
// configuration wins over the environment, a traces endpoint over a base one.
// Errors are configuration errors naming the variable or field and the value.
// The same rules decide where metrics go (src/otlp-metrics/settings.ts): the
// helpers take the signal, `traces` or `metrics`.
import { ConfigError } from "../config/validate.ts";

export type OtlpProtocol = "http/protobuf" | "http/json";

export interface OtlpTarget {
  /** The exact URL spans are posted to. */
  url: string;
  protocol: OtlpProtocol;
  /** Where the URL came from: a configuration field or an OTEL_* variable. */
  source: string;
  /** Set when the URL looks unintended (a base endpoint that already ends in /v1/traces). */
  warning?: string;
}

export type TracingTarget = { on: true; otlp: OtlpTarget } | { on: false; reason: string };

/** The tracing fields of the configuration that decide the target. */
export interface TracingEndpointSettings {
  enabled: boolean | undefined;
  /** Base URL: `/v1/traces` is appended. */
  endpoint: string | undefined;
  /** Traces URL, used as given. */
  tracesEndpoint: string | undefined;
}

export type Environment = Readonly<Record<string, string | undefined>>;

/** An OTLP signal this exporter sends. */
export type OtlpSignal = "traces" | "metrics";

/** The OTLP/HTTP default of the specification, used when a signal is enabled without an endpoint. */
export const defaultBaseEndpoint = "http://localhost:4318";

export function set(value: string | undefined): value is string {
  return value !== undefined && value.trim() !== "";
}

export function httpUrl(source: string, value: string): URL {
  let url: URL;
  try {
    url = new URL(value.trim());
  } catch {
    throw new ConfigError([`${source}: expected an http(s) URL of an OTLP/HTTP receiver, got "${value}"`]);
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    throw new ConfigError([`${source}: expected an http(s) URL of an OTLP/HTTP receiver, got "${value}"`]);
  }
  return url;
}

/** A base endpoint: `/v1/<signal>` appended. */
export function fromBase(
  source: string,
  value: string,
  signal: OtlpSignal = "traces",
): Omit<OtlpTarget, "protocol"> {
  const path = `v1/${signal}`;
  const url = httpUrl(source, value);
  url.pathname = `${url.pathname.replace(/\/+$/, "")}/${path}`;
  const target: Omit<OtlpTarget, "protocol"> = { url: url.href, source };
  if (url.pathname.endsWith(`/${path}/${path}`)) {
    target.warning = `${source} is a base endpoint (/${path} is appended) but already ends in /${path}; give the full URL as the ${signal} endpoint instead`;
  }
  return target;
}

/** A signal's own endpoint: used as given. */
export function fromSignal(source: string, value: string): Omit<OtlpTarget, "protocol"> {
  return { url: httpUrl(source, value).href, source };
}

/** The per-signal variable (`OTEL_EXPORTER_OTLP_<SIGNAL>_<what>`) when set, else the general one, with its name. */
export function signalVariable(
  env: Environment,
  signal: OtlpSignal,
  what: string,
): [source: string, value: string | undefined] {
  const specific = `OTEL_EXPORTER_OTLP_${signal.toUpperCase()}_${what}`;
  if (set(env[specific])) return [specific, env[specific]];
  return [`OTEL_EXPORTER_OTLP_${what}`, env[`OTEL_EXPORTER_OTLP_${what}`]];
}

/** OTEL_EXPORTER_OTLP_<SIGNAL>_PROTOCOL, else OTEL_EXPORTER_OTLP_PROTOCOL, else the specification's default. */
export function otlpProtocol(env: Environment, signal: OtlpSignal = "traces"): OtlpProtocol {
  const [source, raw] = signalVariable(env, signal, "PROTOCOL");
  const value = raw?.trim() || "http/protobuf";
  if (value === "http/protobuf" || value === "http/json") return value;
  if (value === "grpc") {
    throw new ConfigError([
      `${source}: "grpc" is not supported; use http/protobuf (the default) or http/json and point the endpoint at the receiver's OTLP/HTTP port (usually 4318)`,
    ]);
  }
  throw new ConfigError([`${source}: expected http/protobuf or http/json, got "${value}"`]);
}

export function resolveTracingTarget(config: TracingEndpointSettings, env: Environment): TracingTarget {
  if (config.enabled === false) return { on: false, reason: "tracing.enabled is false" };
  if (env.OTEL_SDK_DISABLED?.trim().toLowerCase() === "true") {
    return { on: false, reason: "OTEL_SDK_DISABLED=true" };
  }
  // Stryker disable next-line StringLiteral: unset then reads as "", whose one empty entry is skipped, which leaves nothing but otlp either way
  const exporters = (env.OTEL_TRACES_EXPORTER ?? "otlp")
    .split(",")
    .map((e) => e.trim())
    .filter((e) => e !== "");
  if (exporters.includes("none")) return { on: false, reason: "OTEL_TRACES_EXPORTER=none" };
  const unsupported = exporters.filter((e) => e !== "otlp");
  if (unsupported.length > 0) {
    throw new ConfigError([
      `OTEL_TRACES_EXPORTER: expected otlp or none, got "${env.OTEL_TRACES_EXPORTER}" (${unsupported.join(", ")} is not supported)`,
    ]);
  }
  let target: Omit<OtlpTarget, "protocol"> | undefined;
  if (set(config.tracesEndpoint)) target = fromSignal("tracing.tracesEndpoint", config.tracesEndpoint);
  else if (set(config.endpoint)) target = fromBase("tracing.endpoint", config.endpoint);
  else if (set(env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT)) {
    target = fromSignal("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT);
  } else if (set(env.OTEL_EXPORTER_OTLP_ENDPOINT)) {
    target = fromBase("OTEL_EXPORTER_OTLP_ENDPOINT", env.OTEL_EXPORTER_OTLP_ENDPOINT);
  } else if (config.enabled === true) {
    target = fromBase("tracing.enabled (default endpoint)", defaultBaseEndpoint);
  }
  if (!target) return { on: false, reason: "no OTLP endpoint configured" };
  return { on: true, otlp: { ...target, protocol: otlpProtocol(env) } };
}

/** How root spans are sampled, from OTEL_TRACES_SAMPLER / OTEL_TRACES_SAMPLER_ARG. */
export type RootSampling = { kind: "always_on" } | { kind: "always_off" } | { kind: "ratio"; ratio: number };

/**
 * Every span this exporter makes is either a root or the child of one of its
 * roots, so `parentbased_X` and `X` decide the same for roots; children then
 * follow their root's decision (see SdkSpanSink).
 */
export function rootSampling(env: Environment): RootSampling {
  const name = (env.OTEL_TRACES_SAMPLER ?? "parentbased_always_on").trim().toLowerCase();
  switch (name) {
    case "always_on":
    case "parentbased_always_on":
      return { kind: "always_on" };
    case "always_off":
    case "parentbased_always_off":
      return { kind: "always_off" };
    case "traceidratio":
    case "parentbased_traceidratio":
      return { kind: "ratio", ratio: samplerRatio(env.OTEL_TRACES_SAMPLER_ARG) };
    default:
      throw new ConfigError([
        `OTEL_TRACES_SAMPLER: expected always_on, always_off, traceidratio or their parentbased_ forms, got "${env.OTEL_TRACES_SAMPLER}"`,
      ]);
  }
}

function samplerRatio(raw: string | undefined): number {
  if (raw === undefined || raw.trim() === "") return 1;
  const ratio = Number(raw);
  if (!Number.isFinite(ratio) || ratio < 0 || ratio > 1) {
    throw new ConfigError([`OTEL_TRACES_SAMPLER_ARG: expected a ratio between 0 and 1, got "${raw}"`]);
  }
  return ratio;
}
