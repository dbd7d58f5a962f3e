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

const newKey = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes"];
const serverExtensions = "subjectAltName=IP:127.0.0.1,DNS:localhost\nextendedKeyUsage=serverAuth\n";

function openssl(directory: string, args: string[]): void {
  execFileSync("openssl", args, { cwd: directory, stdio: ["ignore", "ignore", "pipe"] });
}

/** Writes <name>.key and <name>.crt, signed by ca.crt/ca.key in `directory`. */
function issue(directory: string, name: string, subject: string, extensions: string): void {
  writeFileSync(join(directory, `${name}.ext`), extensions);
  openssl(directory, ["req", ...newKey, "-keyout", `${name}.key`, "-out", `${name}.csr`, "-subj", subject]);
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
}

function inScratch<T>(use: (directory: string, read: (file: string) => string) => T): T {
  const directory = mkdtempSync(join(tmpdir(), "cr-test-tls-"));
  try {
    return use(directory, (file) => readFileSync(join(directory, file), "utf8"));
  } finally {
    rmSync(directory, { recursive: true, force: true });
  }
}

export function makeTestCertificates(clientName = "kube-apiserver"): TestCertificates {
  return inScratch((directory, read) => {
    openssl(directory, [
      "req",
      "-x509",
      ...newKey,
      "-keyout",
      "ca.key",
      "-out",
      "ca.crt",
      "-days",
      "1",
      "-subj",
      "/CN=test-ca",
    ]);
    issue(directory, "server", "/CN=127.0.0.1", serverExtensions);
    issue(directory, "client", `/CN=${clientName}`, "extendedKeyUsage=clientAuth\n");
    return {
      caPem: read("ca.crt"),
      caKeyPem: read("ca.key"),
      serverCertPem: read("server.crt"),
      serverKeyPem: read("server.key"),
      clientCertPem: read("client.crt"),
      clientKeyPem: read("client.key"),
    };
  });
}

/** A new serving certificate and key for 127.0.0.1/localhost from the same CA (a rotation). */
export function reissueServerCertificate(certs: TestCertificates): { certPem: string; keyPem: string } {
  return inScratch((directory, read) => {
    writeFileSync(join(directory, "ca.crt"), certs.caPem);
    writeFileSync(join(directory, "ca.key"), certs.caKeyPem);
    issue(directory, "server", "/CN=127.0.0.1", serverExtensions);
    return { certPem: read("server.crt"), keyPem: read("server.key") };
  });
}
