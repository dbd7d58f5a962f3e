// metricsAuth: kubernetes — who may read /metrics is decided by the cluster,
// the way kube-rbac-proxy and controller-runtime's secure metrics serving do:
// the scraper's bearer token is checked with a TokenReview, then its user may
// `get` the request's path (a non-resource URL) with a SubjectAccessReview.
// Prometheus scrapes with its service account token; kube-prometheus-stack's
// Prometheus role already grants `get` on /metrics. Every path but /healthz
// and /readyz (the kubelet's probes carry no token) is protected, so pages
// added to the listener later are covered without a second thought. Decisions are cached briefly per token (allowed 2 min,
// refused 10 s), so each scrape costs no API calls.
import { createHash } from "node:crypto";
import type { IncomingMessage, ServerResponse } from "node:http";
import type { KubeClient } from "../kube/client.ts";
import type { Logger } from "../log.ts";

/** Paths the kubelet probes: no token needed. */
export const openPaths: readonly string[] = ["/healthz", "/readyz"];

/**
 * The non-resource URL a request is authorized as. The status page's JSON API
 * (/api/...) is authorized as the page itself (/): it shows the same objects,
 * and Kubernetes' default `system:discovery` role lets every authenticated
 * identity get `/api/*` (the apiserver's own discovery paths), which would
 * open the API to any service account in the cluster.
 */
export function authorizationPath(path: string): string {
  return path === "/api" || path.startsWith("/api/") ? "/" : path;
}

export type AuthDecision =
  | { allowed: true; user: string }
  | { allowed: false; status: 401 | 403 | 500; reason: string };

interface UserInfo {
  username?: string;
  uid?: string;
  groups?: string[];
  extra?: Record<string, string[]>;
}

export interface KubernetesAuthOptions {
  allowedTtlMs?: number;
  deniedTtlMs?: number;
  maxEntries?: number;
  now?: () => number;
}

export class KubernetesMetricsAuth {
  readonly #client: Pick<KubeClient, "request">;
  readonly #cache = new Map<string, { expires: number; decision: AuthDecision }>();
  readonly #allowedTtlMs: number;
  readonly #deniedTtlMs: number;
  readonly #maxEntries: number;
  readonly #now: () => number;

  constructor(client: Pick<KubeClient, "request">, options: KubernetesAuthOptions = {}) {
    this.#client = client;
    this.#allowedTtlMs = options.allowedTtlMs ?? 120_000;
    this.#deniedTtlMs = options.deniedTtlMs ?? 10_000;
    this.#maxEntries = options.maxEntries ?? 256;
    this.#now = options.now ?? Date.now;
  }

  /** Decides a request for `path` by its Authorization header. */
  async authorize(authorization: string | undefined, path: string): Promise<AuthDecision> {
    // Stryker disable next-line StringLiteral: without a header any text not starting with "Bearer" gives no token, as "" does
    const token = /^Bearer\s+(\S+)\s*$/i.exec(authorization ?? "")?.[1];
    if (!token) return { allowed: false, status: 401, reason: "a bearer token is required" };
    const key = createHash("sha256").update(`${path}\0${token}`).digest("hex");
    const cached = this.#cache.get(key);
    if (cached && cached.expires > this.#now()) return cached.decision;
    const decision = await this.#decide(token, path);
    // Server errors are not cached: the next scrape asks again.
    if (decision.allowed || decision.status !== 500) {
      if (this.#cache.size >= this.#maxEntries) {
        const oldest = this.#cache.keys().next().value;
        if (oldest !== undefined) this.#cache.delete(oldest);
      }
      this.#cache.set(key, {
        expires: this.#now() + (decision.allowed ? this.#allowedTtlMs : this.#deniedTtlMs),
        decision,
      });
    }
    return decision;
  }

  async #decide(token: string, path: string): Promise<AuthDecision> {
    const review = await this.#client.request<{
      status?: { authenticated?: boolean; user?: UserInfo; error?: string };
    }>("POST", "/apis/authentication.k8s.io/v1/tokenreviews", {
      body: { apiVersion: "authentication.k8s.io/v1", kind: "TokenReview", spec: { token } },
    });
    if (review.status < 200 || review.status >= 300) {
      return { allowed: false, status: 500, reason: `TokenReview failed with HTTP ${review.status}` };
    }
    const user = review.body.status?.user;
    if (!review.body.status?.authenticated || !user?.username) {
      return { allowed: false, status: 401, reason: "the token is not valid" };
    }
    const access = await this.#client.request<{ status?: { allowed?: boolean; reason?: string } }>(
      "POST",
      "/apis/authorization.k8s.io/v1/subjectaccessreviews",
      {
        body: {
          apiVersion: "authorization.k8s.io/v1",
          kind: "SubjectAccessReview",
          spec: {
            user: user.username,
            uid: user.uid,
            groups: user.groups,
            extra: user.extra,
            nonResourceAttributes: { path, verb: "get" },
          },
        },
      },
    );
    if (access.status < 200 || access.status >= 300) {
      return { allowed: false, status: 500, reason: `SubjectAccessReview failed with HTTP ${access.status}` };
    }
    if (!access.body.status?.allowed) {
      return { allowed: false, status: 403, reason: `user "${user.username}" may not get ${path}` };
    }
    return { allowed: true, user: user.username };
  }
}

/** Wraps a request handler: every path but the probes' needs an allowed decision. */
export function withMetricsAuth(
  auth: KubernetesMetricsAuth,
  handler: (req: IncomingMessage, res: ServerResponse) => void,
  logger: Logger,
): (req: IncomingMessage, res: ServerResponse) => void {
  const log = logger.child({ component: "metrics-auth" });
  return (req, res) => {
    const path = (req.url ?? "/").split("?")[0] ?? "/";
    if (openPaths.includes(path)) {
      handler(req, res);
      return;
    }
    auth.authorize(req.headers.authorization, authorizationPath(path)).then(
      (decision) => {
        if (decision.allowed) {
          handler(req, res);
          return;
        }
        log.debug("refused a scrape", { status: decision.status, reason: decision.reason });
        const body = `${decision.reason}\n`;
        res.writeHead(decision.status, {
          "Content-Type": "text/plain; charset=utf-8",
          "Content-Length": Buffer.byteLength(body),
          ...(decision.status === 401 && { "WWW-Authenticate": 'Bearer realm="cr-status-exporter"' }),
        });
        res.end(body);
      },
      (error: unknown) => {
        log.warn("authorization check failed", { error: (error as Error).message });
        res.writeHead(500, { "Content-Type": "text/plain; charset=utf-8" });
        res.end("authorization check failed\n");
      },
    );
  };
}
