// The audit webhook receiver: an HTTPS endpoint the apiserver's audit webhook
// backend posts EventList batches to. Status writes in them are counted with
// the writer's identity. Callers authenticate with a bearer token and/or a
// client certificate, both configured in the apiserver's webhook kubeconfig.
//
// Bounded for hostile callers: bodies in flight share one byte allowance
// (audit-body.ts), connections are capped, and a connection must finish its
// TLS handshake, headers and whole request within fixed times.
import { createHash, timingSafeEqual } from "node:crypto";
import type { IncomingMessage, ServerResponse } from "node:http";
import { createServer, type Server } from "node:https";
import type { TLSSocket } from "node:tls";
import type { Logger } from "../../log.ts";
import { closeServer, listenOn, parseHostPort } from "../../net/listen.ts";
import { sharedTurns } from "../../net/turns.ts";
import { type ConfirmedLabels, confirmedLabels } from "../confirmed-labels.ts";
import { type KindResolver, unconfirmingKindResolver } from "../kinds.ts";
import type { StatusWriteMetrics } from "../metrics.ts";
import type { StatusWriteGroup } from "./audit-batch-reader.ts";
import { type BatchResult, InFlightBytes, readAuditBatch } from "./audit-body.ts";

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
  /** Bytes of the events being read, across all requests (default 64 MiB): 429 with Retry-After above it. */
  maxInFlightBytes?: number;
  /** What the apiserver confirmed (kinds, namespaces); without it every target is counted as "other". */
  kinds?: KindResolver;
  /** Connection limits; the defaults are below, the tests shorten them. */
  timeouts?: Partial<typeof receiverTimeouts>;
}

/**
 * The apiserver's webhook client gives up on a request after 30 s
 * (k8s.io/apiserver pkg/util/webhook, defaultRequestTimeout), so a request
 * still unfinished then is one nobody waits for. TLS handshake and headers
 * take milliseconds from a real apiserver. The checking interval is how often
 * Node.js looks for expired requests (30 s by default, which would let a
 * stalled caller hold a connection up to a minute). Idle keep-alive
 * connections are kept longer than Go's 90 s, so the apiserver closes first.
 */
export const receiverTimeouts = {
  handshakeMs: 10_000,
  headersMs: 10_000,
  requestMs: 30_000,
  checkIntervalMs: 2_000,
  keepAliveMs: 120_000,
  /** Simultaneous connections; an apiserver uses a few, an HA control plane a few per replica. */
  maxConnections: 128,
};

export interface AuditReceiver {
  /** https://host:port/path */
  readonly url: string;
  readonly port: number;
  /** Bytes of the events being read right now, across all requests. */
  readonly heldBytes: number;
  close(): Promise<void>;
}

function digest(value: string): Buffer {
  return createHash("sha256").update(value).digest();
}

/** What every request of one receiver reads: fixed when it starts. */
interface ReceiverState {
  path: string;
  maxBodyBytes: number;
  inFlight: InFlightBytes;
  kinds: KindResolver;
  /** The digest of the accepted Authorization header, when a bearer token is set. */
  expectedToken: Buffer | undefined;
  clientCaPem: string | undefined;
  metrics: StatusWriteMetrics;
  log: Logger;
}

function assertAuthenticationConfigured(options: AuditReceiverOptions): void {
  if (!options.bearerToken && !options.clientCaPem) {
    throw new Error(
      "auditReceiver: set bearerToken and/or clientCaPem; an unauthenticated receiver is refused",
    );
  }
  if (options.bearerToken !== undefined && options.bearerToken.trim() === "") {
    throw new Error("auditReceiver.bearerToken: must not be empty");
  }
}

function receiverState(
  options: AuditReceiverOptions,
  metrics: StatusWriteMetrics,
  logger: Logger,
): ReceiverState {
  return {
    path: options.path ?? "/audit",
    maxBodyBytes: options.maxBodyBytes ?? 32 * 1024 * 1024,
    inFlight: new InFlightBytes(options.maxInFlightBytes ?? 64 * 1024 * 1024),
    kinds: options.kinds ?? unconfirmingKindResolver,
    // Compared as digests so the comparison takes the same time whatever the length.
    expectedToken: options.bearerToken ? digest(`Bearer ${options.bearerToken}`) : undefined,
    clientCaPem: options.clientCaPem,
    metrics,
    log: logger.child({ component: "audit-receiver" }),
  };
}

function authenticated(receiver: ReceiverState, req: IncomingMessage): boolean {
  const header = req.headers.authorization;
  const { expectedToken } = receiver;
  if (expectedToken && header && timingSafeEqual(digest(header), expectedToken)) return true;
  return receiver.clientCaPem !== undefined && (req.socket as TLSSocket).authorized === true;
}

/** One group's writes, observed only while a turn's budget lasts (a batch can hold ~37,000 of them). */
async function recordWrites(
  metrics: StatusWriteMetrics,
  writes: StatusWriteGroup,
  labels: ConfirmedLabels,
): Promise<void> {
  const observation = {
    source: "audit" as const,
    group: labels.group,
    kind: labels.kind,
    namespace: labels.namespace,
    folded: labels.folded,
    verb: writes.verb,
    code: writes.code,
    failure: writes.failure,
    user: writes.user,
  };
  await sharedTurns.slice("first");
  for (const _ of metrics.recordMany(observation, writes.durations)) await sharedTurns.slice("first");
}

