// The web configuration file of the metrics listener, in the format of the
// Prometheus exporter toolkit (--web.config.file), so the files and habits of
// other exporters carry over:
//
//   tls_server_config:
//     cert_file: /etc/cr-status-exporter/tls/tls.crt
//     key_file: /etc/cr-status-exporter/tls/tls.key
//     client_ca_file: /etc/cr-status-exporter/client-ca/ca.crt   # optional
//     client_auth_type: RequireAndVerifyClientCert                # default NoClientCert
//     min_version: TLS12                                          # default TLS12
//     max_version: TLS13
//
// Relative paths are relative to the file's directory, as in the toolkit.
// What the toolkit has and this exporter does not (basic_auth_users, cipher
// suites, headers, …) is rejected by name rather than silently ignored.
import { readFileSync } from "node:fs";
import { dirname, resolve } from "node:path";
import type { SecureVersion } from "node:tls";
import { parse } from "yaml";
import { ConfigError } from "../config/validate.ts";

export const clientAuthTypes = [
  "NoClientCert",
  "RequestClientCert",
  "RequireAnyClientCert",
  "VerifyClientCertIfGiven",
  "RequireAndVerifyClientCert",
] as const;
export type ClientAuthType = (typeof clientAuthTypes)[number];

const tlsVersions: Record<string, SecureVersion> = {
  TLS10: "TLSv1",
  TLS11: "TLSv1.1",
  TLS12: "TLSv1.2",
  TLS13: "TLSv1.3",
};

export interface TlsServerConfig {
  certFile: string;
  keyFile: string;
  clientCaFile: string | undefined;
  clientAuthType: ClientAuthType;
  minVersion: SecureVersion;
  maxVersion: SecureVersion | undefined;
}

export interface WebConfig {
  /** Absent: plain HTTP. */
  tls: TlsServerConfig | undefined;
}

const unsupported: Record<string, string> = {
  basic_auth_users: "use metricsAuth: kubernetes (TokenReview and SubjectAccessReview) to protect /metrics",
  http_server_config: "HTTP/2 and extra response headers are not offered",
  cipher_suites: "Node.js chooses the cipher suites of each TLS version",
  curve_preferences: "Node.js chooses the curves",
  prefer_server_cipher_suites: "Node.js always prefers the server's order",
  client_allowed_sans: "authorize clients with metricsAuth: kubernetes instead",
  cert: "give cert_file",
  key: "give key_file",
  client_ca: "give client_ca_file",
};

function keysOf(
  problems: string[],
  path: string,
  value: unknown,
  allowed: readonly string[],
): Record<string, unknown> | undefined {
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    problems.push(`${path}: expected a mapping, got ${JSON.stringify(value)}`);
    return undefined;
  }
  for (const key of Object.keys(value)) {
    if (allowed.includes(key)) continue;
    const why = unsupported[key];
    problems.push(
      why
        ? `${path ? `${path}.` : ""}${key}: not supported by cr-status-exporter (${why})`
        : `${path ? `${path}.` : ""}${key}: unknown key (allowed: ${allowed.join(", ")})`,
    );
  }
  return value as Record<string, unknown>;
}

/** Parses the file's text; `source` (the file's path) names it in errors and anchors relative paths. */
export function parseWebConfig(text: string, source: string): WebConfig {
  const problems: string[] = [];
  let document: unknown;
  try {
    document = parse(text);
  } catch (error) {
    throw new ConfigError([`${source}: not valid YAML: ${(error as Error).message.split("\n")[0]}`]);
  }
  if (document === null || document === undefined) return { tls: undefined };
  const root = keysOf(problems, "", document, ["tls_server_config"]);
  const raw = root?.tls_server_config;
  const tls = raw === undefined ? undefined : parseTlsServerConfig(problems, raw, source);
  if (problems.length > 0) throw new ConfigError(problems.map((p) => `${source}: ${p}`));
  return { tls };
}

/** `tls_server_config`, its problems added to `problems`; undefined when a required part is missing or wrong. */
function parseTlsServerConfig(problems: string[], raw: unknown, source: string): TlsServerConfig | undefined {
  const path = "tls_server_config";
  const t = keysOf(problems, path, raw, [
    "cert_file",
    "key_file",
    "client_ca_file",
    "client_auth_type",
    "min_version",
    "max_version",
  ]);
  const file = (key: string, required: boolean): string | undefined => {
    const value = t?.[key];
    if (value === undefined || value === "") {
      if (required) problems.push(`${path}.${key}: required (a PEM file)`);
      return undefined;
    }
    if (typeof value !== "string") {
      problems.push(`${path}.${key}: expected a file path, got ${JSON.stringify(value)}`);
      return undefined;
    }
    return resolve(dirname(source), value);
  };
  const version = (key: string, fallback: SecureVersion | undefined): SecureVersion | undefined => {
    const value = t?.[key];
    if (value === undefined) return fallback;
    const mapped = typeof value === "string" ? tlsVersions[value] : undefined;
    if (!mapped) {
      problems.push(
        `${path}.${key}: expected one of ${Object.keys(tlsVersions).join(", ")}, got ${JSON.stringify(value)}`,
      );
    }
    return mapped;
  };
  const certFile = file("cert_file", true);
  const keyFile = file("key_file", true);
  const clientCaFile = file("client_ca_file", false);
  const clientAuthType = clientAuth(problems, t?.client_auth_type ?? "NoClientCert", clientCaFile);
  const minVersion = version("min_version", "TLSv1.2");
  const maxVersion = version("max_version", undefined);
  if (!certFile || !keyFile || !minVersion) return undefined;
  return { certFile, keyFile, clientCaFile, clientAuthType, minVersion, maxVersion };
}

/** client_auth_type, checked against client_ca_file: verifying needs a CA, a CA is pointless without asking. */
function clientAuth(problems: string[], authType: unknown, clientCaFile: string | undefined): ClientAuthType {
  const path = "tls_server_config";
  if (!clientAuthTypes.includes(authType as ClientAuthType)) {
    problems.push(
      `${path}.client_auth_type: expected one of ${clientAuthTypes.join(", ")}, got ${JSON.stringify(authType)}`,
    );
  }
  const clientAuthType = authType as ClientAuthType;
  const verifies =
    clientAuthType === "VerifyClientCertIfGiven" || clientAuthType === "RequireAndVerifyClientCert";
  if (verifies && !clientCaFile) {
    problems.push(`${path}.client_ca_file: required with client_auth_type ${clientAuthType}`);
  }
  if (clientCaFile && clientAuthType === "NoClientCert") {
    problems.push(
      `${path}.client_auth_type: client_ca_file is set but no client certificate is asked for; ` +
        "set client_auth_type (e.g. RequireAndVerifyClientCert)",
    );
  }
  return clientAuthType;
}

export function loadWebConfig(path: string): WebConfig {
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (error) {
    throw new ConfigError([`${path}: cannot read the web configuration file: ${(error as Error).message}`]);
  }
  return parseWebConfig(text, path);
}
