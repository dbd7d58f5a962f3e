// The web configuration file (exporter-toolkit format) and the HTTPS listener
// it describes: parse errors name the key and what was expected; each
// client_auth_type admits and refuses the clients it should, over real TLS
// connections; Kubernetes auth without TLS is refused.
import assert from "node:assert/strict";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { request } from "node:https";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { stringify } from "yaml";
import { ConfigError } from "../../src/config/validate.ts";
import { silentLogger } from "../../src/log.ts";
import { KubernetesMetricsAuth } from "../../src/server/metrics-auth.ts";
import { metricsServerFactory } from "../../src/server/secure-serving.ts";
import { createTlsServer } from "../../src/server/tls.ts";
import { parseWebConfig } from "../../src/server/web-config.ts";
import { makeTestCertificates, type TestCertificates } from "../helpers/tls-certs.ts";

/** A Kubernetes client that must not be called. */
const unusedClient = {
  request: async <T>(): Promise<{ status: number; body: T }> => {
    throw new Error("unexpected API call");
  },
};

let dir = "";
let certs: TestCertificates;

before(() => {
  dir = mkdtempSync(join(tmpdir(), "cr-web-config-"));
  certs = makeTestCertificates("scraper");
  writeFileSync(join(dir, "tls.crt"), certs.serverCertPem);
  writeFileSync(join(dir, "tls.key"), certs.serverKeyPem);
  writeFileSync(join(dir, "ca.crt"), certs.caPem);
});

after(() => rmSync(dir, { recursive: true, force: true }));

function problems(text: string): string[] {
  try {
    parseWebConfig(text, "/etc/web.yml");
  } catch (error) {
    assert.ok(error instanceof ConfigError);
    return error.problems;
  }
  return [];
}

test("web config: defaults, relative paths against the file's directory", () => {
  assert.deepEqual(parseWebConfig("", "/etc/web.yml"), { tls: undefined });
  assert.deepEqual(
    parseWebConfig("tls_server_config:\n  cert_file: t.crt\n  key_file: /abs/t.key\n", "/etc/x/web.yml"),
    {
      tls: {
        certFile: "/etc/x/t.crt",
        keyFile: "/abs/t.key",
        clientCaFile: undefined,
        clientAuthType: "NoClientCert",
        minVersion: "TLSv1.2",
        maxVersion: undefined,
      },
    },
  );
});

