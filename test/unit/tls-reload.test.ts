// The HTTPS listener's files (src/server/tls.ts): a renewed certificate is
// served to new connections without a restart, a half-written pair or a bad
// edit keeps the previous one serving, and unreadable files are configuration
// errors naming the file.
import assert from "node:assert/strict";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { request } from "node:https";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, test } from "node:test";
import type { PeerCertificate, TLSSocket } from "node:tls";
import { stringify } from "yaml";
import { ConfigError } from "../../src/config/validate.ts";
import { createLogger } from "../../src/log.ts";
import { metricsServerFactory } from "../../src/server/secure-serving.ts";
import { createTlsServer, readMaterial } from "../../src/server/tls.ts";
import type { TlsServerConfig } from "../../src/server/web-config.ts";
import {
  makeTestCertificates,
  reissueServerCertificate,
  type TestCertificates,
} from "../helpers/tls-certs.ts";

let dir = "";
let certs: TestCertificates;
let renewed: { certPem: string; keyPem: string };

before(() => {
  dir = mkdtempSync(join(tmpdir(), "cr-tls-reload-"));
  certs = makeTestCertificates("scraper");
  renewed = reissueServerCertificate(certs);
});
after(() => rmSync(dir, { recursive: true, force: true }));

function writePair(name: string, pair: { certPem: string; keyPem: string }): void {
  writeFileSync(join(dir, `${name}.crt`), pair.certPem);
  writeFileSync(join(dir, `${name}.key`), pair.keyPem);
}

function webConfig(name: string, tls: Record<string, unknown> | undefined): string {
  const file = join(dir, `${name}.yml`);
  writeFileSync(file, tls ? stringify({ tls_server_config: tls }) : "");
  return file;
}

async function serveTls(file: string, reloadIntervalMs = 60_000) {
  const lines: Record<string, unknown>[] = [];
  const logger = createLogger({ level: "debug", write: (l) => lines.push(JSON.parse(l)) });
  const listener = createTlsServer(file, (_req, res) => res.end("ok\n"), logger, reloadIntervalMs);
  await new Promise<void>((resolve) => listener.server.listen(0, "127.0.0.1", resolve));
  const port = (listener.server.address() as AddressInfo).port;
  /** The serial of the certificate a new connection is served. */
  const servedSerial = (): Promise<string> =>
    new Promise((resolve, reject) => {
      const req = request({ host: "127.0.0.1", port, path: "/", ca: certs.caPem, agent: false }, (res) => {
        const peer: PeerCertificate = (res.socket as TLSSocket).getPeerCertificate();
        res.resume();
        res.on("end", () => resolve(peer.serialNumber));
      });
      req.on("error", reject);
      req.end();
    });
  const close = async () => {
    listener.stopReloading();
    await new Promise<void>((resolve) => listener.server.close(() => resolve()));
  };
  return { listener, servedSerial, lines, close };
}

const serialOf = (pem: string) => readMaterial(tlsOf(pem)).serial;
function tlsOf(certPem: string): TlsServerConfig {
  const name = `serial-${Math.random().toString(36).slice(2)}`;
  writePair(name, { certPem, keyPem: certPem === certs.serverCertPem ? certs.serverKeyPem : renewed.keyPem });
  return {
    certFile: join(dir, `${name}.crt`),
    keyFile: join(dir, `${name}.key`),
    clientCaFile: undefined,
    clientAuthType: "NoClientCert",
    minVersion: "TLSv1.2",
    maxVersion: undefined,
  };
}

