// The proxy's own TLS: the DER encoding, the certificates it makes (checked
// by Node's and OpenSSL's X.509 parsers and by real TLS handshakes), the file
// they are kept in across restarts, and the kubeconfig that trusts them.
// kubectl (Go's crypto/x509) verifies them in the end-to-end test.
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { createPrivateKey, X509Certificate } from "node:crypto";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { createServer, request } from "node:https";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, test } from "node:test";
import { parse } from "yaml";
import { createLogger } from "../../../src/log.ts";
import { createServingCertificate, ipAddressBytes, loopbackNames } from "../../../src/server/certificates.ts";
import { bitString, integer, objectIdentifier, time, tlv } from "../../../src/server/der.ts";
import {
  operatorKubeconfigYaml,
  writeOperatorKubeconfig,
} from "../../../src/statuswrites/proxy/operator-kubeconfig.ts";
import {
  createProxyTls,
  kubeconfigServerUrl,
  loadOrCreateProxyTls,
  servingMaterial,
  servingNames,
  unusableBecause,
} from "../../../src/statuswrites/proxy/proxy-tls.ts";

const directory = mkdtempSync(join(tmpdir(), "cr-proxy-tls-"));
after(() => rmSync(directory, { recursive: true, force: true }));

const hex = (buffer: Buffer): string => buffer.toString("hex");

test("DER: integers are minimal and positive, lengths switch to the long form at 128", () => {
  assert.equal(hex(integer(0)), "020100");
  assert.equal(hex(integer(127)), "02017f");
  assert.equal(hex(integer(128)), "02020080", "a set top bit gets a 0x00 in front");
  assert.equal(hex(integer(256)), "02020100");
  assert.equal(hex(integer(Buffer.from([0, 0, 0x01, 0x02]))), "02020102", "leading zeros are dropped");
  assert.equal(hex(integer(Buffer.from([0xff]))), "020200ff");
  assert.equal(hex(tlv(0x04, Buffer.alloc(127))).slice(0, 4), "047f");
  assert.equal(hex(tlv(0x04, Buffer.alloc(128))).slice(0, 6), "048180");
  assert.equal(hex(tlv(0x04, Buffer.alloc(300))).slice(0, 8), "0482012c");
  assert.equal(hex(bitString(Buffer.from([0x80]), 7)), "03020780");
});

test("DER: object identifiers, and UTCTime until 2049 then GeneralizedTime", () => {
  // ecdsa-with-SHA256 and id-ce-subjectAltName as every certificate spells them.
  assert.equal(hex(objectIdentifier("1.2.840.10045.4.3.2")), "06082a8648ce3d040302");
  assert.equal(hex(objectIdentifier("2.5.29.17")), "0603551d11");
  assert.throws(() => objectIdentifier("1.40"), /not a valid OID/);
  assert.equal(time(new Date("2049-12-31T23:59:59.900Z")).toString("latin1").slice(2), "491231235959Z");
  assert.equal(time(new Date("2050-01-01T00:00:00Z")).toString("latin1").slice(2), "20500101000000Z");
  assert.equal(time(new Date("2050-01-01T00:00:00Z"))[0], 0x18);
  assert.equal(time(new Date("2026-06-01T12:00:00Z"))[0], 0x17);
});

test("IP addresses in SANs: 4 bytes for IPv4, 16 for IPv6 with :: expanded", () => {
  assert.equal(hex(ipAddressBytes("127.0.0.1")), "7f000001");
  assert.equal(hex(ipAddressBytes("::1")), `${"0".repeat(30)}01`);
  assert.equal(hex(ipAddressBytes("[fd00::a:1]")), "fd0000000000000000000000000a0001");
  assert.equal(hex(ipAddressBytes("::ffff:127.0.0.1")), "00000000000000000000ffff7f000001");
  assert.throws(() => ipAddressBytes("localhost"), /not an IP address/);
});

