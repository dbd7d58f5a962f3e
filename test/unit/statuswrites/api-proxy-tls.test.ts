// The proxy's listener: TLS by default with the kubeconfig trusting it,
// credentials forwarded as sent, a client certificate refused with a reason
// instead of arriving anonymous, plain HTTP only when asked. The upstream is a
// small HTTPS server that echoes the Authorization it received; kubectl
// against a real apiserver is in the end-to-end test.
import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { createServer, request, type Server } from "node:https";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { setTimeout as sleep } from "node:timers/promises";
import { Registry } from "@prometheus-io/client";
import { parse } from "yaml";
import { createLogger } from "../../../src/log.ts";
import { staticKindResolver } from "../../../src/statuswrites/kinds.ts";
import { createStatusWriteMetrics } from "../../../src/statuswrites/metrics.ts";
import { type ApiProxy, startApiProxy } from "../../../src/statuswrites/proxy/api-proxy.ts";
import { HttpJsonClient } from "../../helpers/http-json.ts";
import { makeTestCertificates } from "../../helpers/tls-certs.ts";

const directory = mkdtempSync(join(tmpdir(), "cr-proxy-listener-"));
const certs = makeTestCertificates("operator");
let upstream: Server;
let upstreamUrl: string;
const proxies: ApiProxy[] = [];
const logLines: string[] = [];
const logger = createLogger({ level: "debug", write: (line) => logLines.push(line) });

before(async () => {
  upstream = createServer({ cert: certs.serverCertPem, key: certs.serverKeyPem }, (req, res) => {
    req.resume();
    const body = JSON.stringify({ authorization: req.headers.authorization ?? null });
    res.writeHead(200, { "Content-Type": "application/json" });
    res.end(body);
  });
  await new Promise<void>((resolve) => upstream.listen(0, "127.0.0.1", resolve));
  upstreamUrl = `https://127.0.0.1:${(upstream.address() as AddressInfo).port}`;
});

after(async () => {
  await Promise.all(proxies.map((proxy) => proxy.close()));
  upstream.closeAllConnections();
  await new Promise((resolve) => upstream.close(resolve));
  rmSync(directory, { recursive: true, force: true });
});

async function start(options: { kubeconfigPath?: string; plainHttp?: boolean; listen?: string }) {
  const registry = new Registry();
  const proxy = await startApiProxy(
    {
      listen: options.listen ?? "127.0.0.1:0",
      upstream: { server: upstreamUrl, caPem: certs.caPem },
      kubeconfigPath: options.kubeconfigPath,
      tokenFile: "/operator/token",
      plainHttp: options.plainHttp,
      kinds: staticKindResolver([{ group: "example.com", resource: "widgets", kind: "Widget" }], ["ns1"]),
    },
    createStatusWriteMetrics(registry),
    logger,
  );
  proxies.push(proxy);
  return { proxy, registry };
}

interface WrittenKubeconfig {
  clusters: { cluster: { server: string; "certificate-authority-data"?: string } }[];
  users: { user: Record<string, unknown> }[];
}

test("TLS by default: the written kubeconfig names the https URL and the CA that verifies it", async () => {
  const kubeconfigPath = join(directory, "kubeconfig");
  const { proxy } = await start({ kubeconfigPath });
  assert.match(proxy.url, /^https:\/\/127\.0\.0\.1:\d+$/);
  const written = parse(readFileSync(kubeconfigPath, "utf8")) as WrittenKubeconfig;
  const cluster = written.clusters[0]?.cluster;
  assert.equal(cluster?.server, proxy.url);
  const caPem = Buffer.from(cluster?.["certificate-authority-data"] ?? "", "base64").toString();
  assert.equal(caPem, proxy.caPem);
  assert.deepEqual(written.users[0]?.user, { tokenFile: "/operator/token" });

  const client = new HttpJsonClient(proxy.url, "operator-token", caPem);
  try {
    const response = await client.send<{ authorization: string }>("GET", "/api/v1/namespaces");
    assert.equal(response.status, 200);
    assert.equal(response.body.authorization, "Bearer operator-token", "forwarded as sent");
  } finally {
    client.close();
  }
  // Without the kubeconfig's CA the proxy is not trusted.
  const untrusting = new HttpJsonClient(proxy.url, "operator-token");
  await assert.rejects(
    untrusting.send("GET", "/api/v1/namespaces"),
    /unable to verify the first certificate/,
  );
  untrusting.close();
});

test("a restarted proxy keeps its CA, so an operator that read the old kubeconfig still trusts it", async () => {
  const kubeconfigPath = join(directory, "restarted-kubeconfig");
  const first = await start({ kubeconfigPath });
  await first.proxy.close();
  const second = await start({ kubeconfigPath });
  assert.equal(second.proxy.caPem, first.proxy.caPem);
  assert.ok(logLines.some((line) => line.includes("api proxy reuses its serving certificate")));
});

