// Strict validation of the parsed YAML: unknown keys are rejected and every
// error names the path, the value and what was expected, e.g.
//   resources[1].failedAfter: expected a duration like "90s", "5m" or a number of seconds, got "soon"
import { Checker, type Raw } from "./checker.ts";
import { type ReadContext, readTable, tableKeys } from "./option.ts";
import { configTable } from "./options.ts";
import { type Config, defaultConfig } from "./schema.ts";

export class ConfigError extends Error {
  readonly problems: string[];
  constructor(problems: string[]) {
    super(`invalid configuration:\n  ${problems.join("\n  ")}`);
    this.problems = problems;
  }
}

/** Validates parsed YAML (a mapping; undefined when no file was given) into a Config; throws ConfigError listing every problem. */
export function validateConfig(input: unknown): Config {
  if (input === undefined || input === null) return defaultConfig;
  if (typeof input === "object" && !Array.isArray(input) && Object.keys(input).length === 0)
    return defaultConfig;
  const c = new Checker();
  const raw = c.object("", input, tableKeys(configTable));
  if (!raw) throw new ConfigError(c.problems);
  const config = readTable(c, "", raw, configTable, readContext(raw));
  if (config.sharding?.kind === "statefulset" && config.tracing.leaseName !== undefined) {
    c.fail(
      "tracing.leaseName",
      "no Lease with StatefulSet sharding (each pod is the only one of its shard and emits its own objects' spans)",
      config.tracing.leaseName,
    );
  }
  if (config.sharding?.kind === "statefulset" && config.otlpMetrics.leaseName !== undefined) {
    c.fail(
      "otlpMetrics.leaseName",
      "no Lease with StatefulSet sharding (each pod is the only one of its shard and pushes its own objects' series)",
      config.otlpMetrics.leaseName,
    );
  }
  if (c.problems.length > 0) throw new ConfigError(c.problems);
  return config;
}

/**
 * What other options need of the prefix and crdDiscovery, read apart (their
 * problems are reported once, by the full read).
 */
function readContext(raw: Raw): ReadContext {
  const quiet = new Checker();
  const unset: ReadContext = { prefix: defaultConfig.metricPrefix, crdDiscovery: defaultConfig.crdDiscovery };
  return {
    prefix: configTable.metricPrefix.read(quiet, "", raw.metricPrefix, unset) ?? unset.prefix,
    crdDiscovery: configTable.crdDiscovery.read(quiet, "", raw.crdDiscovery, unset) ?? unset.crdDiscovery,
  };
}
