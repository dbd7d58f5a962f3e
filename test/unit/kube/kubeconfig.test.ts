// Loading Kubernetes credentials: a kubeconfig file and its contexts, the
// default search (KUBECONFIG), the error without a cluster, and KubeConfig
// loaded without the generated API and undici (their stand-ins say so when reached).
import assert from "node:assert/strict";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { type TestContext, test } from "node:test";
import * as standIns from "../../../src/kube/client-node-stand-ins.ts";
import { kubeConfigClass, loadKubeConfig } from "../../../src/kube/kubeconfig.ts";

const notLoaded = (what: string): RegExp =>
  new RegExp(
    `^Error: ${what} is not loaded: cr-status-exporter loads KubeConfig for applyToHTTPSOptions only \\(src/kube/kubeconfig\\.ts\\)$`,
  );

function kubeconfigFile(t: TestContext, currentContext: string): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "kubeconfig-test-"));
  t.after(() => fs.rmSync(dir, { recursive: true, force: true }));
  const file = path.join(dir, "config");
  fs.writeFileSync(
    file,
    JSON.stringify({
      apiVersion: "v1",
      kind: "Config",
      clusters: [
        { name: "a", cluster: { server: "https://a.example:6443" } },
        {
          name: "b",
          cluster: { server: "https://b.example:6443", "proxy-url": "http://proxy.example:3128" },
        },
      ],
      users: [{ name: "u", user: { token: "t" } }],
      contexts: [
        { name: "ctx-a", context: { cluster: "a", user: "u" } },
        { name: "ctx-b", context: { cluster: "b", user: "u" } },
      ],
      "current-context": currentContext,
    }),
  );
  return file;
}

test("a kubeconfig file: its current context, or the one asked for", async (t) => {
  const file = kubeconfigFile(t, "ctx-a");
  assert.equal(
    (await loadKubeConfig({ path: file, context: undefined })).getCurrentCluster()?.server,
    "https://a.example:6443",
  );
  assert.equal(
    (await loadKubeConfig({ path: file, context: "ctx-b" })).getCurrentCluster()?.server,
    "https://b.example:6443",
  );
});

test("without a path, KUBECONFIG is read", async (t) => {
  const previous = process.env.KUBECONFIG;
  t.after(() => {
    if (previous === undefined) delete process.env.KUBECONFIG;
    else process.env.KUBECONFIG = previous;
  });
  process.env.KUBECONFIG = kubeconfigFile(t, "ctx-b");
  assert.equal(
    (await loadKubeConfig({ path: undefined, context: undefined })).getCurrentCluster()?.server,
    "https://b.example:6443",
  );
});

test("a kubeconfig without a current cluster is refused with what to set", async (t) => {
  await assert.rejects(
    loadKubeConfig({ path: kubeconfigFile(t, ""), context: undefined }),
    /^Error: no Kubernetes cluster configured: set KUBECONFIG or --kubeconfig, or run inside a pod$/,
  );
});

test("KubeConfig comes without the generated API client and undici: reaching either says so", async (t) => {
  const kubeConfig = await loadKubeConfig({ path: kubeconfigFile(t, "ctx-a"), context: undefined });
  assert.equal(await kubeConfigClass(), kubeConfig.constructor, "loaded once");
  assert.throws(
    () => kubeConfig.makeApiClient(class {} as never),
    notLoaded("the generated Kubernetes API client"),
  );
  // The fetch-based API client's dispatcher: an undici Agent for TLS material, a ProxyAgent for a proxy-url.
  const dispatcher = (): unknown =>
    (
      kubeConfig as unknown as { createDispatcher(cluster: unknown, agentOptions: object): unknown }
    ).createDispatcher(kubeConfig.getCurrentCluster(), { ca: "pem" });
  assert.throws(dispatcher, notLoaded("undici"));
  kubeConfig.setCurrentContext("ctx-b");
  assert.throws(dispatcher, notLoaded("undici"));
  // What applyToHTTPSOptions needs is all there.
  const options: { headers?: Record<string, string> } = {};
  await kubeConfig.applyToHTTPSOptions(options);
  assert.equal(options.headers?.Authorization, "Bearer t");
});

test("each stand-in throws when reached", () => {
  assert.throws(() => standIns.createConfiguration(), notLoaded("the generated Kubernetes API client"));
  assert.throws(() => new standIns.ServerConfiguration(), notLoaded("the generated Kubernetes API client"));
  assert.throws(() => new standIns.Agent(), notLoaded("undici"));
  assert.throws(() => new standIns.ProxyAgent(), notLoaded("undici"));
});
