// metricsAuth: kubernetes as a scraper meets it: which paths need a token,
// what a refused caller is told (401 with a challenge, 403, 500), what the
// TokenReview and SubjectAccessReview are asked, and how long decisions are
// remembered.
import assert from "node:assert/strict";
import { createServer, request } from "node:http";
import type { AddressInfo } from "node:net";
import { test } from "node:test";
import { createLogger } from "../../src/log.ts";
import { authorizationPath, KubernetesMetricsAuth, withMetricsAuth } from "../../src/server/metrics-auth.ts";

interface Call {
  method: string;
  path: string;
  body: { spec: Record<string, unknown> };
}

/** A cluster that knows tokens by name: `good` may get everything, `reader` only /metrics. */
function fakeCluster(options: { tokenStatus?: number; accessStatus?: number; throws?: boolean } = {}) {
  const calls: Call[] = [];
  const client = {
    async request<T>(method: string, path: string, init?: { body?: unknown }) {
      const body = init?.body as Call["body"];
      calls.push({ method, path, body });
      if (options.throws) throw new Error("connection refused");
      if (path.endsWith("/tokenreviews")) {
        const token = body.spec.token as string;
        const known = token === "good" || token === "reader";
        return {
          status: options.tokenStatus ?? 201,
          body: {
            status: {
              authenticated: known,
              user: known ? { username: token, uid: `uid-${token}`, groups: ["g"], extra: { x: ["y"] } } : {},
            },
          } as T,
        };
      }
      const spec = body.spec as { user: string; nonResourceAttributes: { path: string } };
      const allowed =
        spec.user === "good" || (spec.user === "reader" && spec.nonResourceAttributes.path === "/metrics");
      return { status: options.accessStatus ?? 201, body: { status: { allowed } } as T };
    },
  };
  return { client, calls };
}

test("authorizationPath: the JSON API is authorized as the page, everything else as itself", () => {
  assert.equal(authorizationPath("/api"), "/");
  assert.equal(authorizationPath("/api/v1/objects"), "/");
  assert.equal(authorizationPath("/apis"), "/apis");
  assert.equal(authorizationPath("/metrics"), "/metrics");
  assert.equal(authorizationPath("/"), "/");
});

test("the reviews ask about the token, then the user's get on the path", async () => {
  const { client, calls } = fakeCluster();
  const auth = new KubernetesMetricsAuth(client);
  assert.deepEqual(await auth.authorize("Bearer good", "/metrics"), { allowed: true, user: "good" });
  assert.deepEqual(
    calls.map((c) => [c.method, c.path]),
    [
      ["POST", "/apis/authentication.k8s.io/v1/tokenreviews"],
      ["POST", "/apis/authorization.k8s.io/v1/subjectaccessreviews"],
    ],
  );
  assert.deepEqual(calls[0]?.body, {
    apiVersion: "authentication.k8s.io/v1",
    kind: "TokenReview",
    spec: { token: "good" },
  });
  assert.deepEqual(calls[1]?.body, {
    apiVersion: "authorization.k8s.io/v1",
    kind: "SubjectAccessReview",
    spec: {
      user: "good",
      uid: "uid-good",
      groups: ["g"],
      extra: { x: ["y"] },
      nonResourceAttributes: { path: "/metrics", verb: "get" },
    },
  });
});

test("the Authorization header: Bearer in any case with one token, anything else is 401", async () => {
  const { client } = fakeCluster();
  const auth = new KubernetesMetricsAuth(client);
  assert.equal((await auth.authorize("bearer good", "/metrics")).allowed, true);
  assert.equal((await auth.authorize("BEARER   good  ", "/metrics")).allowed, true);
  for (const header of [
    undefined,
    "",
    "Bearer",
    "Bearer ",
    "Basic Z29vZDp4",
    "Bearer good extra",
    "xBearer good",
  ]) {
    assert.deepEqual(
      await auth.authorize(header, "/metrics"),
      { allowed: false, status: 401, reason: "a bearer token is required" },
      String(header),
    );
  }
});

test("refusals: an unknown token is 401, a user without access 403 naming user and path, API failures 500", async () => {
  const { client } = fakeCluster();
  const auth = new KubernetesMetricsAuth(client);
  assert.deepEqual(await auth.authorize("Bearer stranger", "/metrics"), {
    allowed: false,
    status: 401,
    reason: "the token is not valid",
  });
  assert.deepEqual(await auth.authorize("Bearer reader", "/"), {
    allowed: false,
    status: 403,
    reason: 'user "reader" may not get /',
  });
  for (const status of [199, 300, 401, 503]) {
    const tokenFails = new KubernetesMetricsAuth(fakeCluster({ tokenStatus: status }).client);
    assert.deepEqual(await tokenFails.authorize("Bearer good", "/metrics"), {
      allowed: false,
      status: 500,
      reason: `TokenReview failed with HTTP ${status}`,
    });
    const accessFails = new KubernetesMetricsAuth(fakeCluster({ accessStatus: status }).client);
    assert.deepEqual(await accessFails.authorize("Bearer good", "/metrics"), {
      allowed: false,
      status: 500,
      reason: `SubjectAccessReview failed with HTTP ${status}`,
    });
  }
  for (const status of [200, 299]) {
    const ok = new KubernetesMetricsAuth(fakeCluster({ tokenStatus: status, accessStatus: status }).client);
    assert.equal((await ok.authorize("Bearer good", "/metrics")).allowed, true, String(status));
  }
});

