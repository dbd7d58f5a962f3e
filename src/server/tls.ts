// The HTTPS listener described by a web configuration file: serving
// certificate and key, optional client certificates (the exporter toolkit's
// client_auth_type), minimum TLS version. Certificate, key and client CA are
// re-read when they change on disk (cert-manager renewals, Secret updates),
// and new connections get them without a restart; a half-written pair (new
// certificate, old key) is refused and the previous one keeps serving.
// A client speaking plain HTTP to this port fails its handshake: it is never
// answered in clear text.
import { createHash, X509Certificate } from "node:crypto";
import { readFileSync } from "node:fs";
import type { IncomingMessage, ServerResponse } from "node:http";
import { createServer, type Server } from "node:https";
import { createSecureContext, type SecureContextOptions, type TLSSocket } from "node:tls";
import { ConfigError } from "../config/validate.ts";
import type { Logger } from "../log.ts";
import { loadWebConfig, type TlsServerConfig } from "./web-config.ts";

export interface Material {
  options: SecureContextOptions;
  /** Digest of the files' bytes and the settings: a change means a reload. */
  fingerprint: string;
  /** For logs: the serving certificate. */
  serial: string;
  validTo: string;
}

/** Reads and checks certificate, key and client CA; throws ConfigError naming the file. */
export function readMaterial(tls: TlsServerConfig): Material {
  const read = (path: string, what: string): Buffer => {
    try {
      return readFileSync(path);
    } catch (error) {
      throw new ConfigError([`tls_server_config.${what}: cannot read ${path}: ${(error as Error).message}`]);
    }
  };
  const cert = read(tls.certFile, "cert_file");
  const key = read(tls.keyFile, "key_file");
  const ca = tls.clientCaFile ? read(tls.clientCaFile, "client_ca_file") : undefined;
  const options: SecureContextOptions = {
    cert,
    key,
    ...(ca && { ca }),
    minVersion: tls.minVersion,
    ...(tls.maxVersion && { maxVersion: tls.maxVersion }),
  };
  let certificate: X509Certificate;
  try {
    // Throws when the certificate is not PEM, or the key does not belong to it.
    createSecureContext(options);
    certificate = new X509Certificate(cert);
  } catch (error) {
    throw new ConfigError([
      `tls_server_config: ${tls.certFile} and ${tls.keyFile} are not a usable certificate and key: ${(error as Error).message}`,
    ]);
  }
  const fingerprint = createHash("sha256")
    .update(cert)
    .update(key)
    .update(ca ?? "")
    .update(`${tls.minVersion}/${tls.maxVersion}`)
    .digest("hex");
  return { options, fingerprint, serial: certificate.serialNumber, validTo: certificate.validTo };
}

/** Whether a verified handshake still has to be refused under the client auth type. */
function refuseClient(tls: TlsServerConfig, socket: TLSSocket): string | undefined {
  const presented = Object.keys(socket.getPeerCertificate() ?? {}).length > 0;
  switch (tls.clientAuthType) {
    case "RequireAnyClientCert":
      return presented ? undefined : "no client certificate";
    case "VerifyClientCertIfGiven":
      return presented && !socket.authorized
        ? `client certificate not trusted (${socket.authorizationError})`
        : undefined;
    // Stryker disable next-line ConditionalExpression: the default case is last, so without its return the function ends and returns undefined all the same
    default:
      // NoClientCert and RequestClientCert accept anything; RequireAndVerifyClientCert is enforced by the handshake.
      return undefined;
  }
}

/** What the file poller compares between ticks: each file's digest, "unreadable", or "" for a file not configured. */
function filesSeen(paths: readonly (string | undefined)[]): string {
  return (
    paths
      .map((path) => {
        try {
          return path ? createHash("sha256").update(readFileSync(path)).digest("hex") : "";
        } catch {
          // Stryker disable next-line StringLiteral: an unreadable file's entry only has to differ from every digest of its bytes, and "" does too
          return "unreadable";
        }
      })
      // Entries fixed in number and place (a digest, "unreadable" or ""): the separator is for reading them.
      .join(",")
  );
}

export interface TlsListener {
  server: Server;
  /** Re-reads the files now (tests; the poller calls it every reloadIntervalMs). */
  reload(): void;
  stopReloading(): void;
}

export function createTlsServer(
  webConfigFile: string,
  handler: (req: IncomingMessage, res: ServerResponse) => void,
  logger: Logger,
  reloadIntervalMs = 2000,
): TlsListener {
  const log = logger.child({ component: "tls" });
  const first = loadWebConfig(webConfigFile).tls;
  if (!first) {
    throw new ConfigError([`${webConfigFile}: no tls_server_config: nothing to serve HTTPS with`]);
  }
  const tls = first;
  let current = readMaterial(tls);
  const requestCert = tls.clientAuthType !== "NoClientCert";
  const server = createServer(
    {
      ...current.options,
      requestCert,
      rejectUnauthorized: tls.clientAuthType === "RequireAndVerifyClientCert",
    },
    handler,
  );
  server.on("secureConnection", (socket: TLSSocket) => {
    const refused = refuseClient(tls, socket);
    if (refused) {
      log.debug("refused TLS client", { remote: socket.remoteAddress, reason: refused });
      socket.destroy();
    }
  });
  server.on("tlsClientError", (error, socket) =>
    log.debug("TLS handshake failed", { remote: socket.remoteAddress, error: error.message }),
  );
  log.info("serving HTTPS", {
    clientAuthType: tls.clientAuthType,
    minVersion: tls.minVersion,
    serial: current.serial,
    validTo: current.validTo,
  });

  const reload = (): void => {
    let next: Material;
    try {
      const reloaded = loadWebConfig(webConfigFile).tls;
      if (!reloaded) throw new ConfigError([`${webConfigFile}: tls_server_config was removed`]);
      if (reloaded.clientAuthType !== tls.clientAuthType) {
        log.warn("client_auth_type changes take effect after a restart", {
          clientAuthType: reloaded.clientAuthType,
        });
      }
      next = readMaterial(reloaded);
    } catch (error) {
      // Mid-rotation (certificate written, key not yet) or a bad edit: keep serving the previous pair.
      log.warn("TLS files not reloaded; the previous certificate keeps serving", {
        error: (error as Error).message,
      });
      return;
    }
    if (next.fingerprint === current.fingerprint) return;
    server.setSecureContext(next.options);
    current = next;
    log.info("TLS certificate reloaded", { serial: next.serial, validTo: next.validTo });
  };
  // Polling (not inotify) also follows the symlink swaps of mounted Secrets; a
  // failed read is retried on the next tick, so it is only logged when the files change.
  // Stryker disable next-line StringLiteral: any text that is not a join of four digests makes the first tick reload, as "" does
  let lastSeen = "";
  const timer = setInterval(() => {
    const seen = filesSeen([webConfigFile, tls.certFile, tls.keyFile, tls.clientCaFile]);
    if (seen === lastSeen) return;
    lastSeen = seen;
    reload();
  }, reloadIntervalMs);
  timer.unref();
  return { server, reload, stopReloading: () => clearInterval(timer) };
}
