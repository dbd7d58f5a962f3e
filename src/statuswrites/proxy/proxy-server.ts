// The proxy's listener: HTTPS with its own serving certificate (plain HTTP
// only when asked), the answers it gives itself as Kubernetes Status objects,
// the client-certificate check, caller timeouts, and the caller's body on its
// way upstream.
import {
  type ClientRequest,
  createServer,
  type Server as HttpServer,
  type IncomingMessage,
  type ServerOptions,
  type ServerResponse,
} from "node:http";
import { createServer as createHttpsServer, type Server as HttpsServer } from "node:https";
import type { TLSSocket } from "node:tls";
import type { Logger } from "../../log.ts";
import type { ServingCertificate } from "../../server/certificates.ts";
import { refusalStatus, refuseClient } from "../../server/client-errors.ts";

/**
 * How long a caller may take, and how often Node.js checks: a TLS handshake
 * within 10 s, the request headers within 30 s and the whole request (headers
 * and body) within 60 s, the apiserver's own limit for anything but watches
 * (a watch is a GET: its request is complete at once, and its response may
 * last as long as it likes). Node.js looks for expired requests only every
 * connectionsCheckingInterval (30 s by default) and gives a TLS handshake 120
 * s, which let stalled callers hold connections 100-130 s; checked every 2 s,
 * the limits hold within 2 s. Idle keep-alive connections are kept longer
 * than client-go's 90 s, so the client always closes an idle connection first
 * and never reuses one the proxy is closing (a write lost that way would not
 * be retried by Go's transport).
 */
export const proxyTimeouts = {
  handshakeMs: 10_000,
  headersMs: 30_000,
  requestMs: 60_000,
  checkIntervalMs: 2_000,
  keepAliveMs: 120_000,
};

export function createProxyServer(
  tls: ServingCertificate | undefined,
  handle: (req: IncomingMessage, res: ServerResponse) => void,
  log: Logger,
  timeouts: typeof proxyTimeouts = proxyTimeouts,
): HttpServer | HttpsServer {
  const serverOptions: ServerOptions = {
    keepAliveTimeout: timeouts.keepAliveMs,
    requestTimeout: timeouts.requestMs,
    headersTimeout: timeouts.headersMs,
    connectionsCheckingInterval: timeouts.checkIntervalMs,
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
          handshakeTimeout: timeouts.handshakeMs,
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
  server.on("clientError", (error: NodeJS.ErrnoException, socket) => {
    const status = refusalStatus(error);
    log.debug(status.startsWith("408") ? "client request timed out" : "malformed client request", { error });
    // Answered if it can be (408, 414, 431 or 400), and closed either way.
    refuseClient(socket, status);
  });
  // With a listener here Node.js no longer destroys the socket itself: a
  // handshake that timed out or failed would stay open for good.
  server.on("tlsClientError", (error, socket) => {
    log.debug("TLS handshake failed", { error });
    socket.destroy();
  });
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

export interface ForwardedBody {
  /** The upstream answered: whatever of the body is still to come is dropped. */
  answered(): void;
  wasAnswered(): boolean;
  /** The whole body went upstream. */
  sent(): boolean;
}

/**
 * Sends the caller's body upstream as it arrives. Once the upstream has
 * answered or failed, the rest is read and dropped rather than forwarded: the
 * caller, still sending, can then read the answer and keep its connection, and
 * the write error on an upstream connection the apiserver is closing (it
 * answers 413 for a body over its limit, then closes with the rest unread)
 * never replaces that answer.
 */
export function forwardBody(req: IncomingMessage, upstreamReq: ClientRequest): ForwardedBody {
  let answered = false;
  let sent = false;
  const drop = (): void => {
    req.unpipe(upstreamReq);
    req.resume();
  };
  upstreamReq.on("finish", () => {
    sent = true;
  });
  upstreamReq.on("error", drop);
  // The caller gone mid-body: the upstream request goes with it.
  req.on("error", (error) => upstreamReq.destroy(error));
  req.pipe(upstreamReq);
  return {
    answered() {
      answered = true;
      if (!sent) drop();
    },
    wasAnswered: () => answered,
    sent: () => sent,
  };
}