test("decisions are remembered per token and path: allowed for 2 minutes, refused for 10 s", async () => {
  const { client, calls } = fakeCluster();
  let now = 1_000_000;
  const auth = new KubernetesMetricsAuth(client, { now: () => now });
  const reviews = () => calls.filter((c) => c.path.endsWith("tokenreviews")).length;
  await auth.authorize("Bearer reader", "/metrics");
  await auth.authorize("Bearer reader", "/");
  assert.equal(reviews(), 2, "another path is another decision");
  now += 9_999;
  await auth.authorize("Bearer reader", "/");
  assert.equal(reviews(), 2, "a refusal is remembered for just under 10 s");
  now += 1;
  assert.equal((await auth.authorize("Bearer reader", "/")).allowed, false);
  assert.equal(reviews(), 3, "and asked again at 10 s");
  now = 1_000_000 + 119_999;
  assert.equal((await auth.authorize("Bearer reader", "/metrics")).allowed, true);
  assert.equal(reviews(), 3, "an allowed decision is remembered for just under 2 minutes");
  now += 1;
  await auth.authorize("Bearer reader", "/metrics");
  assert.equal(reviews(), 4, "and asked again at 2 minutes");
});

test("the cache holds at most maxEntries decisions, dropping the oldest first", async () => {
  const { client, calls } = fakeCluster();
  const auth = new KubernetesMetricsAuth(client, { maxEntries: 2, now: () => 0 });
  const reviews = () => calls.filter((c) => c.path.endsWith("tokenreviews")).length;
  await auth.authorize("Bearer good", "/a");
  await auth.authorize("Bearer good", "/b");
  await auth.authorize("Bearer good", "/a");
  assert.equal(reviews(), 2);
  await auth.authorize("Bearer good", "/c");
  assert.equal(reviews(), 3);
  await auth.authorize("Bearer good", "/b");
  await auth.authorize("Bearer good", "/c");
  assert.equal(reviews(), 3, "/b and /c are still held");
  await auth.authorize("Bearer good", "/a");
  assert.equal(reviews(), 4, "/a, the oldest, was dropped");
});

async function serveWithAuth(t: { after(fn: () => Promise<void>): void }, cluster = fakeCluster()) {
  const lines: Record<string, unknown>[] = [];
  const logger = createLogger({ level: "debug", write: (l) => lines.push(JSON.parse(l)) });
  const auth = new KubernetesMetricsAuth(cluster.client);
  const server = createServer(
    withMetricsAuth(
      auth,
      (req, res) => {
        res.end(`served ${req.url}\n`);
      },
      logger,
    ),
  );
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  t.after(() => new Promise((resolve) => server.close(() => resolve())));
  const port = (server.address() as AddressInfo).port;
  const get = (path: string, token?: string) =>
    new Promise<{ status: number; headers: Record<string, unknown>; body: string }>((resolve, reject) => {
      request(
        { host: "127.0.0.1", port, path, headers: token ? { Authorization: `Bearer ${token}` } : {} },
        (res) => {
          let body = "";
          res.on("data", (d) => {
            body += d;
          });
          res.on("end", () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
        },
      )
        .once("error", reject)
        .end();
    });
  return { get, lines, calls: cluster.calls };
}

test("the probes need no token; every other path does, the API as the page", async (t) => {
  const { get, calls } = await serveWithAuth(t);
  const probe = await get("/healthz");
  assert.deepEqual([probe.status, probe.body], [200, "served /healthz\n"]);
  assert.equal((await get("/readyz?verbose")).body, "served /readyz?verbose\n");
  assert.equal(calls.length, 0, "the probes are not reviewed");
  const refused = await get("/metrics");
  assert.equal(refused.status, 401);
  assert.equal(refused.headers["www-authenticate"], 'Bearer realm="cr-status-exporter"');
  assert.equal(refused.headers["content-type"], "text/plain; charset=utf-8");
  assert.equal(refused.body, "a bearer token is required\n");
  assert.equal(refused.headers["content-length"], String(Buffer.byteLength(refused.body)));
  assert.equal((await get("/metrics?x=1", "reader")).body, "served /metrics?x=1\n");
  const api = await get("/api/v1/objects", "reader");
  assert.equal(api.status, 403, "reader may get /metrics but not the page, so not the API either");
  assert.equal(api.headers["www-authenticate"], undefined, "a 403 carries no challenge");
  assert.equal(api.body, 'user "reader" may not get /\n');
  assert.equal((await get("/api/v1/objects", "good")).body, "served /api/v1/objects\n");
  assert.deepEqual(calls.at(-1)?.body.spec.nonResourceAttributes, { path: "/", verb: "get" });
});

test("a refused scrape is logged at debug; a failing check is a 500 logged as a warning", async (t) => {
  const { get, lines } = await serveWithAuth(t);
  await get("/metrics", "stranger");
  const refused = lines.find((l) => l.msg === "refused a scrape");
  assert.deepEqual(
    {
      level: refused?.level,
      component: refused?.component,
      status: refused?.status,
      reason: refused?.reason,
    },
    { level: "debug", component: "metrics-auth", status: 401, reason: "the token is not valid" },
  );
  const failing = await serveWithAuth(t, fakeCluster({ throws: true }));
  const answer = await failing.get("/metrics", "good");
  assert.equal(answer.status, 500);
  assert.equal(answer.headers["content-type"], "text/plain; charset=utf-8");
  assert.equal(answer.body, "authorization check failed\n");
  const warned = failing.lines.find((l) => l.msg === "authorization check failed");
  assert.equal(warned?.level, "warn");
  assert.equal(warned?.error, "connection refused");
  assert.equal(warned?.component, "metrics-auth");
});