test("a client certificate without a token is refused with the reason, and counted as Forbidden", async () => {
  const { proxy, registry } = await start({});
  const send = (headers: Record<string, string>) =>
    new Promise<{ status: number; body: string }>((resolve, reject) => {
      const req = request(
        `${proxy.url}/apis/example.com/v1/namespaces/ns1/widgets/w1/status`,
        {
          method: "PATCH",
          agent: false,
          ca: proxy.caPem,
          cert: certs.clientCertPem,
          key: certs.clientKeyPem,
          headers: { "Content-Type": "application/merge-patch+json", ...headers },
        },
        (res) => {
          let body = "";
          res.setEncoding("utf8");
          res.on("data", (chunk: string) => {
            body += chunk;
          });
          res.on("end", () => resolve({ status: res.statusCode ?? 0, body }));
        },
      );
      req.on("error", reject);
      req.end("{}");
    });
  const refused = await send({});
  assert.equal(refused.status, 401);
  const status = JSON.parse(refused.body) as { kind: string; reason: string; message: string };
  assert.equal(status.kind, "Status");
  assert.equal(status.reason, "Unauthorized");
  assert.match(status.message, /client certificate cannot be forwarded/);
  assert.ok(
    logLines.some((line) => line.includes('"level":"warn"') && line.includes("client certificate")),
    "a warning in the log says why",
  );
  // With a token as well, the token is what the apiserver gets.
  const withToken = await send({ Authorization: "Bearer operator-token" });
  assert.equal(withToken.status, 200);
  assert.equal(JSON.parse(withToken.body).authorization, "Bearer operator-token");
  await sleep(10);
  assert.match(
    await registry.metrics(),
    /cr_status_update_failures_total\{group="example.com",kind="Widget",namespace="ns1",reason="Forbidden",source="proxy"\} 1/,
  );
});

test("plain HTTP only when asked: an http URL, no CA in the kubeconfig, and a warning", async () => {
  const kubeconfigPath = join(directory, "plain-kubeconfig");
  const { proxy } = await start({ kubeconfigPath, plainHttp: true });
  assert.match(proxy.url, /^http:\/\/127\.0\.0\.1:\d+$/);
  assert.equal(proxy.caPem, undefined);
  const written = parse(readFileSync(kubeconfigPath, "utf8")) as WrittenKubeconfig;
  assert.deepEqual(written.clusters[0]?.cluster, { server: proxy.url });
  assert.ok(logLines.some((line) => line.includes("serves plain HTTP: client-go")));
  const client = new HttpJsonClient(proxy.url, "operator-token");
  try {
    assert.equal((await client.send("GET", "/api/v1/namespaces")).status, 200);
  } finally {
    client.close();
  }
});

test("an all-interfaces listener (explicitly allowed) is reached over loopback in the kubeconfig", async () => {
  const proxy = await startApiProxy(
    {
      listen: "0.0.0.0:0",
      allowNonLoopback: true,
      upstream: { server: upstreamUrl, caPem: certs.caPem },
    },
    createStatusWriteMetrics(new Registry()),
    logger,
  );
  proxies.push(proxy);
  assert.match(proxy.url, /^https:\/\/127\.0\.0\.1:\d+$/);
  const client = new HttpJsonClient(proxy.url, "t", proxy.caPem);
  try {
    assert.equal((await client.send("GET", "/version")).status, 200);
  } finally {
    client.close();
  }
});

test("client certificates are warned about once per proxy, then logged at debug, with the method and the path without its query", async () => {
  const { proxy } = await start({});
  const from = logLines.length;
  const send = (headers: Record<string, string>, cert = true) =>
    new Promise<number>((resolve, reject) => {
      const req = request(
        `${proxy.url}/apis/example.com/v1/namespaces/ns1/widgets/w1/status?fieldManager=x`,
        {
          method: "PUT",
          agent: false,
          ca: proxy.caPem,
          ...(cert && { cert: certs.clientCertPem, key: certs.clientKeyPem }),
          headers,
        },
        (res) => {
          res.resume();
          res.on("end", () => resolve(res.statusCode ?? 0));
        },
      );
      req.on("error", reject);
      req.end("{}");
    });
  assert.equal(await send({}, false), 200, "no certificate: nothing to say");
  assert.equal(await send({ Authorization: "Bearer t" }), 200);
  assert.equal(await send({}), 401);
  assert.equal(await send({}), 401);
  const said = logLines
    .slice(from)
    .map((line) => JSON.parse(line) as Record<string, unknown>)
    .filter((l) => String(l.msg).includes("client certificate"))
    .map((l) => [l.level, l.msg, l.method, l.path]);
  const path = "/apis/example.com/v1/namespaces/ns1/widgets/w1/status";
  assert.deepEqual(said, [
    [
      "warn",
      "client certificate ignored: it cannot be forwarded through the proxy; the request's token is forwarded instead",
      "PUT",
      path,
    ],
    [
      "debug",
      "request with a client certificate and no token refused: a client certificate cannot be forwarded through the proxy",
      "PUT",
      path,
    ],
    [
      "debug",
      "request with a client certificate and no token refused: a client certificate cannot be forwarded through the proxy",
      "PUT",
      path,
    ],
  ]);
});
