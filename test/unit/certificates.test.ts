// The API proxy's certificates (src/server/certificates.ts) in the details a
// strict client reads: names, which extensions are critical, the PEM layout,
// and the IP address forms a subject alternative name is made from.
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { X509Certificate } from "node:crypto";
import { test } from "node:test";
import { createServingCertificate, ipAddressBytes, loopbackNames } from "../../src/server/certificates.ts";

/** The extensions as OpenSSL prints them, one "name[: critical]" line each, in order. */
function extensions(pem: string): string[] {
  const text = execFileSync(
    "openssl",
    [
      "x509",
      "-noout",
      "-ext",
      "basicConstraints,keyUsage,extendedKeyUsage,subjectAltName,subjectKeyIdentifier,authorityKeyIdentifier",
    ],
    { input: pem, encoding: "utf8" },
  );
  return text
    .split("\n")
    .filter((line) => line.startsWith("X509v3 "))
    .map((line) => line.trim());
}

test("CA and serving certificate: organization and common names, with one suffix shared by both", () => {
  const made = createServingCertificate({ ...loopbackNames, validityDays: 1 });
  const ca = new X509Certificate(made.caPem);
  const cert = new X509Certificate(made.certPem);
  const caName = /^O=cr-status-exporter\nCN=cr-status-exporter api proxy CA ([0-9a-f]{8})$/.exec(ca.subject);
  assert.ok(caName, ca.subject);
  assert.equal(ca.issuer, ca.subject, "self-signed");
  assert.equal(cert.subject, `O=cr-status-exporter\nCN=cr-status-exporter api proxy ${caName[1]}`);
  assert.equal(cert.issuer, ca.subject);
});

test("basic constraints and key usage are critical, the other extensions are not", () => {
  const made = createServingCertificate({ ...loopbackNames, validityDays: 1 });
  assert.deepEqual(extensions(made.caPem), [
    "X509v3 Basic Constraints: critical",
    "X509v3 Key Usage: critical",
    "X509v3 Subject Key Identifier:",
  ]);
  assert.deepEqual(extensions(made.certPem), [
    "X509v3 Basic Constraints: critical",
    "X509v3 Key Usage: critical",
    "X509v3 Extended Key Usage:",
    "X509v3 Subject Alternative Name:",
    "X509v3 Subject Key Identifier:",
    "X509v3 Authority Key Identifier:",
  ]);
});

test("PEM: base64 in lines of 64 characters (the last may be shorter) between the BEGIN and END lines", () => {
  const made = createServingCertificate({ ...loopbackNames, validityDays: 1 });
  for (const pem of [made.caPem, made.certPem]) {
    assert.match(
      pem,
      /^-----BEGIN CERTIFICATE-----\n([A-Za-z0-9+/]{64}\n)+[A-Za-z0-9+/=]{1,64}\n-----END CERTIFICATE-----\n$/,
    );
  }
});

test("ipAddressBytes: a zone is dropped, dotted IPv4 tails of any digits, full eight-group addresses", () => {
  const hex = (address: string) => ipAddressBytes(address).toString("hex");
  assert.equal(hex("fe80::1%eth0"), "fe800000000000000000000000000001");
  assert.equal(hex("::ffff:10.1.2.3%eth0"), "00000000000000000000ffff0a010203");
  assert.equal(hex("::ffff:192.168.100.200"), "00000000000000000000ffffc0a864c8");
  assert.equal(hex("64:ff9b::10.20.3.4"), "0064ff9b00000000000000000a140304");
  assert.equal(hex("2001:db8:0:0:0:0:0:1"), "20010db8000000000000000000000001");
  assert.equal(hex("[2001:db8:1:2:3:4:5:6]"), "20010db8000100020003000400050006");
  assert.equal(hex("10.200.3.45"), "0ac8032d");
});

test("ipAddressBytes: brackets are taken off around the whole address only", () => {
  assert.equal(ipAddressBytes("[::1]").toString("hex"), `${"0".repeat(30)}01`);
  for (const address of ["fe80::1%a[b", "fe80::1%a]b", "[fe80::1%a]b]"]) {
    assert.throws(() => ipAddressBytes(address), /not an IP address/, address);
  }
});
