// The proxy's serving certificate, kept in one PEM file next to the operator's
// kubeconfig and reused when the exporter restarts. A restarted sidecar keeps
// the pod's volume, and the operator keeps the CA it read at its own start:
// a new CA would make every request of a running operator fail verification.
// The file holds the serving key (mode 0600), never the CA's key.
import { createPrivateKey, X509Certificate } from "node:crypto";
import { readFileSync, renameSync, writeFileSync } from "node:fs";
import { isIP } from "node:net";
import type { Logger } from "../../log.ts";
import {
  createServingCertificate,
  loopbackNames,
  type ServingCertificate,
} from "../../server/certificates.ts";
import { isLoopbackHost } from "../listen-address.ts";

export interface ProxyTlsOptions {
  ipAddresses: readonly string[];
  dnsNames: readonly string[];
  now?: Date;
}

/** The names the certificate must carry: loopback, plus a specific non-loopback listen address. */
export function servingNames(listenHost: string): ProxyTlsOptions {
  const bare = listenHost.replace(/^\[|\]$/g, "");
  const ipAddresses: string[] = [...loopbackNames.ipAddresses];
  const dnsNames: string[] = [...loopbackNames.dnsNames];
  if (!isLoopbackHost(bare) && !isUnspecified(bare)) {
    if (isIP(bare)) ipAddresses.push(bare);
    else dnsNames.push(bare);
  }
  return { ipAddresses, dnsNames };
}

/**
 * The URL clients use: the bound address, except that an all-interfaces
 * listener is reached over loopback (the certificate names no "0.0.0.0").
 */
export function kubeconfigServerUrl(scheme: "http" | "https", boundHost: string, port: number): string {
  const bare = boundHost.replace(/^\[|\]$/g, "");
  let host = boundHost;
  if (isUnspecified(bare)) host = isIP(bare) === 6 ? "[::1]" : "127.0.0.1";
  return `${scheme}://${host}:${port}`;
}

function isUnspecified(host: string): boolean {
  return host === "" || host === "0.0.0.0" || host === "::";
}

/**
 * The serving material: kept next to the operator's kubeconfig when there is
 * one (reused across restarts), in memory otherwise.
 */
export function servingMaterial(
  kubeconfigPath: string | undefined,
  names: ProxyTlsOptions,
  log: Logger,
): ServingCertificate {
  if (!kubeconfigPath) return createProxyTls(names);
  const path = `${kubeconfigPath}.tls.pem`;
  try {
    const { tls, reused, reason } = loadOrCreateProxyTls(path, names);
    if (reused) log.info("api proxy reuses its serving certificate", { path });
    else log.info("api proxy made a new serving certificate", { path, why: reason });
    return tls;
  } catch (error) {
    throw new Error(
      `apiProxy.kubeconfigPath: cannot write ${JSON.stringify(kubeconfigPath)} (its TLS file ${path}): ${String(error)}`,
    );
  }
}

// The material lives as long as the pod's volume; long enough for any pod.
const validityDays = 3650;
// Renewed at start-up when it would expire within this many days.
const renewBeforeDays = 30;

/** Fresh TLS material, kept in memory only. */
export function createProxyTls(options: ProxyTlsOptions): ServingCertificate {
  return createServingCertificate({ ...options, validityDays });
}

/**
 * The TLS material in `path` when it is usable for these names; otherwise new
 * material, written to `path`. `reason` says why it was (re)created.
 */
export function loadOrCreateProxyTls(
  path: string,
  options: ProxyTlsOptions,
): { tls: ServingCertificate; reused: boolean; reason?: string } {
  let text: string | undefined;
  try {
    text = readFileSync(path, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "ENOENT") throw error;
  }
  const problem = text === undefined ? "absent" : unusableBecause(text, options);
  if (text !== undefined && problem === undefined) return { tls: splitPem(text), reused: true };
  const tls = createProxyTls(options);
  const temporary = `${path}.tmp-${process.pid}`;
  writeFileSync(temporary, `${tls.certPem}${tls.caPem}${tls.keyPem}`, { mode: 0o600 });
  renameSync(temporary, path);
  return { tls, reused: false, reason: problem };
}

/** Why stored material cannot be reused (undefined when it can). */
export function unusableBecause(text: string, options: ProxyTlsOptions): string | undefined {
  try {
    const { caPem, certPem, keyPem } = splitPem(text);
    const ca = new X509Certificate(caPem);
    const cert = new X509Certificate(certPem);
    if (!cert.checkPrivateKey(createPrivateKey(keyPem))) return "the key does not match the certificate";
    if (!cert.checkIssued(ca) || !cert.verify(ca.publicKey)) return "the certificate is not signed by the CA";
    const now = options.now ?? new Date();
    if (cert.validFromDate > now) return `not valid before ${cert.validFromDate.toISOString()}`;
    const renewAt = new Date(cert.validToDate.getTime() - renewBeforeDays * 24 * 60 * 60 * 1000);
    if (renewAt <= now) return `expires ${cert.validToDate.toISOString()}`;
    for (const ip of options.ipAddresses) {
      if (cert.checkIP(ip.replace(/^\[|\]$/g, "")) === undefined) return `not valid for ${ip}`;
    }
    for (const dns of options.dnsNames) {
      if (cert.checkHost(dns) === undefined) return `not valid for ${dns}`;
    }
    return undefined;
  } catch (error) {
    return `unreadable: ${error instanceof Error ? error.message : String(error)}`;
  }
}

/** Serving certificate, CA certificate, private key: in that order. */
function splitPem(text: string): ServingCertificate {
  const blocks = text.match(/-----BEGIN ([A-Z ]+)-----[\s\S]+?-----END \1-----\n?/g) ?? [];
  const [certPem, caPem, keyPem] = blocks;
  if (blocks.length !== 3 || !certPem || !caPem || !keyPem || !keyPem.includes("PRIVATE KEY")) {
    throw new Error("expected three PEM blocks: serving certificate, CA certificate, private key");
  }
  return { certPem, caPem, keyPem };
}
