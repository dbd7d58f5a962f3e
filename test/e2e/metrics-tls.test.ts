// /metrics over HTTPS from an exporter-toolkit web configuration file, with
// Kubernetes authorization: a real Prometheus (3.x, from the Go module proxy) scrapes the
// exporter with the CA, a client certificate and the bearer token of a user
// that the testbed's RBAC allows to `get` /metrics. Plain HTTP is refused, a
// token RBAC does not allow gets 403, and a rotated serving certificate is
// picked up without a restart while Prometheus keeps scraping.
import assert from "node:assert/strict";
import { mkdtempSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { request } from "node:https";
import { connect as netConnect } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, test } from "node:test";
import { connect as tlsConnect } from "node:tls";
import { stringify } from "yaml";
import {
  condition,
  createCr,
  installCrd,
  patchStatus,
  refFor,
  type TestUser,
  useControlPlane,
} from "../cluster/index.ts";
import {
  makeTestCertificates,
  reissueServerCertificate,
  type TestCertificates,
} from "../helpers/tls-certs.ts";
import { PrometheusServer } from "../prometheus/index.ts";
import { runCli, table } from "../support/cli.ts";
import { type ExporterHandle, eventually, runExporter } from "../support/exporter.ts";

const JOB = "cr-status-exporter";
const testbed = useControlPlane();
let dir = "";
let certs: TestCertificates;
let exporter: ExporterHandle;
let prometheus: PrometheusServer;
let scraper: TestUser;
let stranger: TestUser;
let ns = "";

function file(name: string, content: string): string {
  const path = join(dir, name);
  // Written next to the target and renamed over it, as a Secret update swaps files.
  writeFileSync(`${path}.tmp`, content);
  renameSync(`${path}.tmp`, path);
  return path;
}

interface Reply {
  status: number;
  body: string;
}

function httpsGet(
  url: string,
  options: { token?: string; cert?: string; key?: string; ca?: string } = {},
): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const req = request(
      url,
      {
        ca: options.ca ?? certs.caPem,
        ...(options.cert && { cert: options.cert, key: options.key }),
        headers: options.token ? { Authorization: `Bearer ${options.token}` } : {},
        agent: false,
        timeout: 10_000,
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
    req.on("timeout", () => req.destroy(new Error("timeout")));
    req.end();
  });
}

/** The serial number of the certificate the server presents now. */
function servedSerial(port: number): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = tlsConnect({ host: "127.0.0.1", port, ca: certs.caPem, servername: "localhost" }, () => {
      const serial = socket.getPeerCertificate().serialNumber;
      socket.end();
      resolve(serial);
    });
    socket.on("error", reject);
  });
}

/** A ClusterRole allowing `get` on these non-resource URLs, bound to the user. */
async function allowGet(user: TestUser, name: string, nonResourceURLs: string[]): Promise<void> {
  const rest = testbed.plane.admin.rest;
  await rest.create("/apis/rbac.authorization.k8s.io/v1/clusterroles", {
    metadata: { name },
    rules: [{ nonResourceURLs, verbs: ["get"] }],
  });
  await rest.create("/apis/rbac.authorization.k8s.io/v1/clusterrolebindings", {
    metadata: { name },
    roleRef: { apiGroup: "rbac.authorization.k8s.io", kind: "ClusterRole", name },
    subjects: [{ apiGroup: "rbac.authorization.k8s.io", kind: "User", name: user.name }],
  });
  await testbed.plane.untilAllowed(user, {
    nonResourceAttributes: { path: nonResourceURLs[0], verb: "get" },
  });
}

