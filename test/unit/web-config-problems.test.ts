// The web configuration file's problems word for word (src/server/web-config.ts):
// what the toolkit offers and this exporter does not, keys that are not
// mappings or paths, YAML that does not parse, a file that cannot be read, and
// the settings each client_auth_type needs.
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { ConfigError } from "../../src/config/validate.ts";
import { loadWebConfig, parseWebConfig } from "../../src/server/web-config.ts";

function problems(text: string): string[] {
  try {
    parseWebConfig(text, "/etc/web.yml");
  } catch (error) {
    assert.ok(error instanceof ConfigError);
    return error.problems;
  }
  return [];
}

const pair = "tls_server_config:\n  cert_file: a\n  key_file: b\n";

test("web config: what the exporter toolkit has and this exporter does not is refused with the reason", () => {
  assert.deepEqual(problems("http_server_config: {}\n"), [
    "/etc/web.yml: http_server_config: not supported by cr-status-exporter (HTTP/2 and extra response headers are not offered)",
  ]);
  const reasons: Record<string, string> = {
    cipher_suites: "Node.js chooses the cipher suites of each TLS version",
    curve_preferences: "Node.js chooses the curves",
    prefer_server_cipher_suites: "Node.js always prefers the server's order",
    client_allowed_sans: "authorize clients with metricsAuth: kubernetes instead",
    cert: "give cert_file",
    key: "give key_file",
    client_ca: "give client_ca_file",
  };
  for (const [key, why] of Object.entries(reasons)) {
    assert.deepEqual(
      problems(`${pair}  ${key}: x\n`),
      [`/etc/web.yml: tls_server_config.${key}: not supported by cr-status-exporter (${why})`],
      key,
    );
  }
});

test("web config: an unknown key lists the keys allowed where it stands", () => {
  assert.deepEqual(problems("tls_config: {}\n"), [
    "/etc/web.yml: tls_config: unknown key (allowed: tls_server_config)",
  ]);
  assert.deepEqual(problems(`${pair}  certfile: c\n`), [
    "/etc/web.yml: tls_server_config.certfile: unknown key (allowed: cert_file, key_file, client_ca_file, client_auth_type, min_version, max_version)",
  ]);
});

test("web config: a section that is not a mapping, a path that is not a string, an empty path", () => {
  assert.deepEqual(problems("tls_server_config: 3\n"), [
    "/etc/web.yml: tls_server_config: expected a mapping, got 3",
    "/etc/web.yml: tls_server_config.cert_file: required (a PEM file)",
    "/etc/web.yml: tls_server_config.key_file: required (a PEM file)",
  ]);
  assert.deepEqual(problems("- tls_server_config\n"), [
    '/etc/web.yml: : expected a mapping, got ["tls_server_config"]',
  ]);
  assert.deepEqual(problems("tls_server_config:\n  cert_file: 3\n  key_file: b\n"), [
    "/etc/web.yml: tls_server_config.cert_file: expected a file path, got 3",
  ]);
  assert.deepEqual(problems('tls_server_config:\n  cert_file: ""\n  key_file: b\n'), [
    "/etc/web.yml: tls_server_config.cert_file: required (a PEM file)",
  ]);
  assert.deepEqual(problems("tls_server_config:\n  key_file: b\n"), [
    "/etc/web.yml: tls_server_config.cert_file: required (a PEM file)",
  ]);
});

test("web config: YAML that does not parse is one problem, the parser's first line", () => {
  assert.deepEqual(problems("tls_server_config: [\n"), [
    "/etc/web.yml: not valid YAML: Flow sequence in block collection must be sufficiently indented and end with a ] at line 2, column 1:",
  ]);
});

test("web config: min_version and max_version take the toolkit's names", () => {
  assert.deepEqual(
    parseWebConfig(`${pair}  min_version: TLS13\n  max_version: TLS13\n`, "/etc/web.yml").tls,
    {
      certFile: "/etc/a",
      keyFile: "/etc/b",
      clientCaFile: undefined,
      clientAuthType: "NoClientCert",
      minVersion: "TLSv1.3",
      maxVersion: "TLSv1.3",
    },
  );
  assert.deepEqual(problems(`${pair}  max_version: 1.3\n`), [
    "/etc/web.yml: tls_server_config.max_version: expected one of TLS10, TLS11, TLS12, TLS13, got 1.3",
  ]);
});

test("web config: verifying a client certificate needs a CA, and a CA needs a client_auth_type that asks", () => {
  for (const type of ["VerifyClientCertIfGiven", "RequireAndVerifyClientCert"]) {
    assert.deepEqual(
      problems(`${pair}  client_auth_type: ${type}\n`),
      [`/etc/web.yml: tls_server_config.client_ca_file: required with client_auth_type ${type}`],
      type,
    );
  }
  assert.deepEqual(problems(`${pair}  client_ca_file: c\n`), [
    "/etc/web.yml: tls_server_config.client_auth_type: client_ca_file is set but no client certificate is asked for; set client_auth_type (e.g. RequireAndVerifyClientCert)",
  ]);
});

test("loadWebConfig: a file that cannot be read is a configuration error naming it", () => {
  const dir = mkdtempSync(join(tmpdir(), "cr-web-config-load-"));
  try {
    const missing = join(dir, "web.yml");
    assert.throws(
      () => loadWebConfig(missing),
      (error: unknown) =>
        error instanceof ConfigError &&
        error.problems.length === 1 &&
        /^.+\/web\.yml: cannot read the web configuration file: ENOENT/.test(error.problems[0] ?? ""),
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