test("the CA and serving certificate: a CA that signed a loopback server certificate", () => {
  const now = new Date("2026-03-01T00:00:00Z");
  const made = createServingCertificate({ ...loopbackNames, validityDays: 10, now });
  const ca = new X509Certificate(made.caPem);
  const cert = new X509Certificate(made.certPem);
  assert.equal(ca.ca, true);
  assert.equal(cert.ca, false);
  assert.ok(cert.checkIssued(ca) && cert.verify(ca.publicKey), "signed by the CA");
  assert.equal(cert.verify(cert.publicKey), false);
  assert.equal(cert.subjectAltName, "DNS:localhost, IP Address:127.0.0.1, IP Address:0:0:0:0:0:0:0:1");
  assert.deepEqual(cert.keyUsage, ["1.3.6.1.5.5.7.3.1"], "serverAuth");
  assert.equal(cert.validFromDate.toISOString(), "2026-02-28T23:00:00.000Z", "an hour of clock slack");
  assert.equal(cert.validToDate.toISOString(), "2026-03-11T00:00:00.000Z");
  assert.match(cert.serialNumber, /^[0-7][0-9A-F]{31}$/, "16 bytes, positive");
  // OpenSSL's strict RFC 5280 checks (the same library Node's TLS uses).
  const caPath = join(directory, "ca.pem");
  const certPath = join(directory, "cert.pem");
  writeFileSync(caPath, made.caPem);
  writeFileSync(certPath, made.certPem);
  const verified = execFileSync(
    "openssl",
    ["verify", "-x509_strict", "-attime", String(now.getTime() / 1000), "-CAfile", caPath, certPath],
    { encoding: "utf8" },
  );
  assert.match(verified, /: OK/);
});