test("a renewed pair is served to new connections after reload; the same files reload nothing", async () => {
  writePair("live", { certPem: certs.serverCertPem, keyPem: certs.serverKeyPem });
  const file = webConfig("live", { cert_file: "live.crt", key_file: "live.key" });
  const { listener, servedSerial, lines, close } = await serveTls(file);
  try {
    const first = serialOf(certs.serverCertPem);
    const second = serialOf(renewed.certPem);
    assert.notEqual(first, second);
    assert.equal(await servedSerial(), first);
    const serving = lines.find((l) => l.msg === "serving HTTPS");
    assert.equal(serving?.serial, first);
    assert.equal(serving?.component, "tls");
    listener.reload();
    assert.equal(lines.filter((l) => l.msg === "TLS certificate reloaded").length, 0, "nothing changed");
    writePair("live", renewed);
    listener.reload();
    assert.equal(await servedSerial(), second);
    const reloaded = lines.filter((l) => l.msg === "TLS certificate reloaded");
    assert.equal(reloaded.length, 1);
    assert.equal(reloaded[0]?.serial, second);
    assert.equal(reloaded[0]?.level, "info");
    listener.reload();
    assert.equal(lines.filter((l) => l.msg === "TLS certificate reloaded").length, 1, "once per change");
  } finally {
    await close();
  }
});

test("a half-written pair, a removed tls_server_config: the previous certificate keeps serving", async () => {
  writePair("half", { certPem: certs.serverCertPem, keyPem: certs.serverKeyPem });
  const file = webConfig("half", { cert_file: "half.crt", key_file: "half.key" });
  const { listener, servedSerial, lines, close } = await serveTls(file);
  try {
    const first = serialOf(certs.serverCertPem);
    writeFileSync(join(dir, "half.crt"), renewed.certPem);
    listener.reload();
    assert.equal(await servedSerial(), first);
    const warned = lines.filter(
      (l) => l.msg === "TLS files not reloaded; the previous certificate keeps serving",
    );
    assert.equal(warned.length, 1);
    assert.equal(warned[0]?.level, "warn");
    assert.match(String(warned[0]?.error), /are not a usable certificate and key/);
    webConfig("half", undefined);
    listener.reload();
    assert.match(String(lines.at(-1)?.error), /tls_server_config was removed/);
    assert.equal(await servedSerial(), first);
    assert.equal(lines.filter((l) => l.msg === "TLS certificate reloaded").length, 0);
  } finally {
    await close();
  }
});

test("a changed client_auth_type is reported as needing a restart, the certificate still reloads", async () => {
  writePair("auth", { certPem: certs.serverCertPem, keyPem: certs.serverKeyPem });
  const file = webConfig("auth", { cert_file: "auth.crt", key_file: "auth.key" });
  const { listener, servedSerial, lines, close } = await serveTls(file);
  try {
    writePair("auth", renewed);
    webConfig("auth", {
      cert_file: "auth.crt",
      key_file: "auth.key",
      client_ca_file: "auth.crt",
      client_auth_type: "RequireAnyClientCert",
    });
    listener.reload();
    const warned = lines.find((l) => l.msg === "client_auth_type changes take effect after a restart");
    assert.equal(warned?.clientAuthType, "RequireAnyClientCert");
    assert.equal(warned?.level, "warn");
    // Still NoClientCert: a client without a certificate is served.
    assert.equal(await servedSerial(), serialOf(renewed.certPem));
  } finally {
    await close();
  }
});