before(async () => {
  const plane = await testbed.ready();
  const rest = plane.admin.rest;
  await installCrd(rest, "widgets");
  ns = await plane.createNamespace("tls");
  const ref = refFor("widgets", ns, "w1");
  await createCr(rest, ref, "w1", { size: 1 });
  await patchStatus(rest, ref, {
    observedGeneration: 1,
    conditions: [condition("Ready", "True", "Ok", "", 1)],
  });

  // Prometheus' identity: a user RBAC allows to get /metrics (as kube-prometheus-stack's Prometheus role does).
  scraper = plane.mintUser();
  stranger = plane.mintUser();
  await allowGet(scraper, "metrics-reader", ["/metrics"]);

  dir = mkdtempSync(join(tmpdir(), "cr-metrics-tls-"));
  certs = makeTestCertificates("prometheus");
  file("tls.crt", certs.serverCertPem);
  file("tls.key", certs.serverKeyPem);
  file("ca.crt", certs.caPem);
  file("client.crt", certs.clientCertPem);
  file("client.key", certs.clientKeyPem);
  file("token", scraper.token);
  // Relative paths are resolved against the web configuration file's directory.
  const webConfig = file(
    "web-config.yml",
    stringify({
      tls_server_config: {
        cert_file: "tls.crt",
        key_file: "tls.key",
        client_ca_file: "ca.crt",
        // Probes (the kubelet presents no certificate) pass; a certificate that is presented must be trusted.
        client_auth_type: "VerifyClientCertIfGiven",
        min_version: "TLS12",
      },
    }),
  );
  exporter = await runExporter(plane.kubeconfigPath, {
    resources: [{ group: "example.com", resource: "widgets" }],
    webConfigFile: webConfig,
    metricsAuth: "kubernetes",
  });
  assert.match(exporter.exporter.url, /^https:\/\/127\.0\.0\.1:\d+$/);
  prometheus = await PrometheusServer.start({
    scrape: [
      {
        job: JOB,
        targets: [new URL(exporter.exporter.url).host],
        scheme: "https",
        tls: {
          caFile: join(dir, "ca.crt"),
          certFile: join(dir, "client.crt"),
          keyFile: join(dir, "client.key"),
        },
        bearerTokenFile: join(dir, "token"),
      },
    ],
    scrapeInterval: "1s",
    major: "3",
  });
});

