// The HTTPS listener (src/server/tls.ts, src/server/secure-serving.ts) beyond
// who gets an answer: whether a client certificate is asked for at all, what
// refused and failed handshakes log, and the file poller on a fake clock (what
// it notices, that it stops, that it does not hold the process open).
import assert from "node:assert/strict";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { request } from "node:https";
import { type AddressInfo, connect } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, test } from "node:test";
import type { TLSSocket } from "node:tls";
import { stringify } from "yaml";
import { createLogger } from "../../src/log.ts";
import { metricsServerFactory } from "../../src/server/secure-serving.ts";
import { createTlsServer } from "../../src/server/tls.ts";
import {
  makeTestCertificates,
  reissueServerCertificate,
  type TestCertificates,
} from "../helpers/tls-certs.ts";

let dir = "";
let certs: TestCertificates;
let renewed: { certPem: string; keyPem: string };

before(() => {
  dir = mkdtempSync(join(tmpdir(), "cr-tls-listener-"));
  certs = makeTestCertificates("scraper");
  renewed = reissueServerCertificate(certs);
  writeFileSync(join(dir, "ca.crt"), certs.caPem);
});
after(() => rmSync(dir, { recursive: true, force: true }));

function writePair(name: string, pair: { certPem: string; keyPem: string }): void {
  writeFileSync(join(dir, `${name}.crt`), pair.certPem);
  writeFileSync(join(dir, `${name}.key`), pair.keyPem);
}

function webConfig(name: string, extra: Record<string, unknown> = {}): string {
  writePair(name, { certPem: certs.serverCertPem, keyPem: certs.serverKeyPem });
  const file = join(dir, `${name}.yml`);
  writeFileSync(
    file,
    stringify({ tls_server_config: { cert_file: `${name}.crt`, key_file: `${name}.key`, ...extra } }),
  );
  return file;
}

function logSink() {
  const lines: Record<string, unknown>[] = [];
  return { lines, logger: createLogger({ level: "debug", write: (l) => lines.push(JSON.parse(l)) }) };
}

/** Serves the web config; the handler answers how many fields the client's certificate has (0: none). */
async function serve(file: string) {
  const { lines, logger } = logSink();
  const listener = createTlsServer(
    file,
    (req, res) => res.end(String(Object.keys((req.socket as TLSSocket).getPeerCertificate() ?? {}).length)),
    logger,
    60_000,
  );
  await new Promise<void>((resolve) => listener.server.listen(0, "127.0.0.1", resolve));
  const port = (listener.server.address() as AddressInfo).port;
  const get = (client?: { cert: string; key: string }) =>
    new Promise<{ body?: string; error?: string }>((resolve) => {
      const req = request(
        { host: "127.0.0.1", port, path: "/", ca: certs.caPem, agent: false, ...client },
        (res) => {
          let body = "";
          res.on("data", (d) => {
            body += d;
          });
          res.on("end", () => resolve({ body }));
        },
      );
      req.on("error", (error) => resolve({ error: error.message }));
      req.end();
    });
  const close = async () => {
    listener.stopReloading();
    await new Promise<void>((resolve) => listener.server.close(() => resolve()));
  };
  return { port, get, lines, close };
}

const trusted = () => ({ cert: certs.clientCertPem, key: certs.clientKeyPem });

test("NoClientCert does not ask for a client certificate; RequestClientCert asks and takes what comes", async () => {
  const none = await serve(webConfig("none"));
  try {
    assert.deepEqual(await none.get(trusted()), { body: "0" }, "a certificate offered is not sent unasked");
  } finally {
    await none.close();
  }
  const requested = await serve(
    webConfig("requested", { client_auth_type: "RequestClientCert", client_ca_file: "ca.crt" }),
  );
  try {
    assert.notEqual((await requested.get(trusted())).body, "0");
    assert.deepEqual(await requested.get(), { body: "0" });
  } finally {
    await requested.close();
  }
});

test("a client refused after its handshake is logged at debug with the reason", async () => {
  const server = await serve(
    webConfig("require-any", { client_auth_type: "RequireAnyClientCert", client_ca_file: "ca.crt" }),
  );
  try {
    assert.ok((await server.get()).error, "refused without a certificate");
    const refused = server.lines.find((l) => l.msg === "refused TLS client");
    assert.deepEqual(
      [refused?.level, refused?.component, refused?.remote, refused?.reason],
      ["debug", "tls", "127.0.0.1", "no client certificate"],
    );
  } finally {
    await server.close();
  }
});