test("the poller reloads when a file changes on disk", async () => {
  writePair("poll", { certPem: certs.serverCertPem, keyPem: certs.serverKeyPem });
  const file = webConfig("poll", { cert_file: "poll.crt", key_file: "poll.key" });
  const { servedSerial, lines, close } = await serveTls(file, 10);
  try {
    writePair("poll", renewed);
    const second = serialOf(renewed.certPem);
    const deadline = Date.now() + 10_000;
    while (!lines.some((l) => l.msg === "TLS certificate reloaded")) {
      assert.ok(Date.now() < deadline, "no reload within 10 s");
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    assert.equal(await servedSerial(), second);
  } finally {
    await close();
  }
});

test("no tls_server_config at start is a configuration error naming the file", () => {
  const file = webConfig("plain", undefined);
  assert.throws(
    () => createTlsServer(file, () => {}, createLogger({ write: () => {} })),
    (error: unknown) =>
      error instanceof ConfigError &&
      error.message.includes(`${file}: no tls_server_config: nothing to serve HTTPS with`),
  );
});

test("readMaterial: an unreadable file is a configuration error naming its key and path", () => {
  writePair("read", { certPem: certs.serverCertPem, keyPem: certs.serverKeyPem });
  const base: TlsServerConfig = {
    certFile: join(dir, "read.crt"),
    keyFile: join(dir, "read.key"),
    clientCaFile: undefined,
    clientAuthType: "NoClientCert",
    minVersion: "TLSv1.2",
    maxVersion: undefined,
  };
  const missing = join(dir, "missing.pem");
  for (const [key, config] of [
    ["cert_file", { ...base, certFile: missing }],
    ["key_file", { ...base, keyFile: missing }],
    ["client_ca_file", { ...base, clientCaFile: missing }],
  ] as const) {
    assert.throws(
      () => readMaterial(config),
      (error: unknown) =>
        error instanceof ConfigError &&
        error.message.includes(`tls_server_config.${key}: cannot read ${missing}: ENOENT`),
      key,
    );
  }
});

test("readMaterial: the fingerprint changes with any file or version setting, the options carry them", () => {
  writeFileSync(join(dir, "ca.crt"), certs.caPem);
  writePair("fp", { certPem: certs.serverCertPem, keyPem: certs.serverKeyPem });
  const base: TlsServerConfig = {
    certFile: join(dir, "fp.crt"),
    keyFile: join(dir, "fp.key"),
    clientCaFile: undefined,
    clientAuthType: "NoClientCert",
    minVersion: "TLSv1.2",
    maxVersion: undefined,
  };
  const plain = readMaterial(base);
  assert.deepEqual(Object.keys(plain.options).sort(), ["cert", "key", "minVersion"]);
  assert.equal(plain.options.minVersion, "TLSv1.2");
  assert.equal(String(plain.options.cert), certs.serverCertPem);
  assert.equal(String(plain.options.key), certs.serverKeyPem);
  assert.match(plain.validTo, /GMT$/);
  const withCa = readMaterial({ ...base, clientCaFile: join(dir, "ca.crt") });
  assert.equal(String(withCa.options.ca), certs.caPem);
  const capped = readMaterial({ ...base, maxVersion: "TLSv1.2" });
  assert.equal(capped.options.maxVersion, "TLSv1.2");
  const raised = readMaterial({ ...base, minVersion: "TLSv1.3" });
  const prints = [plain, withCa, capped, raised].map((m) => m.fingerprint);
  assert.equal(new Set(prints).size, 4, "each setting is its own fingerprint");
  assert.equal(readMaterial(base).fingerprint, plain.fingerprint, "the same files, the same fingerprint");
});

test("metricsServerFactory: HTTPS from the web config, with Kubernetes auth in front of every path but the probes", async () => {
  writePair("factory", { certPem: certs.serverCertPem, keyPem: certs.serverKeyPem });
  const file = webConfig("factory", { cert_file: "factory.crt", key_file: "factory.key" });
  const refusingCluster = {
    request: async <T>() => ({ status: 201, body: { status: { authenticated: false } } as T }),
  };
  const logger = createLogger({ write: () => {} });
  for (const metricsAuth of ["kubernetes", "none"] as const) {
    const factory = metricsServerFactory({ webConfigFile: file, metricsAuth }, refusingCluster, logger);
    assert.equal(factory?.scheme, "https");
    const server = factory?.create((_req, res) => res.end("ok\n"));
    assert.ok(server);
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const port = (server.address() as AddressInfo).port;
    const status = (path: string) =>
      new Promise<number>((resolve, reject) => {
        const req = request({ host: "127.0.0.1", port, path, ca: certs.caPem, agent: false }, (res) => {
          res.resume();
          res.on("end", () => resolve(res.statusCode ?? 0));
        });
        req.on("error", reject);
        req.end();
      });
    try {
      assert.equal(await status("/healthz"), 200, metricsAuth);
      assert.equal(await status("/metrics"), metricsAuth === "kubernetes" ? 401 : 200, metricsAuth);
    } finally {
      factory?.closed?.();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  }
});
