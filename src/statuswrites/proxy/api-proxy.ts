// The sidecar API proxy: an operator in the same pod sends its Kubernetes API
// traffic here; every request is forwarded to the real apiserver over TLS with
// the caller's own headers (its Authorization included, nothing added), and
// every write to a /status subresource is counted on the way back.
//
// The proxy serves TLS itself, with a certificate of its own made at start-up:
// client-go sends a kubeconfig's credentials only to an https server, so over
// plain HTTP an operator would reach the apiserver as system:anonymous.
//
// Bodies are streamed in both directions (watches and chunked lists pass
// through as they arrive); only the first bytes of an error response to a
// counted write are kept, to read the Status reason.
import type { ClientRequest, IncomingMessage, ServerResponse } from "node:http";
import { Agent, request as httpsRequest } from "node:https";
import type { Logger } from "../../log.ts";
import { closeServer, listenOn, parseHostPort } from "../../net/listen.ts";
import type { ServingCertificate } from "../../server/certificates.ts";
import { classifyFailure, isFailureCode, parseStatusPrefix } from "../classify.ts";
import { confirmedLabels } from "../confirmed-labels.ts";
import { type KindResolver, unconfirmingKindResolver } from "../kinds.ts";
import { assertLoopbackUnlessAllowed } from "../listen-address.ts";
import type { StatusWriteMetrics } from "../metrics.ts";
import { isStatusWrite, parseResourceRequest, type ResourceRequest } from "../request-path.ts";
import { BoundedPrefix } from "./bounded-prefix.ts";
import { endToEndHeaders, headerValue } from "./headers.ts";
import { type OperatorKubeconfig, writeOperatorKubeconfig } from "./operator-kubeconfig.ts";
import type { OperatorUser } from "./operator-user.ts";
import {
  clientCertificateMessage,
  createProxyServer,
  type ForwardedBody,
  forwardBody,
  presentsClientCertificate,
  proxyTimeouts,
  respondStatus,
} from "./proxy-server.ts";
import { kubeconfigServerUrl, type ProxyTlsOptions, servingMaterial, servingNames } from "./proxy-tls.ts";
import type { Upstream } from "./upstream.ts";

export interface ApiProxyOptions {
  /** host:port, e.g. "127.0.0.1:8001" (port 0 picks a free one). */
  listen: string;
  /** Required to listen anywhere but loopback. */
  allowNonLoopback?: boolean;
  /** The real apiserver: server URL and CA. */
  upstream: Upstream;
  /** Where to write the operator's kubeconfig (server = this proxy). Not written when undefined. */
  kubeconfigPath?: string | undefined;
  /** Token file named in that kubeconfig; the pod's service-account token by default. */
  tokenFile?: string | undefined;
  /** The user entry of that kubeconfig instead of the token file (see operator-user.ts). */
  user?: OperatorUser | undefined;
  /**
   * Serve plain HTTP instead of TLS. client-go (so kubectl and
   * controller-runtime) then sends no credentials at all: only for clients that
   * send their own Authorization header over plain HTTP.
   */
  plainHttp?: boolean | undefined;
  /** What the apiserver confirmed (kinds, namespaces); without it every target is counted as "other". */
  kinds?: KindResolver;
  /** Bytes of an error body kept to read its Status (default 16 KiB). */
  errorPrefixBytes?: number;
  /** Monotonic milliseconds; injectable for tests. */
  now?: () => number;
  /** Caller timeouts; the shipped ones (proxyTimeouts) by default, shorter in tests. */
  timeouts?: Partial<typeof proxyTimeouts>;
}

export interface ApiProxy {
  /** https://host:port the proxy listens on (http:// with plainHttp). */
  readonly url: string;
  readonly port: number;
  /** The CA that signed the proxy's serving certificate (undefined with plainHttp). */
  readonly caPem: string | undefined;
  close(): Promise<void>;
}

