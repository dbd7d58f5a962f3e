// The proxy's upstream from a kubeconfig: the current cluster's server and CA,
// never its credentials.
import assert from "node:assert/strict";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { KubeConfig } from "@kubernetes/client-node";
import { upstreamOf } from "../../../src/statuswrites/proxy/upstream.ts";

const caPem = "-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n";

function kubeConfig(cluster: { caData?: string; caFile?: string }, current = "test"): KubeConfig {
  const config = new KubeConfig();
  config.loadFromOptions({
    clusters: [{ name: "test", server: "https://10.0.0.1:6443", ...cluster }],
    users: [{ name: "test", token: "s3cret" }],
    contexts: [{ name: "test", cluster: "test", user: "test" }],
    currentContext: current,
  });
  return config;
}

test("the CA comes from certificate-authority-data, decoded", () => {
  const upstream = upstreamOf(kubeConfig({ caData: Buffer.from(caPem).toString("base64") }));
  assert.deepEqual(upstream, { server: "https://10.0.0.1:6443", caPem });
});

test("the CA comes from the certificate-authority file when there is no inline data", (t) => {
  const dir = mkdtempSync(join(tmpdir(), "upstream-"));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const file = join(dir, "ca.pem");
  writeFileSync(file, caPem);
  assert.deepEqual(upstreamOf(kubeConfig({ caFile: file })), { server: "https://10.0.0.1:6443", caPem });
});

test("without a CA the system CAs verify the apiserver; the user's token is never part of the upstream", () => {
  const upstream = upstreamOf(kubeConfig({}));
  assert.deepEqual(upstream, { server: "https://10.0.0.1:6443", caPem: undefined });
});

test("a kubeconfig without a current cluster is an error naming apiProxy", () => {
  assert.throws(
    () => upstreamOf(kubeConfig({}, "missing")),
    /^Error: apiProxy: the kubeconfig has no current cluster$/,
  );
});
