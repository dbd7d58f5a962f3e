// Throw-away certificates for tests, made with the system's openssl: a CA, a
// serving certificate for 127.0.0.1/localhost, and a client certificate.
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

export interface TestCertificates {
  caPem: string;
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
      serverCertPem: read("server.crt"),
      serverKeyPem: read("server.key"),
      clientCertPem: read("client.crt"),
      clientKeyPem: read("client.key"),
    };
  } finally {
    rmSync(directory, { recursive: true, force: true });
  }
}