/** What every relayed request reads: fixed when the proxy starts, but for the one-time warning. */
interface ProxyState {
  readonly upstreamUrl: URL;
  /** The upstream server's path without its trailing slashes: each request's path is appended to it. */
  readonly basePath: string;
  readonly agent: Agent;
  /** The proxy's serving material; undefined with plainHttp. */
  readonly tls: ServingCertificate | undefined;
  readonly kinds: KindResolver;
  readonly prefixBytes: number;
  readonly now: () => number;
  readonly metrics: StatusWriteMetrics;
  readonly log: Logger;
  /** The first client certificate is warned about, later ones logged at debug. */
  warnedClientCertificate: boolean;
}

/** One relayed request: counted once, when it is a status write, by whichever of its ends comes first. */
interface Relay {
  readonly proxy: ProxyState;
  readonly req: IncomingMessage;
  readonly res: ServerResponse;
  readonly method: string;
  readonly url: string;
  readonly startedMs: number;
  /** The status write the request is; undefined for anything else, which is not counted. */
  readonly target: ResourceRequest | undefined;
  responseCode: number;
  prefix: BoundedPrefix | undefined;
  recorded: boolean;
}

export async function startApiProxy(
  options: ApiProxyOptions,
  metrics: StatusWriteMetrics,
  logger: Logger,
): Promise<ApiProxy> {
  const address = parseHostPort(options.listen, "apiProxy.listen");
  assertLoopbackUnlessAllowed(address, options.allowNonLoopback === true, "apiProxy.listen");
  const upstreamUrl = httpsUpstreamUrl(options.upstream);
  const log = logger.child({ component: "api-proxy" });
  const names = servingNames(address.host);
  const tls = options.plainHttp ? undefined : servingMaterial(options.kubeconfigPath, names, log);
  const proxy = proxyState(options, upstreamUrl, tls, metrics, log);
  const handle = (req: IncomingMessage, res: ServerResponse): void => handleRequest(proxy, req, res);
  const server = createProxyServer(tls, handle, log, { ...proxyTimeouts, ...options.timeouts });

  const bound = await listenOn(server, address);
  const url = kubeconfigServerUrl(tls ? "https" : "http", bound.host, bound.port);
  if (options.kubeconfigPath) {
    try {
      writeOperatorKubeconfig(
        options.kubeconfigPath,
        operatorKubeconfig(options, url, tls),
        options.user?.holdsSecret ? 0o600 : 0o644,
      );
    } catch (error) {
      server.close();
      proxy.agent.destroy();
      throw new Error(
        `apiProxy.kubeconfigPath: cannot write ${JSON.stringify(options.kubeconfigPath)}: ${String(error)}`,
      );
    }
  }
  logListening(log, options, url, tls, names);

  return {
    url,
    port: bound.port,
    caPem: tls?.caPem,
    async close() {
      await closeServer(server);
      proxy.agent.destroy();
    },
  };
}

function httpsUpstreamUrl(upstream: Upstream): URL {
  const upstreamUrl = new URL(upstream.server);
  if (upstreamUrl.protocol !== "https:") {
    throw new Error(`apiProxy.upstream.server: must be https, got ${JSON.stringify(upstream.server)}`);
  }
  return upstreamUrl;
}

function proxyState(
  options: ApiProxyOptions,
  upstreamUrl: URL,
  tls: ServingCertificate | undefined,
  metrics: StatusWriteMetrics,
  log: Logger,
): ProxyState {
  return {
    upstreamUrl,
    basePath: upstreamUrl.pathname.replace(/\/+$/, ""),
    agent: new Agent({ ca: options.upstream.caPem, keepAlive: true, maxFreeSockets: 64 }),
    tls,
    kinds: options.kinds ?? unconfirmingKindResolver,
    prefixBytes: options.errorPrefixBytes ?? 16 * 1024,
    now: options.now ?? (() => performance.now()),
    metrics,
    log,
    warnedClientCertificate: false,
  };
}

