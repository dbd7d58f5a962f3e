// The status-write sources' sections: the sidecar API proxy and the audit
// webhook receiver (both off unless given).
import type { Checker, Raw } from "./checker.ts";
import { hostPort, type OptionValues, section, text, toggle } from "./option.ts";

const apiProxyTable = {
  listen: text(
    "listen",
    "Where the proxy listens (required; loopback only unless allowNonLoopback).",
    hostPort,
  ),
  allowNonLoopback: toggle("allowNonLoopback", "Allow a listen address that is not loopback.", false),
  kubeconfigPath: text(
    "kubeconfigPath",
    "Where to write the kubeconfig that points the operator at the proxy.",
  ),
  tokenFile: text(
    "tokenFile",
    "The token file that kubeconfig names. Unset: the pod's service-account token.",
  ),
  userFromKubeconfig: text(
    "userFromKubeconfig",
    "A kubeconfig whose current user (token, exec plugin, auth-provider; never a client certificate) that kubeconfig uses instead of tokenFile.",
  ),
  plainHttp: toggle(
    "plainHttp",
    "Serve plain HTTP instead of TLS (client-go then sends no credentials).",
    false,
  ),
};

/** The sidecar API proxy that counts the operator's status writes. */
export type ApiProxyConfig = OptionValues<typeof apiProxyTable> & { listen: string };

function apiProxyChecked(
  c: Checker,
  path: string,
  values: OptionValues<typeof apiProxyTable>,
  raw: Raw,
): ApiProxyConfig | undefined {
  const { listen } = values;
  if (listen === undefined) {
    if (raw.listen === undefined)
      c.problems.push(`${path}.listen: required (host:port, e.g. 127.0.0.1:8001)`);
    return undefined;
  }
  if (values.tokenFile !== undefined && values.userFromKubeconfig !== undefined) {
    c.problems.push(`${path}: give tokenFile or userFromKubeconfig, not both: each is the operator's user`);
  }
  return { ...values, listen };
}

export const apiProxySection = section<typeof apiProxyTable, ApiProxyConfig | undefined>({
  key: "apiProxy",
  doc: "The sidecar API proxy counting the operator's status writes, failures included (docs/status-writes.md). Off unless given.",
  table: apiProxyTable,
  default: undefined,
  finish: apiProxyChecked,
});

const auditReceiverTable = {
  listen: text("listen", "Where the receiver listens (required; HTTPS).", hostPort),
  certFile: text("certFile", "Its serving certificate (required)."),
  keyFile: text("keyFile", "Its serving key (required)."),
  bearerTokenFile: text("bearerTokenFile", "A bearer token the apiserver's webhook must present."),
  clientCaFile: text("clientCaFile", "Or: the CA of the client certificate it must present."),
};

/** The audit webhook receiver. */
export type AuditReceiverConfig = OptionValues<typeof auditReceiverTable> & {
  listen: string;
  certFile: string;
  keyFile: string;
};

function auditReceiverChecked(
  c: Checker,
  path: string,
  values: OptionValues<typeof auditReceiverTable>,
  raw: Raw,
): AuditReceiverConfig | undefined {
  const { listen, certFile, keyFile } = values;
  for (const [key, value] of Object.entries({ listen, certFile, keyFile })) {
    if (value === undefined && raw[key] === undefined) c.problems.push(`${path}.${key}: required`);
  }
  if (values.bearerTokenFile === undefined && values.clientCaFile === undefined) {
    c.problems.push(
      `${path}: give bearerTokenFile or clientCaFile (or both): every request must be authenticated`,
    );
  }
  if (!listen || !certFile || !keyFile) return undefined;
  return { ...values, listen, certFile, keyFile };
}

export const auditReceiverSection = section<typeof auditReceiverTable, AuditReceiverConfig | undefined>({
  key: "auditReceiver",
  doc: "The audit webhook receiver counting status writes cluster-wide (docs/status-writes.md). Off unless given.",
  table: auditReceiverTable,
  default: undefined,
  finish: auditReceiverChecked,
});
