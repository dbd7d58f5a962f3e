// Throw-away certificates for tests, made with the system's openssl: a CA, a
// serving certificate for 127.0.0.1/localhost, and a client certificate.
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

export interface TestCertificates {
  caPem: string;
  /** The CA's key, to issue more certificates (reissueServerCertificate). */
  caKeyPem: string;
  serverCertPem: string;
  serverKeyPem: string;
  clientCertPem: string;
  clientKeyPem: string;
}

function openssl(directory: string, args: string[]): void {
  execFileSync("openssl", args, { cwd: directory, stdio: ["ignore", "ignore", "pipe"] });
}

export function makeTestCertificates(clientName = "kube-apiserver"): TestCertificates {
  const directory = mkdtempSync(join(tmpdir(), "cr-test-tls-"));
  try {
    const key = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes"];
    openssl(directory, [
      "req",
      "-x509",
      ...key,
      "-keyout",
      "ca.key",
      "-out",
      "ca.crt",
      "-days",
      "1",
      "-subj",
      "/CN=test-ca",
    ]);
    const issue = (name: string, subject: string, extensions: string): void => {
      writeFileSync(join(directory, `${name}.ext`), extensions);
      openssl(directory, ["req", ...key, "-keyout", `${name}.key`, "-out", `${name}.csr`, "-subj", subject]);
      openssl(directory, [
        "x509",
        "-req",
        "-in",
        `${name}.csr`,
        "-CA",
        "ca.crt",
        "-CAkey",
        "ca.key",
        "-CAcreateserial",
        "-out",
        `${name}.crt`,
        "-days",
        "1",
        "-extfile",
        `${name}.ext`,
      ]);
    };
    issue(
      "server",
      "/CN=127.0.0.1",
      "subjectAltName=IP:127.0.0.1,DNS:localhost\nextendedKeyUsage=serverAuth\n",
    );
    issue("client", `/CN=${clientName}`, "extendedKeyUsage=clientAuth\n");
    const read = (file: string): string => readFileSync(join(directory, file), "utf8");
    return {
      caPem: read("ca.crt"),
      caKeyPem: read("ca.key"),
      serverCertPem: read("server.crt"),
      serverKeyPem: read("server.key"),
      clientCertPem: read("client.crt"),
      clientKeyPem: read("client.key"),
    };
  } finally {
    rmSync(directory, { recursive: true, force: true });
  }
}

/** A new serving certificate and key for 127.0.0.1/localhost from the same CA (a rotation). */
export function reissueServerCertificate(certs: TestCertificates): { certPem: string; keyPem: string } {
  const directory = mkdtempSync(join(tmpdir(), "cr-test-tls-"));
  try {
    writeFileSync(join(directory, "ca.crt"), certs.caPem);
    writeFileSync(join(directory, "ca.key"), certs.caKeyPem);
    writeFileSync(
      join(directory, "server.ext"),
      "subjectAltName=IP:127.0.0.1,DNS:localhost\nextendedKeyUsage=serverAuth\n",
    );
    openssl(directory, [
      "req",
      "-newkey",
      "ec",
      "-pkeyopt",
      "ec_paramgen_curve:prime256v1",
      "-nodes",
      "-keyout",
      "server.key",
      "-out",
      "server.csr",
      "-subj",
      "/CN=127.0.0.1",
    ]);
    openssl(directory, [
      "x509",
      "-req",
      "-in",
      "server.csr",
      "-CA",
      "ca.crt",
      "-CAkey",
      "ca.key",
      "-CAcreateserial",
      "-out",
      "server.crt",
      "-days",
      "1",
      "-extfile",
      "server.ext",
    ]);
    return {
      certPem: readFileSync(join(directory, "server.crt"), "utf8"),
      keyPem: readFileSync(join(directory, "server.key"), "utf8"),
    };
  } finally {
    rmSync(directory, { recursive: true, force: true });
  }
}
