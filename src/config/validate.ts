// Strict validation of the parsed YAML: unknown keys are rejected and every
// error names the path, the value and what was expected, e.g.
//   resources[1].failedAfter: expected a duration like "90s", "5m" or a number of seconds, got "soon"
import { Checker, ConfigError } from "./checker.ts";
import { familyRules } from "./metrics-rules.ts";
import { type Config, defaultConfig, type ResourceSelector } from "./schema.ts";
import { statusPageConfig } from "./status-page.ts";
import { dns1123, prefixPattern, selector } from "./validate-resources.ts";

export { Checker, ConfigError } from "./checker.ts";

const hostPort = /^(\[[0-9a-fA-F:]+\]|[^:]*):\d{1,5}$/;

function apiProxy(c: Checker, value: unknown): Config["apiProxy"] {
  if (value === undefined) return undefined;
  const raw = c.object("apiProxy", value, ["listen", "allowNonLoopback", "kubeconfigPath", "tokenFile"]);
  if (!raw) return undefined;
  const listen = c.string("apiProxy.listen", raw.listen, hostPort, "host:port");
  if (listen === undefined) {
    if (raw.listen === undefined)
      c.problems.push("apiProxy.listen: required (host:port, e.g. 127.0.0.1:8001)");
    return undefined;
  }
  return {
    listen,
    allowNonLoopback: c.boolean("apiProxy.allowNonLoopback", raw.allowNonLoopback) ?? false,
    kubeconfigPath: c.string("apiProxy.kubeconfigPath", raw.kubeconfigPath),
    tokenFile: c.string("apiProxy.tokenFile", raw.tokenFile),
  };
}

function auditReceiver(c: Checker, value: unknown): Config["auditReceiver"] {
  if (value === undefined) return undefined;
  const raw = c.object("auditReceiver", value, [
    "listen",
    "certFile",
    "keyFile",
    "bearerTokenFile",
    "clientCaFile",
  ]);
  if (!raw) return undefined;
  const listen = c.string("auditReceiver.listen", raw.listen, hostPort, "host:port");
  const certFile = c.string("auditReceiver.certFile", raw.certFile);
  const keyFile = c.string("auditReceiver.keyFile", raw.keyFile);
  const bearerTokenFile = c.string("auditReceiver.bearerTokenFile", raw.bearerTokenFile);
  const clientCaFile = c.string("auditReceiver.clientCaFile", raw.clientCaFile);
  for (const [key, v] of [
    ["listen", listen],
    ["certFile", certFile],
    ["keyFile", keyFile],
  ] as const) {
    if (v === undefined && raw[key] === undefined) c.problems.push(`auditReceiver.${key}: required`);
  }
  if (bearerTokenFile === undefined && clientCaFile === undefined) {
    c.problems.push(
      "auditReceiver: give bearerTokenFile or clientCaFile (or both): every request must be authenticated",
    );
  }
  if (!listen || !certFile || !keyFile) return undefined;
  return { listen, certFile, keyFile, bearerTokenFile, clientCaFile };
}

/** Validates parsed YAML (or undefined for an empty file) into a Config; throws ConfigError listing every problem. */
export function validateConfig(input: unknown): Config {
  const c = new Checker();
  if (input === undefined || input === null) return defaultConfig;
  if (typeof input === "object" && Object.keys(input).length === 0) return defaultConfig;
  const raw = c.object("", input, [
    "listen",
    "metricPrefix",
    "logLevel",
    "crdDiscovery",
    "resources",
    "tracing",
    "apiProxy",
    "auditReceiver",
    "metrics",
    "statusPage",
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
    }
  }
  const tracingRaw =
    raw.tracing === undefined
      ? {}
      : c.object("tracing", raw.tracing, [
          "enabled",
          "endpoint",
          "clusterName",
          "generationTimeout",
          "leaseNamespace",
          "leaseName",
        ]);
  const tracing = {
    enabled: c.boolean("tracing.enabled", tracingRaw?.enabled),
    endpoint: c.string("tracing.endpoint", tracingRaw?.endpoint, /^https?:\/\//, "an http(s) URL"),
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
    statusPage: statusPageConfig(c, raw.statusPage),
  };
  if (c.problems.length > 0) throw new ConfigError(c.problems);
  return config;
}