after(async () => {
  await prometheus?.stop();
  await exporter?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

test("a real Prometheus scrapes /metrics over HTTPS with the CA, a client certificate and an allowed token", async () => {
  const series = await prometheus.waitFor(
    "Prometheus to scrape the widget over HTTPS",
    async () => {
      const result = await prometheus.query(
        `cr_condition{job="${JOB}", name="w1", type="Ready", status="True"}`,
      );
      return result.length === 1 ? result : undefined;
    },
    30_000,
  );
  assert.equal(series[0]?.metric.namespace, ns);
  const [target] = await prometheus.targets();
  assert.ok(target);
  assert.equal(target.health, "up", target.lastError);
  assert.match(target.scrapeUrl, /^https:\/\/127\.0\.0\.1:\d+\/metrics$/);
});

test("plain HTTP to the TLS port is refused: no answer in clear text", async () => {
  const { port } = new URL(exporter.exporter.url);
  await assert.rejects(fetch(`http://127.0.0.1:${port}/metrics`));
  // Byte level: a clear-text request never gets an HTTP response back.
  const answer = await new Promise<string>((resolve) => {
    let received = "";
    const socket = netConnect(Number(port), "127.0.0.1", () =>
      socket.write("GET /metrics HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"),
    );
    socket.setEncoding("latin1");
    socket.on("data", (chunk: string) => {
      received += chunk;
    });
    socket.on("close", () => resolve(received));
    socket.on("error", () => resolve(received));
    socket.setTimeout(5_000, () => socket.destroy());
  });
  assert.doesNotMatch(answer, /^HTTP\//);
  assert.doesNotMatch(answer, /cr_condition/);
});

test("/metrics (and every path but the probes') needs a token RBAC allows; /healthz and /readyz stay open", async () => {
  const url = exporter.exporter.url;
  assert.equal((await httpsGet(`${url}/metrics`)).status, 401);
  assert.equal((await httpsGet(`${url}/metrics`, { token: "not-a-token" })).status, 401);
  const refused = await httpsGet(`${url}/metrics`, { token: stranger.token });
  assert.equal(refused.status, 403);
  assert.match(refused.body, new RegExp(`user "${stranger.name}" may not get /metrics`));
  const allowed = await httpsGet(`${url}/metrics`, { token: scraper.token });
  assert.equal(allowed.status, 200);
  assert.match(allowed.body, /^cr_condition\{/m);
  assert.equal((await httpsGet(`${url}/healthz`)).status, 200);
  assert.equal((await httpsGet(`${url}/readyz`)).status, 200);
  // Any other path is protected too (its own non-resource URL), existing or not.
  assert.equal((await httpsGet(`${url}/anything-else`)).status, 401);
  assert.equal((await httpsGet(`${url}/anything-else`, { token: scraper.token })).status, 403);
  // A presented certificate from another CA is not trusted: the connection is dropped.
  const other = makeTestCertificates("intruder");
  await assert.rejects(
    httpsGet(`${url}/healthz`, { cert: other.clientCertPem, key: other.clientKeyPem, token: scraper.token }),
  );
});

test("a rotated certificate is served without a restart, and Prometheus keeps scraping", async () => {
  const port = Number(new URL(exporter.exporter.url).port);
  const before = await servedSerial(port);
  const rotated = reissueServerCertificate(certs);
  const rotatedAt = Date.now();
  // The certificate lands first: until the key follows, the pair does not match and the old one keeps serving.
  file("tls.crt", rotated.certPem);
  file("tls.key", rotated.keyPem);
  const after = await eventually(
    "the exporter to serve the rotated certificate",
    async () => {
      const serial = await servedSerial(port);
      return serial !== before ? serial : undefined;
    },
    20_000,
  );
  assert.notEqual(after, before);
  const target = await prometheus.waitFor(
    "a successful scrape after the rotation",
    async () => {
      const [t] = await prometheus.targets();
      return t && Date.parse(t.lastScrape) > rotatedAt + 1000 && t.health === "up" ? t : undefined;
    },
    20_000,
  );
  assert.equal(target.lastError, "");
  const logs = exporter.logs.map((l) => JSON.parse(l) as { msg: string; serial?: string });
  assert.ok(logs.some((l) => l.msg === "TLS certificate reloaded" && l.serial === after));
});

test("the status page and its API sit behind the same TLS and authorization as /metrics", async () => {
  const url = exporter.exporter.url;
  const reader = testbed.plane.mintUser();
  // What docs/api.md tells operators to grant: get on /, which covers the page and its API.
  await allowGet(reader, "status-page-reader", ["/"]);
  for (const path of ["/", "/api/v1/objects", "/api/v1/summary", "/api/v1/objects/some-uid"]) {
    assert.equal((await httpsGet(`${url}${path}`)).status, 401, `${path} without a token`);
    // The scraper is authenticated, so Kubernetes' default system:discovery role lets it get /api/*:
    // the API is authorized as the page, which no default role grants.
    const refused = await httpsGet(`${url}${path}`, { token: scraper.token });
    assert.equal(refused.status, 403, `${path} with a token allowed /metrics only`);
    assert.match(refused.body, new RegExp(`user "${scraper.name}" may not get /\n`));
  }
  assert.equal((await httpsGet(`${url}/metrics`, { token: reader.token })).status, 403);
  const page = await httpsGet(`${url}/?notReady=`, { token: reader.token });
  assert.equal(page.status, 200, page.body);
  assert.match(page.body, /<th scope="row">w1<\/th>/);
  const objects = await httpsGet(`${url}/api/v1/objects?namespace=${ns}`, { token: reader.token });
  assert.equal(objects.status, 200, objects.body);
  const [item] = (JSON.parse(objects.body) as { items: { name: string; uid: string }[] }).items;
  assert.equal(item?.name, "w1");
  const detail = await httpsGet(`${url}/api/v1/objects/${item?.uid}`, { token: reader.token });
  assert.equal(detail.status, 200, "/api/* covers the object URLs");
});

test("`status --server https://…` reads the API with the CA and a token file; without the token it says so", async () => {
  const url = exporter.exporter.url;
  const reader = testbed.plane.mintUser();
  await allowGet(reader, "status-cli-reader", ["/"]);
  const tokenFile = file("reader-token", `${reader.token}\n`);
  const base = ["status", "--server", url, "--ca-file", join(dir, "ca.crt"), "-n", ns];
  const listed = await runCli([...base, "--token-file", tokenFile]);
  assert.equal(listed.code, 0, listed.stderr);
  assert.equal(table(listed.stdout).get("w1")?.READY, "True", listed.stdout);
  const anonymous = await runCli(base);
  assert.equal(anonymous.code, 2);
  assert.match(anonymous.stderr, /HTTP 401.*--token-file/);
  const scraperFile = file("scraper-token", scraper.token);
  const refused = await runCli([...base, "--token-file", scraperFile]);
  assert.equal(refused.code, 2);
  assert.match(refused.stderr, new RegExp(`HTTP 403: .*user "${scraper.name}" may not get /`));
});
