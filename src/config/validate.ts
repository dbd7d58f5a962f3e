// Strict validation of the parsed YAML: unknown keys are rejected and every
// error names the path, the value and what was expected, e.g.
//   resources[1].failedAfter: expected a duration like "90s", "5m" or a number of seconds, got "soon"
import { Checker } from "./checker.ts";
import { familyRules } from "./metrics-rules.ts";
import { type Config, defaultConfig, type ResourceSelector } from "./schema.ts";
import { statusPageConfig } from "./status-page.ts";
import { dns1123, prefixPattern, selector } from "./validate-resources.ts";
import { sharding } from "./validate-sharding.ts";
import { apiProxy, auditReceiver } from "./validate-status-writes.ts";
import { checkWatchTotal } from "./watch-limits.ts";

export class ConfigError extends Error {
  readonly problems: string[];
  constructor(problems: string[]) {
    super(`invalid configuration:\n  ${problems.join("\n  ")}`);
    this.problems = problems;
  }
}

/** Validates parsed YAML (or undefined for an empty file) into a Config; throws ConfigError listing every problem. */
// biome-ignore lint/complexity/noExcessiveLinesPerFunction: one literal of every top-level key, each validated by its own helper
export function validateConfig(input: unknown): Config {
  const c = new Checker();
  if (input === undefined || input === null) return defaultConfig;
  if (typeof input === "object" && !Array.isArray(input) && Object.keys(input).length === 0)
    return defaultConfig;
  const raw = c.object("", input, [
    "listen",
    "metricPrefix",
    "logLevel",
    "crdDiscovery",
    "resources",
    "tracing",
    "apiProxy",
    "auditReceiver",
    "webConfigFile",
    "metricsAuth",
    "statusPage",
    "metrics",
    "sharding",
  ]);
  if (!raw) throw new ConfigError(c.problems);
  const metricPrefix =
    c.string("metricPrefix", raw.metricPrefix, prefixPattern, "a metric name prefix such as cr_") ??
    defaultConfig.metricPrefix;
  const crdDiscovery = c.boolean("crdDiscovery", raw.crdDiscovery) ?? defaultConfig.crdDiscovery;
  let resources = defaultConfig.resources;
  if (raw.resources !== undefined) {
    if (!Array.isArray(raw.resources) || raw.resources.length === 0) {
      c.fail("resources", "a non-empty list of resource selectors", raw.resources);
    } else {
      resources = raw.resources
        .map((item, i) => selector(c, `resources[${i}]`, item, crdDiscovery, metricPrefix))
        .filter((s): s is ResourceSelector => s !== undefined);
      checkWatchTotal(c, resources);
    }
  }
  const tracingRaw =
    raw.tracing === undefined
      ? {}
      : c.object("tracing", raw.tracing, [
          "enabled",
          "endpoint",
          "tracesEndpoint",
          "clusterName",
          "generationTimeout",
          "leaseNamespace",
          "leaseName",
        ]);
  const tracing = {
    enabled: c.boolean("tracing.enabled", tracingRaw?.enabled),
    endpoint: c.string("tracing.endpoint", tracingRaw?.endpoint, /^https?:\/\//, "an http(s) URL"),
    tracesEndpoint: c.string(
      "tracing.tracesEndpoint",
      tracingRaw?.tracesEndpoint,
      /^https?:\/\//,
      "an http(s) URL",
    ),
    clusterName:
      c.string("tracing.clusterName", tracingRaw?.clusterName) ?? defaultConfig.tracing.clusterName,
    generationTimeoutSeconds:
      c.duration("tracing.generationTimeout", tracingRaw?.generationTimeout) ??
      defaultConfig.tracing.generationTimeoutSeconds,
    leaseNamespace: c.string(
      "tracing.leaseNamespace",
      tracingRaw?.leaseNamespace,
      dns1123,
      "a namespace name",
    ),
    leaseName: c.string("tracing.leaseName", tracingRaw?.leaseName, dns1123, "a Lease name"),
  };
  const config: Config = {
    listen:
      c.string("listen", raw.listen, /^(\[[0-9a-fA-F:]+\]|[^:]*):\d{1,5}$/, "host:port") ??
      defaultConfig.listen,
    metricPrefix,
    metrics: familyRules(c, "metrics", raw.metrics, metricPrefix) ?? defaultConfig.metrics,
    logLevel:
      c.oneOf("logLevel", raw.logLevel, ["debug", "info", "warn", "error"] as const) ??
      defaultConfig.logLevel,
    crdDiscovery,
    resources,
    tracing,
    apiProxy: apiProxy(c, raw.apiProxy),
    auditReceiver: auditReceiver(c, raw.auditReceiver),
    webConfigFile: c.string("webConfigFile", raw.webConfigFile),
    metricsAuth:
      c.oneOf("metricsAuth", raw.metricsAuth, ["none", "kubernetes"] as const) ?? defaultConfig.metricsAuth,
    statusPage: statusPageConfig(c, raw.statusPage),
    sharding: sharding(c, raw.sharding),
  };
  if (config.sharding?.kind === "statefulset" && tracing.leaseName !== undefined) {
    c.fail(
      "tracing.leaseName",
      "no Lease with StatefulSet sharding (each pod is the only one of its shard and emits its own objects' spans)",
      tracing.leaseName,
    );
  }
  if (c.problems.length > 0) throw new ConfigError(c.problems);
  return config;
}