test("web config: every problem names the key, the value and what was expected", () => {
  assert.deepEqual(problems("tls_server_config:\n  cert_file: a\n"), [
    "/etc/web.yml: tls_server_config.key_file: required (a PEM file)",
  ]);
  assert.deepEqual(problems("tls_server_config:\n  cert_file: a\n  key_file: b\n  min_version: TLS1.2\n"), [
    '/etc/web.yml: tls_server_config.min_version: expected one of TLS10, TLS11, TLS12, TLS13, got "TLS1.2"',
  ]);
  assert.deepEqual(
    problems(
      "tls_server_config:\n  cert_file: a\n  key_file: b\n  client_auth_type: RequireAndVerifyClientCert\n",
    ),
    [
      "/etc/web.yml: tls_server_config.client_ca_file: required with client_auth_type RequireAndVerifyClientCert",
    ],
  );
  assert.match(
    problems("tls_server_config:\n  cert_file: a\n  key_file: b\n  client_ca_file: c\n")[0] ?? "",
    /client_ca_file is set but no client certificate is asked for/,
  );
  assert.match(
    problems("tls_server_config:\n  cert_file: a\n  key_file: b\n  client_auth_type: Yes\n")[0] ?? "",
    /expected one of NoClientCert, RequestClientCert/,
  );
  assert.deepEqual(problems("basic_auth_users:\n  admin: $2y$10$x\n"), [
    "/etc/web.yml: basic_auth_users: not supported by cr-status-exporter (use metricsAuth: kubernetes (TokenReview and SubjectAccessReview) to protect /metrics)",
  ]);
  assert.match(
    problems("tls_server_config:\n  cert_file: a\n  key_file: b\n  certfile: c\n")[0] ?? "",
    /tls_server_config\.certfile: unknown key \(allowed: cert_file/,
  );
});

interface Outcome {
  status?: number;
  error?: string;
}

async function withServer(
  clientAuthType: string,
  run: (get: (client?: { cert: string; key: string }) => Promise<Outcome>) => Promise<void>,
): Promise<void> {
  const file = join(dir, `web-${clientAuthType}.yml`);
  writeFileSync(
    file,
    stringify({
      tls_server_config: {
        cert_file: "tls.crt",
        key_file: "tls.key",
        ...(clientAuthType !== "NoClientCert" && { client_ca_file: "ca.crt" }),
        client_auth_type: clientAuthType,
      },
    }),
  );
  const listener = createTlsServer(file, (_req, res) => res.end("ok\n"), silentLogger, 60_000);
  await new Promise<void>((resolve) => listener.server.listen(0, "127.0.0.1", resolve));
  const port = (listener.server.address() as AddressInfo).port;
  const get = (client?: { cert: string; key: string }): Promise<Outcome> =>
    new Promise((resolve) => {
      const req = request(
        { host: "127.0.0.1", port, path: "/", ca: certs.caPem, agent: false, ...(client ?? {}) },
        (res) => {
          res.resume();
          res.on("end", () => resolve({ status: res.statusCode ?? 0 }));
        },
      );
      req.on("error", (error) => resolve({ error: error.message }));
      req.end();
    });
  try {
    await run(get);
  } finally {
    listener.stopReloading();
    await new Promise<void>((resolve) => listener.server.close(() => resolve()));
  }
}

test("client_auth_type: who gets an answer, over real TLS connections", async () => {
  const trusted = { cert: certs.clientCertPem, key: certs.clientKeyPem };
  const stranger = makeTestCertificates("stranger");
  const untrusted = { cert: stranger.clientCertPem, key: stranger.clientKeyPem };
  const expected: Record<string, [none: boolean, trusted: boolean, untrusted: boolean]> = {
    NoClientCert: [true, true, true],
    RequestClientCert: [true, true, true],
    RequireAnyClientCert: [false, true, true],
    VerifyClientCertIfGiven: [true, true, false],
    RequireAndVerifyClientCert: [false, true, false],
  };
  for (const [type, [none, withTrusted, withUntrusted]] of Object.entries(expected)) {
    await withServer(type, async (get) => {
      const seen = [await get(), await get(trusted), await get(untrusted)].map((o) => o.status === 200);
      assert.deepEqual(seen, [none, withTrusted, withUntrusted], type);
    });
  }
});

test("a certificate whose key does not match is a configuration error before listening", () => {
  const other = makeTestCertificates();
  writeFileSync(join(dir, "other.key"), other.serverKeyPem);
  writeFileSync(
    join(dir, "mismatch.yml"),
    stringify({ tls_server_config: { cert_file: "tls.crt", key_file: "other.key" } }),
  );
  assert.throws(
    () =>
      metricsServerFactory(
        { webConfigFile: join(dir, "mismatch.yml"), metricsAuth: "none" },
        unusedClient,
        silentLogger,
      ),
    (error: unknown) =>
      error instanceof ConfigError && /are not a usable certificate and key/.test(error.message),
  );
});

test("metricsAuth: kubernetes without TLS is refused (tokens would cross in clear text)", () => {
  assert.throws(
    () =>
      metricsServerFactory(
        { webConfigFile: undefined, metricsAuth: "kubernetes" },
        unusedClient,
        silentLogger,
      ),
    /metricsAuth: kubernetes needs HTTPS/,
  );
  writeFileSync(join(dir, "empty.yml"), "");
  assert.throws(
    () =>
      metricsServerFactory(
        { webConfigFile: join(dir, "empty.yml"), metricsAuth: "kubernetes" },
        unusedClient,
        silentLogger,
      ),
    /needs HTTPS/,
  );
  assert.equal(
    metricsServerFactory({ webConfigFile: undefined, metricsAuth: "none" }, unusedClient, silentLogger),
    undefined,
  );
});

test("Kubernetes auth: decisions are cached per token, server errors are not", async () => {
  const calls: string[] = [];
  let failing = false;
  const client = {
    async request<T>(_method: string, path: string, options?: { body?: unknown }) {
      calls.push(path.split("/").at(-1) ?? "");
      if (failing) return { status: 503, body: {} as T };
      const spec = (options?.body as { spec: { token?: string; user?: string } } | undefined)?.spec ?? {};
      if (path.endsWith("tokenreviews")) {
        const known = spec.token === "good" || spec.token === "other";
        return {
          status: 201,
          body: { status: { authenticated: known, user: { username: spec.token } } } as T,
        };
      }
      return { status: 201, body: { status: { allowed: spec.user === "good" } } as T };
    },
  };
  let now = 0;
  const auth = new KubernetesMetricsAuth(client, { now: () => now });
  assert.deepEqual(await auth.authorize(undefined, "/metrics"), {
    allowed: false,
    status: 401,
    reason: "a bearer token is required",
  });
  assert.equal((await auth.authorize("Bearer good", "/metrics")).allowed, true);
  assert.equal((await auth.authorize("Bearer good", "/metrics")).allowed, true);
  assert.deepEqual(
    calls,
    ["tokenreviews", "subjectaccessreviews"],
    "the second scrape is answered from the cache",
  );
  assert.equal((await auth.authorize("Bearer other", "/metrics")).allowed, false);
  assert.equal((await auth.authorize("Bearer nobody", "/metrics")).allowed, false);
  now += 121_000;
  failing = true;
  assert.deepEqual(await auth.authorize("Bearer good", "/metrics"), {
    allowed: false,
    status: 500,
    reason: "TokenReview failed with HTTP 503",
  });
  failing = false;
  assert.equal(
    (await auth.authorize("Bearer good", "/metrics")).allowed,
    true,
    "an error is retried, not cached",
  );
});
