// The audit webhook receiver: an HTTPS endpoint the apiserver's audit webhook
// backend posts EventList batches to. Status writes in them are counted with
// the writer's identity. Callers authenticate with a bearer token and/or a
// client certificate, both configured in the apiserver's webhook kubeconfig.
import { createHash, timingSafeEqual } from "node:crypto";
import type { IncomingMessage, ServerResponse } from "node:http";
import { createServer, type Server } from "node:https";
import type { TLSSocket } from "node:tls";
import type { Logger } from "../log.ts";
import { BodyTooLargeError, readBody } from "../net/http-body.ts";
import { closeServer, listenOn, parseHostPort } from "../net/listen.ts";
import { AuditPayloadError, type AuditStatusWrite, parseAuditEventList } from "./audit-events.ts";
import { classifyFailure } from "./classify.ts";
import { type KindResolver, kindOrPlural, pluralKindResolver } from "./kinds.ts";
import type { StatusWriteMetrics } from "./metrics.ts";

export interface AuditReceiverOptions {
  /** host:port. The apiserver usually runs elsewhere, so any address is allowed: every request is authenticated. */
  listen: string;
  /** The receiver's serving certificate and key (PEM). Its CA goes into the webhook kubeconfig. */
  certPem: string;
  keyPem: string;
  /** Accept requests carrying `Authorization: Bearer <token>`. */
  bearerToken?: string | undefined;
  /** Accept requests presenting a client certificate signed by this CA. */
  clientCaPem?: string | undefined;
  /** URL path batches are posted to (default "/audit"). */
  path?: string;
  /** Largest accepted batch (default 32 MiB): 413 above it. */
  maxBodyBytes?: number;
  kinds?: KindResolver;
}

export interface AuditReceiver {
  /** https://host:port/path */
  readonly url: string;
  readonly port: number;
  close(): Promise<void>;
}

function digest(value: string): Buffer {
  return createHash("sha256").update(value).digest();
}

export async function startAuditReceiver(
  options: AuditReceiverOptions,
  metrics: StatusWriteMetrics,
  logger: Logger,
): Promise<AuditReceiver> {
  const address = parseHostPort(options.listen, "auditReceiver.listen");
  if (!options.bearerToken && !options.clientCaPem) {
    throw new Error(
      "auditReceiver: set bearerToken and/or clientCaPem; an unauthenticated receiver is refused",
    );
  }
  if (options.bearerToken !== undefined && options.bearerToken.trim() === "") {
    throw new Error("auditReceiver.bearerToken: must not be empty");
  }
  const path = options.path ?? "/audit";
  const maxBodyBytes = options.maxBodyBytes ?? 32 * 1024 * 1024;
  const kinds = options.kinds ?? pluralKindResolver;
  const log = logger.child({ component: "audit-receiver" });
  // Compared as digests so the comparison takes the same time whatever the length.
  const expectedToken = options.bearerToken ? digest(`Bearer ${options.bearerToken}`) : undefined;

  const authenticated = (req: IncomingMessage): boolean => {
    const header = req.headers.authorization;
    if (expectedToken && header && timingSafeEqual(digest(header), expectedToken)) return true;
    return options.clientCaPem !== undefined && (req.socket as TLSSocket).authorized === true;
  };

  const record = (write: AuditStatusWrite): void => {
    void kindOrPlural(kinds, write).then((kind) => {
      metrics.record({
        source: "audit",
        group: write.group,
        kind,
        namespace: write.namespace,
        verb: write.verb,
        code: write.code,
        failure: classifyFailure(write.code, write.status),
        durationSeconds: write.durationSeconds,
        user: write.user,
      });
    });
  };

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const requestPath = (req.url ?? "").split("?")[0];
    if (requestPath !== path) {
      reply(res, 404, `not found; audit batches go to ${path}`);
      return;
    }
    if (!authenticated(req)) {
      log.warn("rejected unauthenticated audit request", { remote: req.socket.remoteAddress });
      req.resume();
      reply(res, 401, "unauthorized");
      return;
    }
    if (req.method !== "POST") {
      reply(res, 405, "only POST is accepted");
      return;
    }

    req.on("error", (error) => log.warn("audit request failed", { error }));
    let raw: Buffer;
    try {
      raw = await readBody(req, maxBodyBytes);
    } catch (error) {
      if (error instanceof BodyTooLargeError) {
        log.warn("rejected audit batch: too large", { limitBytes: maxBodyBytes });
        reply(res, 413, `batch larger than ${maxBodyBytes} bytes`, true);
      }
      return;
    }
    const size = raw.length;
    let body: unknown;
    try {
      body = JSON.parse(raw.toString("utf8"));
    } catch (error) {
      log.warn("rejected audit batch: not JSON", { bytes: size, error });
      reply(res, 400, "body is not JSON");
      return;
    }
    try {
      const batch = parseAuditEventList(body);
      for (const write of batch.writes) record(write);
      if (batch.malformed > 0) {
        log.warn("skipped malformed audit events", { malformed: batch.malformed, events: batch.events });
      }
      log.debug("audit batch", { events: batch.events, statusWrites: batch.writes.length });
      reply(res, 200, "ok");
    } catch (error) {
      if (error instanceof AuditPayloadError) {
        log.warn("rejected audit batch", { bytes: size, error });
        reply(res, 400, error.message);
        return;
      }
      // A defect here must cost one batch (the apiserver retries it), never the process.
      log.error("audit batch handling failed", { error });
      reply(res, 500, "internal error");
    }
  };

  const server: Server = createServer(
    {
      cert: options.certPem,
      key: options.keyPem,
      ca: options.clientCaPem,
      requestCert: options.clientCaPem !== undefined,
      // Token callers have no certificate: the handler decides per request.
      rejectUnauthorized: false,
    },
    (req, res) => void handle(req, res),
  );
  server.on("tlsClientError", (error) => log.debug("TLS handshake failed", { error }));

  const bound = await listenOn(server, address);
  const url = `https://${bound.host}:${bound.port}${path}`;
  log.info("audit receiver listening", {
    url,
    bearerToken: Boolean(expectedToken),
    clientCa: Boolean(options.clientCaPem),
  });
  return {
    url,
    port: bound.port,
    async close() {
      await closeServer(server);
    },
  };
}

function reply(res: ServerResponse, code: number, message: string, close = false): void {
  if (res.headersSent) return;
  const body = `${message}\n`;
  const headers: Record<string, string | number> = {
    "Content-Type": "text/plain; charset=utf-8",
    "Content-Length": Buffer.byteLength(body),
  };
  if (close) headers.Connection = "close";
  res.writeHead(code, headers);
  res.end(body);
}
