// Validation of the status-write sources: the sidecar API proxy and the audit
// webhook receiver.
import type { Checker } from "./checker.ts";
import type { Config } from "./schema.ts";

const hostPort = /^(\[[0-9a-fA-F:]+\]|[^:]*):\d{1,5}$/;

export function apiProxy(c: Checker, value: unknown): Config["apiProxy"] {
  if (value === undefined) return undefined;
  const raw = c.object("apiProxy", value, [
    "listen",
    "allowNonLoopback",
    "kubeconfigPath",
    "tokenFile",
    "userFromKubeconfig",
    "plainHttp",
  ]);
  if (!raw) return undefined;
  const listen = c.string("apiProxy.listen", raw.listen, hostPort, "host:port");
  if (listen === undefined) {
    if (raw.listen === undefined)
      c.problems.push("apiProxy.listen: required (host:port, e.g. 127.0.0.1:8001)");
    return undefined;
  }
  const tokenFile = c.string("apiProxy.tokenFile", raw.tokenFile);
  const userFromKubeconfig = c.string("apiProxy.userFromKubeconfig", raw.userFromKubeconfig);
  if (tokenFile !== undefined && userFromKubeconfig !== undefined) {
    c.problems.push("apiProxy: give tokenFile or userFromKubeconfig, not both: each is the operator's user");
  }
  return {
    listen,
    allowNonLoopback: c.boolean("apiProxy.allowNonLoopback", raw.allowNonLoopback) ?? false,
    kubeconfigPath: c.string("apiProxy.kubeconfigPath", raw.kubeconfigPath),
    tokenFile,
    userFromKubeconfig,
    plainHttp: c.boolean("apiProxy.plainHttp", raw.plainHttp) ?? false,
  };
}

export function auditReceiver(c: Checker, value: unknown): Config["auditReceiver"] {
  if (value === undefined) return undefined;
  const raw = c.object("auditReceiver", value, [
    "listen",
    "certFile",
    "keyFile",
    "bearerTokenFile",
    "clientCaFile",
  ]);
  if (!raw) return undefined;
  const listen = c.string("auditReceiver.listen", raw.listen, hostPort, "host:port");
  const certFile = c.string("auditReceiver.certFile", raw.certFile);
  const keyFile = c.string("auditReceiver.keyFile", raw.keyFile);
  const bearerTokenFile = c.string("auditReceiver.bearerTokenFile", raw.bearerTokenFile);
  const clientCaFile = c.string("auditReceiver.clientCaFile", raw.clientCaFile);
  for (const [key, v] of [
    ["listen", listen],
    ["certFile", certFile],
    ["keyFile", keyFile],
  ] as const) {
    if (v === undefined && raw[key] === undefined) c.problems.push(`auditReceiver.${key}: required`);
  }
  if (bearerTokenFile === undefined && clientCaFile === undefined) {
    c.problems.push(
      "auditReceiver: give bearerTokenFile or clientCaFile (or both): every request must be authenticated",
    );
  }
  if (!listen || !certFile || !keyFile) return undefined;
  return { listen, certFile, keyFile, bearerTokenFile, clientCaFile };
}
