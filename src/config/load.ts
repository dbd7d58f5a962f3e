// Reading the configuration file, and reloading it when it changes. A bad new
// file is rejected with a log line and a metric; the last good configuration
// keeps running.
import { createHash } from "node:crypto";
import { closeSync, openSync, readSync, unwatchFile, watchFile } from "node:fs";
import { parse, YAMLParseError } from "yaml";
import { flagOfProblem } from "./flags.ts";
import type { Config } from "./schema.ts";
import { binaryProblem, topLevelProblem } from "./top-level.ts";
import { ConfigError, validateConfig } from "./validate.ts";

export interface LoadedConfig {
  config: Config;
  /** sha256 prefix of the file's bytes ("default" without a file). */
  hash: string;
}

export function hashText(text: string): string {
  return createHash("sha256").update(text).digest("hex").slice(0, 12);
}

/** Raw settings from the command line, laid over the file's before validation. */
export type Overrides = Record<string, unknown>;

function merge(base: unknown, overrides: Overrides): unknown {
  if (Object.keys(overrides).length === 0) return base;
  const result: Record<string, unknown> =
    typeof base === "object" && base !== null && !Array.isArray(base)
      ? { ...(base as Record<string, unknown>) }
      : {};
  for (const [key, value] of Object.entries(overrides)) {
    const current = result[key];
    result[key] =
      typeof value === "object" &&
      value !== null &&
      !Array.isArray(value) &&
      typeof current === "object" &&
      current !== null
        ? { ...(current as Record<string, unknown>), ...(value as Record<string, unknown>) }
        : value;
  }
  return result;
}

/**
 * Replaces `${NAME}` and `${NAME:-default}` with environment variables, so one
 * file can serve every pod (e.g. `namespaces: ["${POD_NAMESPACE}"]` with the
 * downward API). `$${` escapes a literal `${`. An unset variable without a
 * default is an error naming it.
 */
export function expandEnvironment(
  text: string,
  source: string,
  env: NodeJS.ProcessEnv = process.env,
): string {
  const missing: string[] = [];
  const expanded = text.replace(
    /\$?\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}/g,
    (match, name: string, fallback?: string) => {
      if (match.startsWith("$$")) return match.slice(1);
      const value = env[name];
      if (value !== undefined && value !== "") return value;
      if (fallback !== undefined) return fallback;
      missing.push(name);
      return match;
    },
  );
  if (missing.length > 0) {
    throw new ConfigError(
      missing.map((name) => `${source}: \${${name}} is used but the environment variable ${name} is not set`),
    );
  }
  return expanded;
}

/** Expands environment variables in every string value (not in keys, not in comments). */
function expandValues(value: unknown, source: string): unknown {
  if (typeof value === "string") return value.includes("${") ? expandEnvironment(value, source) : value;
  if (Array.isArray(value)) return value.map((v) => expandValues(v, source));
  if (typeof value === "object" && value !== null) {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, expandValues(v, source)]));
  }
  return value;
}

/**
 * Parses and validates the text of a configuration file; throws ConfigError
 * naming the problem(s). The file must hold a mapping: an empty file, a list, a
 * plain string or binary garbage is an error, never the defaults, so a
 * truncated or mangled file (at start or on reload) cannot silently turn into
 * "watch every CRD". `{}` asks for the defaults.
 */
export function parseConfigText(text: string, source: string, overrides: Overrides = {}): Config {
  const binary = binaryProblem(text);
  if (binary) throw new ConfigError([`${source}: ${binary}`]);
  let parsed: unknown;
  try {
    parsed = parse(text);
  } catch (error) {
    const where = error instanceof YAMLParseError && error.linePos ? ` at line ${error.linePos[0].line}` : "";
    throw new ConfigError([
      `${source}: not valid YAML${where}: ${error instanceof Error ? error.message.split("\n")[0] : String(error)}`,
    ]);
  }
  const problem = topLevelProblem(parsed);
  if (problem) throw new ConfigError([`${source}: ${problem}`]);
  return validated(expandValues(parsed, source), source, overrides);
}

function validated(raw: unknown, source: string, overrides: Overrides): Config {
  try {
    return validateConfig(merge(raw, overrides));
  } catch (error) {
    if (error instanceof ConfigError)
      throw new ConfigError(error.problems.map((p) => `${flagOfProblem(p, overrides) ?? source}: ${p}`));
    throw error;
  }
}

/**
 * Larger than any real configuration (config.example.yaml is 5 KB; 1,000
 * namespaces add 20 KB) and a quarter of what a ConfigMap holds. YAML parses
 * about 1 MB/s here, and a reload parses on the event loop, so a generated
 * multi-megabyte file would stall /metrics and /healthz for seconds: it is
 * refused before parsing.
 */
export const maxConfigBytes = 256 * 1024;

/** The file's text; throws (the fs error, or one about the size) past maxConfigBytes without reading further. */
function readConfigText(path: string): string {
  const fd = openSync(path, "r");
  try {
    const buffer = Buffer.alloc(maxConfigBytes + 1);
    let size = 0;
    while (size < buffer.length) {
      const read = readSync(fd, buffer, size, buffer.length - size, null);
      if (read === 0) break;
      size += read;
    }
    if (size > maxConfigBytes) {
      throw new Error(`the file is larger than ${maxConfigBytes} bytes, far more than a configuration needs`);
    }
    return buffer.toString("utf8", 0, size);
  } finally {
    closeSync(fd);
  }
}

export function loadConfigFile(path: string | undefined, overrides: Overrides = {}): LoadedConfig {
  if (!path) return { config: validated(undefined, "command line", overrides), hash: "default" };
  let text: string;
  try {
    text = readConfigText(path);
  } catch (error) {
    throw new ConfigError([`${path}: cannot read the configuration file: ${(error as Error).message}`]);
  }
  return { config: parseConfigText(text, path, overrides), hash: hashText(text) };
}

/** Calls onChange with each new good config, onError with each rejected one. Returns a stop function. */
export function watchConfigFile(
  path: string,
  overrides: Overrides,
  onChange: (loaded: LoadedConfig) => void,
  onError: (error: Error) => void,
  intervalMs = 1000,
): () => void {
  // The hash of the content in force (or last rejected). Forgotten when the
  // file cannot be read, so that the same content coming back is applied again
  // and the reload-success gauge recovers.
  let lastHash: string | undefined;
  try {
    lastHash = hashText(readConfigText(path));
  } catch {
    lastHash = undefined;
  }
  // Polling (not inotify) also follows the symlink swaps of mounted ConfigMaps.
  const listener = (): void => {
    let text: string;
    try {
      text = readConfigText(path);
    } catch (error) {
      lastHash = undefined;
      onError(new ConfigError([`${path}: cannot read the configuration file: ${(error as Error).message}`]));
      return;
    }
    const hash = hashText(text);
    if (hash === lastHash) return;
    lastHash = hash;
    try {
      onChange({ config: parseConfigText(text, path, overrides), hash });
    } catch (error) {
      onError(error as Error);
    }
  };
  watchFile(path, { interval: intervalMs, persistent: false }, listener);
  return () => unwatchFile(path, listener);
}