test("a TLS handshake trusting only the CA succeeds for 127.0.0.1, ::1 and localhost; another CA fails", async () => {
  const made = createServingCertificate({ ...loopbackNames, validityDays: 1 });
  const other = createServingCertificate({ ...loopbackNames, validityDays: 1 });
  const server = createServer({ cert: made.certPem, key: made.keyPem }, (_req, res) => res.end("ok"));
  await new Promise<void>((resolve) => server.listen(0, "::", resolve));
  const port = (server.address() as AddressInfo).port;
  const get = (host: string, ca: string): Promise<string> =>
    new Promise((resolve, reject) => {
      const req = request({ host, port, ca, agent: false }, (res) => {
        res.resume();
        res.on("end", () => resolve(String(res.statusCode)));
      });
      req.on("error", (error: NodeJS.ErrnoException) => resolve(error.code ?? error.message));
      req.on("timeout", () => reject(new Error("timeout")));
      req.end();
    });
  try {
    assert.equal(await get("127.0.0.1", made.caPem), "200");
    assert.equal(await get("::1", made.caPem), "200");
    assert.equal(await get("localhost", made.caPem), "200");
    assert.equal(await get("127.0.0.1", other.caPem), "UNABLE_TO_VERIFY_LEAF_SIGNATURE");
    assert.equal(await get("127.0.0.2", made.caPem), "ERR_TLS_CERT_ALTNAME_INVALID");
  } finally {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
});

test("the TLS file is created 0600 once, reused while usable, and replaced when not", () => {
  const path = join(directory, "kubeconfig.tls.pem");
  const names = servingNames("127.0.0.1");
  const first = loadOrCreateProxyTls(path, names);
  assert.equal(first.reused, false);
  assert.equal(first.reason, "absent");
  assert.equal(statSync(path).mode & 0o777, 0o600);
  const stored = readFileSync(path, "utf8");
  assert.equal(
    stored.match(/BEGIN PRIVATE KEY/g)?.length,
    1,
    "the serving key only: the CA's key is never kept",
  );
  assert.ok(new X509Certificate(first.tls.certPem).checkPrivateKey(createPrivateKey(first.tls.keyPem)));

  const second = loadOrCreateProxyTls(path, names);
  assert.equal(second.reused, true, "a restarted proxy keeps the CA the operator already trusts");
  assert.deepEqual(second.tls, first.tls);

  const wider = servingNames("10.1.2.3");
  assert.equal(unusableBecause(readFileSync(path, "utf8"), wider), "not valid for 10.1.2.3");
  const later = new Date(Date.now() + 3640 * 24 * 60 * 60 * 1000);
  assert.match(unusableBecause(readFileSync(path, "utf8"), { ...names, now: later }) ?? "", /^expires /);
  const replaced = loadOrCreateProxyTls(path, wider);
  assert.equal(replaced.reused, false);
  assert.notEqual(replaced.tls.caPem, first.tls.caPem);
  assert.equal(new X509Certificate(replaced.tls.certPem).checkIP("10.1.2.3"), "10.1.2.3");

  writeFileSync(path, "not pem");
  assert.match(loadOrCreateProxyTls(path, names).reason ?? "", /^unreadable: expected three PEM blocks/);
  const mismatched = `${first.tls.certPem}${first.tls.caPem}${replaced.tls.keyPem}`;
  assert.equal(unusableBecause(mismatched, names), "the key does not match the certificate");
  const foreign = `${first.tls.certPem}${replaced.tls.caPem}${first.tls.keyPem}`;
  assert.equal(unusableBecause(foreign, names), "the certificate is not signed by the CA");
});

test("serving names and the kubeconfig URL: loopback always, a specific address added, 0.0.0.0 via loopback", () => {
  assert.deepEqual(servingNames("127.0.0.1"), { ipAddresses: ["127.0.0.1", "::1"], dnsNames: ["localhost"] });
  assert.deepEqual(servingNames("[::1]"), servingNames("localhost"));
  assert.deepEqual(servingNames("0.0.0.0"), servingNames("127.0.0.1"));
  assert.deepEqual(servingNames("10.0.0.7").ipAddresses, ["127.0.0.1", "::1", "10.0.0.7"]);
  assert.deepEqual(servingNames("proxy.local").dnsNames, ["localhost", "proxy.local"]);
  assert.equal(kubeconfigServerUrl("https", "127.0.0.1", 8001), "https://127.0.0.1:8001");
  assert.equal(kubeconfigServerUrl("https", "[::1]", 8001), "https://[::1]:8001");
  assert.equal(kubeconfigServerUrl("https", "0.0.0.0", 8001), "https://127.0.0.1:8001");
  assert.equal(kubeconfigServerUrl("https", "[::]", 8001), "https://[::1]:8001");
  assert.equal(kubeconfigServerUrl("http", "10.0.0.7", 8001), "http://10.0.0.7:8001");
});

test("the operator kubeconfig: https server, the proxy's CA inline, the service-account token file", () => {
  const made = createServingCertificate({ ...loopbackNames, validityDays: 1 });
  const config = parse(operatorKubeconfigYaml({ server: "https://127.0.0.1:8001", caPem: made.caPem }));
  const cluster = config.clusters[0].cluster;
  assert.equal(cluster.server, "https://127.0.0.1:8001");
  assert.equal(Buffer.from(cluster["certificate-authority-data"], "base64").toString(), made.caPem);
  assert.equal(cluster["insecure-skip-tls-verify"], undefined);
  assert.deepEqual(config.users[0].user, {
    tokenFile: "/var/run/secrets/kubernetes.io/serviceaccount/token",
  });
  assert.equal(config["current-context"], config.contexts[0].name);
  assert.equal(config.contexts[0].context.user, config.users[0].name);
  assert.equal(config.contexts[0].context.cluster, config.clusters[0].name);

  const plain = parse(operatorKubeconfigYaml({ server: "http://127.0.0.1:8001", user: { tokenFile: "/t" } }));
  assert.deepEqual(plain.clusters[0].cluster, { server: "http://127.0.0.1:8001" });
  assert.deepEqual(plain.users[0].user, { tokenFile: "/t" });
});

test("stored material not yet valid, or due for renewal within 30 days, is not reused", () => {
  const names = servingNames("127.0.0.1");
  const made = createProxyTls(names);
  const text = `${made.certPem}${made.caPem}${made.keyPem}`;
  const cert = new X509Certificate(made.certPem);
  assert.equal(unusableBecause(text, names), undefined, "fresh material is usable");
  assert.equal(
    unusableBecause(text, { ...names, now: new Date(cert.validFromDate.getTime() - 1000) }),
    `not valid before ${cert.validFromDate.toISOString()}`,
  );
  assert.equal(
    unusableBecause(text, { ...names, now: cert.validFromDate }),
    undefined,
    "valid from its first second",
  );
  const renewAt = new Date(cert.validToDate.getTime() - 30 * 24 * 60 * 60 * 1000);
  assert.equal(unusableBecause(text, { ...names, now: new Date(renewAt.getTime() - 1000) }), undefined);
  assert.equal(
    unusableBecause(text, { ...names, now: renewAt }),
    `expires ${cert.validToDate.toISOString()}`,
  );
  const days = (cert.validToDate.getTime() - cert.validFromDate.getTime()) / (24 * 60 * 60 * 1000);
  assert.ok(days >= 3649 && days <= 3651, `valid for ten years (${days} days)`);
});

test("stored material must name every address and name asked for; brackets around an IPv6 address are taken off", () => {
  const names = servingNames("127.0.0.1");
  const made = createProxyTls(names);
  const text = `${made.certPem}${made.caPem}${made.keyPem}`;
  assert.equal(unusableBecause(text, { ipAddresses: ["[::1]"], dnsNames: [] }), undefined);
  assert.equal(
    unusableBecause(text, { ipAddresses: [], dnsNames: ["proxy.local"] }),
    "not valid for proxy.local",
  );
  assert.equal(unusableBecause(text, { ipAddresses: ["::2"], dnsNames: [] }), "not valid for ::2");
});

test("stored material must be exactly serving certificate, CA certificate and private key", () => {
  const made = createProxyTls(servingNames("127.0.0.1"));
  const names = servingNames("127.0.0.1");
  for (const text of [
    `${made.certPem}${made.caPem}${made.certPem}`,
    `${made.certPem}${made.caPem}`,
    `${made.certPem}${made.caPem}${made.keyPem}${made.keyPem}`,
  ]) {
    assert.equal(
      unusableBecause(text, names),
      "unreadable: expected three PEM blocks: serving certificate, CA certificate, private key",
    );
  }
});

test("unspecified listen hosts add no name; an IPv6 all-interfaces listener is reached at [::1]", () => {
  for (const host of ["::", "[::]", ""])
    assert.deepEqual(servingNames(host), servingNames("127.0.0.1"), host);
  assert.equal(kubeconfigServerUrl("https", "::", 8001), "https://[::1]:8001");
  assert.equal(kubeconfigServerUrl("https", "", 8001), "https://127.0.0.1:8001");
  assert.equal(kubeconfigServerUrl("http", "proxy.local", 80), "http://proxy.local:80");
});

test("servingMaterial: in memory without a kubeconfig path, else kept beside it and reused, said in the log", () => {
  const lines: Record<string, unknown>[] = [];
  const log = createLogger({ write: (line) => lines.push(JSON.parse(line)) });
  const names = servingNames("127.0.0.1");
  const memory = servingMaterial(undefined, names, log);
  assert.match(memory.caPem, /^-----BEGIN CERTIFICATE-----/);
  assert.equal(lines.length, 0, "nothing to say about material kept in memory");
  const kubeconfig = join(directory, "material", "kubeconfig");
  mkdirSync(join(directory, "material"), { recursive: true });
  const made = servingMaterial(kubeconfig, names, log);
  const reused = servingMaterial(kubeconfig, names, log);
  assert.deepEqual(reused, made);
  assert.deepEqual(
    lines.map((l) => [l.msg, l.path, l.why]),
    [
      ["api proxy made a new serving certificate", `${kubeconfig}.tls.pem`, "absent"],
      ["api proxy reuses its serving certificate", `${kubeconfig}.tls.pem`, undefined],
    ],
  );
  const missing = join(directory, "no-such-dir", "kubeconfig");
  assert.throws(
    () => servingMaterial(missing, names, log),
    (error: Error) =>
      error.message.startsWith(
        `apiProxy.kubeconfigPath: cannot write ${JSON.stringify(missing)} (its TLS file ${missing}.tls.pem): Error: ENOENT`,
      ),
  );
});

test("the operator kubeconfig is written whole with the mode asked for (0644 by default)", () => {
  const path = join(directory, "operator-kubeconfig");
  writeOperatorKubeconfig(path, { server: "https://127.0.0.1:8001" });
  assert.equal(statSync(path).mode & 0o777, 0o644);
  assert.equal(parse(readFileSync(path, "utf8")).clusters[0].cluster.server, "https://127.0.0.1:8001");
  const secret = join(directory, "operator-kubeconfig-secret");
  writeOperatorKubeconfig(secret, { server: "https://127.0.0.1:8001", user: { token: "t" } }, 0o600);
  assert.equal(statSync(secret).mode & 0o777, 0o600);
  assert.deepEqual(parse(readFileSync(secret, "utf8")).users[0].user, { token: "t" });
});
