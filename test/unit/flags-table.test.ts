// The flag table is the one list of flags: --help documents exactly its
// flags, and each flag with a configuration key lands there.
import assert from "node:assert/strict";
import { test } from "node:test";
import { flagNames, flagOverrides, parseFlags, usage } from "../../src/config/flags.ts";

test("--help documents every flag of the table, and no other", () => {
  const section = usage.slice(usage.indexOf("Flags:"), usage.indexOf("Environment:"));
  const documented = new Set([...section.matchAll(/--([a-z][a-z-]*)/g)].map((m) => m[1]));
  assert.deepEqual([...documented].sort(), [...flagNames].sort());
  assert.match(section, /-h, --help/);
});

test("each configuration flag sets its key; a boolean only when given; whole numbers become numbers", () => {
  const flags = parseFlags([
    "--listen=127.0.0.1:1",
    "--metric-prefix=x_",
    "--log-level=debug",
    "--tracing-endpoint=http://c:4318",
    "--tracing-traces-endpoint=http://c:4318/v1/traces",
    "--api-proxy-listen=127.0.0.1:2",
    "--api-proxy-allow-non-loopback",
    "--api-proxy-kubeconfig=/k",
    "--api-proxy-user-from-kubeconfig=/u",
    "--api-proxy-plain-http",
    "--audit-listen=127.0.0.1:3",
    "--audit-tls-cert=/c",
    "--audit-tls-key=/k",
    "--audit-token-file=/t",
    "--audit-client-ca=/ca",
    "--web-config-file=/w",
    "--shard=1",
    "--total-shards=x4",
    "--pod=p-0",
    "--pod-namespace=ns",
    "--metric-denylist=a, b",
  ]);
  assert.deepEqual(flagOverrides(flags), {
    listen: "127.0.0.1:1",
    metricPrefix: "x_",
    logLevel: "debug",
    tracing: { endpoint: "http://c:4318", tracesEndpoint: "http://c:4318/v1/traces" },
    apiProxy: {
      listen: "127.0.0.1:2",
      allowNonLoopback: true,
      kubeconfigPath: "/k",
      userFromKubeconfig: "/u",
      plainHttp: true,
    },
    auditReceiver: {
      listen: "127.0.0.1:3",
      certFile: "/c",
      keyFile: "/k",
      bearerTokenFile: "/t",
      clientCaFile: "/ca",
    },
    webConfigFile: "/w",
    sharding: { shard: 1, totalShards: "x4", pod: "p-0", podNamespace: "ns" },
    metrics: { allow: undefined, deny: ["a", "b"], optIn: undefined },
  });
  assert.deepEqual(flagOverrides(parseFlags([])), {}, "no flag, no override");
  const plain = parseFlags(["--config", "c.yaml", "-h"]);
  assert.equal(plain.config, "c.yaml");
  assert.equal(plain.help, true);
  assert.equal(plain.version, false);
  assert.equal(plain.apiProxyPlainHttp, false);
});
