// The proxy's listener: HTTPS with its own serving certificate (plain HTTP
// only when asked), the answers it gives itself as Kubernetes Status objects,
// and the client-certificate check.
import {
  createServer,
  type Server as HttpServer,
  type IncomingMessage,
  type ServerOptions,
  type ServerResponse,
} from "node:http";
import { createServer as createHttpsServer, type Server as HttpsServer } from "node:https";
import type { TLSSocket } from "node:tls";
import type { Logger } from "../log.ts";
import type { ServingCertificate } from "./certificates.ts";

// Longer than client-go's 90 s idle timeout, so the client always closes an
// idle connection first and never reuses one the proxy is closing (a write
// lost that way would not be retried by Go's transport).
const keepAliveTimeoutMs = 120_000;

export function createProxyServer(
  tls: ServingCertificate | undefined,
  handle: (req: IncomingMessage, res: ServerResponse) => void,
  log: Logger,
): HttpServer | HttpsServer {
  const serverOptions: ServerOptions = {
    keepAliveTimeout: keepAliveTimeoutMs,
    requestTimeout: 0,
    headersTimeout: 60_000,
  };
  // A client certificate is asked for (never required or verified) only to
  // tell its sender that it cannot pass through.
  const server = tls
    ? createHttpsServer(
        {
          ...serverOptions,
          cert: tls.certPem,
          key: tls.keyPem,
          requestCert: true,
          rejectUnauthorized: false,
        },
        handle,
      )
    : createServer(serverOptions, handle);
  // exec / attach / port-forward need a connection upgrade, which the proxy
  // does not tunnel: answer clearly instead of hanging.
  server.on("upgrade", (_req: IncomingMessage, socket) => {
    const body = JSON.stringify(
      statusBody(501, "NotAcceptable", "connection upgrades (exec, attach, port-forward) are not proxied"),
    );
    socket.end(
      `HTTP/1.1 501 Not Implemented\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
    );
  });
  server.on("clientError", (error, socket) => {
    log.debug("malformed client request", { error });
    if (socket.writable) socket.end("HTTP/1.1 400 Bad Request\r\nConnection: close\r\n\r\n");
  });
  server.on("tlsClientError", (error) => log.debug("TLS handshake failed", { error }));
  return server;
}

export const clientCertificateMessage =
  "the API proxy terminates TLS, so a client certificate cannot be forwarded to the apiserver; " +
  "authenticate with a bearer token instead (tokenFile, token or an exec credential plugin in the kubeconfig)";

export function presentsClientCertificate(req: IncomingMessage): boolean {
  const certificate = (req.socket as TLSSocket).getPeerCertificate?.();
  return certificate !== undefined && Object.keys(certificate).length > 0;
}

function statusBody(code: number, reason: string, message: string): Record<string, unknown> {
  return { kind: "Status", apiVersion: "v1", metadata: {}, status: "Failure", message, reason, code };
}

export function respondStatus(res: ServerResponse, code: number, reason: string, message: string): void {
  const body = JSON.stringify(statusBody(code, reason, message));
  res.writeHead(code, { "Content-Type": "application/json", "Content-Length": Buffer.byteLength(body) });
  res.end(body);
}