/** The operator's kubeconfig: this proxy as its server, and the user it authenticates as. */
function operatorKubeconfig(
  options: ApiProxyOptions,
  url: string,
  tls: ServingCertificate | undefined,
): OperatorKubeconfig {
  return {
    server: url,
    caPem: tls?.caPem,
    user:
      options.user?.user ?? (options.tokenFile === undefined ? undefined : { tokenFile: options.tokenFile }),
  };
}

function logListening(
  log: Logger,
  options: ApiProxyOptions,
  url: string,
  tls: ServingCertificate | undefined,
  names: ProxyTlsOptions,
): void {
  log.info("api proxy listening", {
    url,
    upstream: options.upstream.server,
    kubeconfig: options.kubeconfigPath,
    servingNames: tls ? [...names.dnsNames, ...names.ipAddresses] : undefined,
  });
  if (!tls) {
    log.warn(
      "api proxy serves plain HTTP: client-go (kubectl, controller-runtime) sends no credentials over it, " +
        "so such an operator reaches the apiserver as system:anonymous",
    );
  }
}

function handleRequest(proxy: ProxyState, req: IncomingMessage, res: ServerResponse): void {
  const startedMs = proxy.now();
  const method = req.method ?? "GET";
  const url = req.url ?? "/";
  if (!url.startsWith("/")) {
    respondStatus(res, 400, "BadRequest", `request target must be a path, got ${JSON.stringify(url)}`);
    return;
  }
  const parsed = parseResourceRequest(method, url);
  const target = parsed && isStatusWrite(parsed) ? parsed : undefined;
  const relay: Relay = {
    proxy,
    req,
    res,
    method,
    url,
    startedMs,
    target,
    responseCode: 0,
    prefix: undefined,
    recorded: false,
  };
  if (refusedClientCertificate(relay)) return;
  relayUpstream(relay);
}

/** True when the request was answered here (401) instead of relayed. */
function refusedClientCertificate(relay: Relay): boolean {
  const { proxy, req, res } = relay;
  // TLS ends here, so a client certificate can never reach the apiserver.
  // Without a token as well, the request would arrive anonymous: say why instead.
  if (!proxy.tls || !presentsClientCertificate(req)) return false;
  const bearer = req.headers.authorization !== undefined;
  const level = proxy.warnedClientCertificate ? "debug" : "warn";
  proxy.warnedClientCertificate = true;
  proxy.log[level](
    bearer
      ? "client certificate ignored: it cannot be forwarded through the proxy; the request's token is forwarded instead"
      : "request with a client certificate and no token refused: a client certificate cannot be forwarded through the proxy",
    { method: relay.method, path: relay.url.split("?")[0] },
  );
  if (bearer) return false;
  relay.responseCode = 401;
  respondStatus(res, 401, "Unauthorized", clientCertificateMessage);
  finish(relay);
  return true;
}

function relayUpstream(relay: Relay): void {
  const { proxy, req, res } = relay;
  const { upstreamUrl } = proxy;
  const upstreamReq = httpsRequest({
    protocol: "https:",
    hostname: upstreamUrl.hostname.replace(/^\[|\]$/g, ""),
    port: upstreamUrl.port || 443,
    method: relay.method,
    path: proxy.basePath + relay.url,
    headers: { ...endToEndHeaders(req.rawHeaders), host: upstreamUrl.host },
    agent: proxy.agent,
  });

  const body = forwardBody(req, upstreamReq);
  upstreamReq.on("response", (upstreamRes) => relayResponse(relay, upstreamReq, body, upstreamRes));
  upstreamReq.on("error", (error) => answerUpstreamError(relay, body, error));

  // The caller hung up before the whole response was sent: stop the upstream request too.
  res.on("close", () => {
    if (!res.writableFinished) upstreamReq.destroy();
    finish(relay);
  });
}