test("a client speaking plain HTTP fails its handshake, logged at debug, and is not answered", async () => {
  const server = await serve(webConfig("plain-client"));
  try {
    const answer = await new Promise<string>((resolve) => {
      let text = "";
      const socket = connect(server.port, "127.0.0.1", () =>
        socket.write("GET / HTTP/1.1\r\nHost: x\r\n\r\n"),
      );
      socket.on("data", (d) => {
        text += d.toString("latin1");
      });
      socket.on("error", () => undefined);
      socket.on("close", () => resolve(text));
    });
    assert.doesNotMatch(answer, /HTTP\/1\.1/);
    const failed = server.lines.find((l) => l.msg === "TLS handshake failed");
    assert.equal(failed?.level, "debug");
    assert.equal(failed?.component, "tls");
    assert.equal(failed?.remote, "127.0.0.1");
    assert.match(String(failed?.error), /.{5,}/);
  } finally {
    await server.close();
  }
});

const reloads = (lines: Record<string, unknown>[]) =>
  lines.filter((l) => l.msg === "TLS certificate reloaded").length;

test("the poller reloads when a file's bytes change between ticks, and stops with stopReloading()", (t) => {
  t.mock.timers.enable({ apis: ["setInterval"] });
  const file = webConfig("poll");
  const { lines, logger } = logSink();
  const listener = createTlsServer(file, () => {}, logger, 1_000);
  try {
    t.mock.timers.tick(1_000);
    assert.equal(reloads(lines), 0, "the first tick finds the files as they were read");
    writePair("poll", renewed);
    t.mock.timers.tick(999);
    assert.equal(reloads(lines), 0, "not before the interval");
    t.mock.timers.tick(1);
    assert.equal(reloads(lines), 1);
    assert.equal(
      lines.filter((l) => l.msg === "client_auth_type changes take effect after a restart").length,
      0,
      "an unchanged client_auth_type is not reported",
    );
    t.mock.timers.tick(5_000);
    assert.equal(reloads(lines), 1, "nothing changed since");
    listener.stopReloading();
    writePair("poll", { certPem: certs.serverCertPem, keyPem: certs.serverKeyPem });
    t.mock.timers.tick(5_000);
    assert.equal(reloads(lines), 1, "stopped");
  } finally {
    listener.stopReloading();
  }
});

test("the poller's timer does not keep the process alive", () => {
  const timers = () => process.getActiveResourcesInfo().filter((r) => r === "Timeout").length;
  const before = timers();
  const listener = createTlsServer(webConfig("unref"), () => {}, createLogger({ write: () => {} }), 1_000);
  try {
    assert.equal(timers(), before);
  } finally {
    listener.stopReloading();
  }
});

test("metricsServerFactory: closed() stops the poller of the server it created", (t) => {
  t.mock.timers.enable({ apis: ["setInterval"] });
  const file = webConfig("factory-poll");
  const { lines, logger } = logSink();
  const factory = metricsServerFactory(
    { webConfigFile: file, metricsAuth: "none" },
    { request: async () => Promise.reject(new Error("unused")) },
    logger,
    1_000,
  );
  assert.ok(factory);
  factory.create(() => {});
  t.mock.timers.tick(1_000);
  factory.closed?.();
  writePair("factory-poll", renewed);
  t.mock.timers.tick(5_000);
  assert.equal(reloads(lines), 0);
});

test("metricsServerFactory: Kubernetes auth without TLS is refused with the reason", () => {
  assert.throws(
    () =>
      metricsServerFactory(
        { webConfigFile: undefined, metricsAuth: "kubernetes" },
        { request: async () => Promise.reject(new Error("unused")) },
        createLogger({ write: () => {} }),
      ),
    (error: unknown) =>
      error instanceof Error &&
      error.message.includes(
        "metricsAuth: kubernetes needs HTTPS: set webConfigFile to a web configuration file with tls_server_config (bearer tokens must not cross the network in clear text)",
      ),
  );
});