/** The batch's groups by target and outcome (succeeded or not), in first-seen order. */
function byTargetAndOutcome(groups: StatusWriteGroup[]): Map<string, StatusWriteGroup[]> {
  const byTarget = new Map<string, StatusWriteGroup[]>();
  for (const group of groups) {
    const succeeded = group.code >= 200 && group.code < 300;
    const key = JSON.stringify([group.group, group.version, group.resource, group.namespace, succeeded]);
    const same = byTarget.get(key);
    if (same) same.push(group);
    else byTarget.set(key, [group]);
  }
  return byTarget;
}

/**
 * Labels are confirmed once per distinct target and outcome of the batch,
 * all started before any is awaited, so a success confirms its namespace
 * for the failures of the same batch.
 */
function recordAll(receiver: ReceiverState, groups: StatusWriteGroup[]): void {
  for (const same of byTargetAndOutcome(groups).values()) {
    const first = same[0] as StatusWriteGroup;
    void confirmedLabels(receiver.kinds, first, first.code).then(async (labels) => {
      for (const group of same) await recordWrites(receiver.metrics, group, labels);
    });
  }
}

function handleRequest(receiver: ReceiverState, req: IncomingMessage, res: ServerResponse): void {
  const { path, log } = receiver;
  const requestPath = (req.url ?? "").split("?")[0];
  if (requestPath !== path) {
    reply(res, 404, `not found; audit batches go to ${path}`);
    return;
  }
  if (!authenticated(receiver, req)) {
    log.warn("rejected unauthenticated audit request", { remote: req.socket.remoteAddress });
    req.resume();
    reply(res, 401, "unauthorized");
    return;
  }
  if (req.method !== "POST") {
    reply(res, 405, "only POST is accepted");
    return;
  }
  const limits = { maxBodyBytes: receiver.maxBodyBytes, inFlight: receiver.inFlight };
  void readAuditBatch(req, limits).then((result) => answerBatch(receiver, res, result));
}

function answerBatch(receiver: ReceiverState, res: ServerResponse, result: BatchResult): void {
  const { log } = receiver;
  if (!result.ok) {
    if (result.code === 0) return;
    if (result.code === 500) log.error(result.log);
    else log.warn(result.log, { code: result.code });
    // The rest of the body is drained (the request timeout bounds how long),
    // so the caller reads a clean answer instead of a broken pipe, which the
    // apiserver's webhook would not retry. A bad Content-Length ends the connection.
    reply(res, result.code, result.message, result.code === 400);
    return;
  }
  const { batch } = result;
  recordAll(receiver, batch.groups);
  if (batch.malformed > 0) {
    log.warn("skipped malformed audit events", { malformed: batch.malformed, events: batch.events });
  }
  log.debug("audit batch", { events: batch.events, statusWrites: batch.writes });
  reply(res, 200, "ok");
}

function createReceiverServer(options: AuditReceiverOptions, receiver: ReceiverState): Server {
  const timeouts = { ...receiverTimeouts, ...options.timeouts };
  const server: Server = createServer(
    {
      cert: options.certPem,
      key: options.keyPem,
      ca: options.clientCaPem,
      requestCert: options.clientCaPem !== undefined,
      // Token callers have no certificate: the handler decides per request.
      rejectUnauthorized: false,
      handshakeTimeout: timeouts.handshakeMs,
      headersTimeout: timeouts.headersMs,
      requestTimeout: timeouts.requestMs,
      connectionsCheckingInterval: timeouts.checkIntervalMs,
      keepAliveTimeout: timeouts.keepAliveMs,
    },
    (req, res) => handleRequest(receiver, req, res),
  );
  server.maxConnections = timeouts.maxConnections;
  server.on("tlsClientError", (error) => receiver.log.debug("TLS handshake failed", { error }));
  return server;
}

export async function startAuditReceiver(
  options: AuditReceiverOptions,
  metrics: StatusWriteMetrics,
  logger: Logger,
): Promise<AuditReceiver> {
  const address = parseHostPort(options.listen, "auditReceiver.listen");
  assertAuthenticationConfigured(options);
  const receiver = receiverState(options, metrics, logger);
  const server = createReceiverServer(options, receiver);
  const bound = await listenOn(server, address);
  const url = `https://${bound.host}:${bound.port}${receiver.path}`;
  receiver.log.info("audit receiver listening", {
    url,
    bearerToken: Boolean(receiver.expectedToken),
    clientCa: Boolean(options.clientCaPem),
  });
  return {
    url,
    port: bound.port,
    get heldBytes() {
      return receiver.inFlight.held;
    },
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
  // The webhook client retries a 429, after at least this long.
  if (code === 429) headers["Retry-After"] = 1;
  if (close) headers.Connection = "close";
  res.writeHead(code, headers);
  res.end(body);
}