function relayResponse(
  relay: Relay,
  upstreamReq: ClientRequest,
  body: ForwardedBody,
  upstreamRes: IncomingMessage,
): void {
  const { res } = relay;
  relay.responseCode = upstreamRes.statusCode ?? 0;
  // An answer before the whole body was sent (the apiserver's 413 for a
  // body over its limit): the rest is not forwarded, and the write that
  // fails next must not replace the answer.
  body.answered();
  captureErrorPrefix(relay, upstreamRes);
  res.writeHead(relay.responseCode, upstreamRes.statusMessage, endToEndHeaders(upstreamRes.rawHeaders));
  // Watches send events as they happen: send the headers now, not with the first event.
  if (headerValue(upstreamRes.rawHeaders, "content-length") === undefined) res.flushHeaders();
  relayBody(upstreamRes, res, (error) => {
    if (error && !res.destroyed) res.destroy(error);
    // The upstream connection is of no further use when the body was cut short.
    if (!body.sent()) upstreamReq.destroy();
    finish(relay);
  });
}

/**
 * Copies the upstream answer to the caller, calling `done` once: when the
 * caller has it all, or with an error when the upstream answer was cut
 * short. (stream.pipeline did this and more, but aborted an AbortController
 * of its own at the end of every request: a DOMException with its stack,
 * about 50 µs per request in the proxy's profile.) The caller hanging up is
 * relayUpstream's to handle. `done` may be called twice (an error after the
 * end): what it does is done once.
 */
function relayBody(upstreamRes: IncomingMessage, res: ServerResponse, done: (error?: Error) => void): void {
  // An answer cut short errors ("aborted": node:http destroys it when its socket closes first).
  upstreamRes.once("error", done);
  res.once("finish", () => done());
  upstreamRes.pipe(res);
}

/** Keeps the first bytes of a counted write's JSON error answer, to read its Status reason. */
function captureErrorPrefix(relay: Relay, upstreamRes: IncomingMessage): void {
  const contentType = headerValue(upstreamRes.rawHeaders, "content-type") ?? "";
  const encoded = headerValue(upstreamRes.rawHeaders, "content-encoding");
  if (relay.target && isFailureCode(relay.responseCode) && contentType.includes("json") && !encoded) {
    const capture = new BoundedPrefix(relay.proxy.prefixBytes);
    relay.prefix = capture;
    upstreamRes.on("data", (chunk: Buffer) => capture.add(chunk));
  }
}

function answerUpstreamError(relay: Relay, body: ForwardedBody, error: Error): void {
  const { res } = relay;
  // After an answer, the response's own pipeline decides: a complete
  // answer is delivered, a cut one ends the caller's response.
  if (body.wasAnswered()) return;
  if (res.destroyed || res.writableEnded) {
    finish(relay); // the caller went away first; nothing to answer
    return;
  }
  relay.proxy.log.warn("upstream request failed", {
    method: relay.method,
    path: relay.url.split("?")[0],
    error,
  });
  relay.responseCode = 502;
  respondStatus(
    res,
    502,
    "ServiceUnavailable",
    `the apiserver did not answer through the proxy: ${error.message}`,
  );
  finish(relay);
}

/** Counts the request, once, if it is a status write. */
function finish(relay: Relay): void {
  if (!relay.target || relay.recorded) return;
  relay.recorded = true;
  recordWrite(relay.proxy, relay.target, relay.responseCode, relay.prefix?.text() ?? "", relay.startedMs);
}

function recordWrite(
  proxy: ProxyState,
  target: ResourceRequest,
  code: number,
  prefix: string,
  startedMs: number,
): void {
  const status = prefix ? parseStatusPrefix(prefix) : {};
  const failure = classifyFailure(code, status);
  const durationSeconds = (proxy.now() - startedMs) / 1000;
  void confirmedLabels(proxy.kinds, target, code).then(({ group, kind, namespace, folded }) => {
    proxy.metrics.record({
      source: "proxy",
      group,
      kind,
      namespace,
      folded,
      verb: target.verb,
      code,
      failure,
      durationSeconds,
    });
    if (failure) {
      proxy.log.debug("status write failed", {
        group: target.group,
        kind,
        namespace: target.namespace,
        name: target.name,
        code,
        reason: failure,
        statusReason: status.reason,
      });
    }
  });
}
