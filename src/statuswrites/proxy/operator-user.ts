// The user entry of the operator's own kubeconfig, for an operator that does
// not authenticate with the pod's service-account token: copied into the
// kubeconfig the proxy writes, so its token, token file, exec credential
// plugin or auth-provider keeps working (client-go turns each into an
// Authorization header, which the proxy forwards). A client certificate
// cannot: TLS ends at the proxy, so it is refused here, at start-up.
import { readFileSync } from "node:fs";
import { dirname, isAbsolute, resolve } from "node:path";
import { parse } from "yaml";

export interface OperatorUser {
  /** The kubeconfig `user` entry, file paths made absolute. */
  user: Record<string, unknown>;
  /** True when the entry holds a secret inline (token, password, auth-provider config). */
  holdsSecret: boolean;
}

const clientCertificateFields = [
  "client-certificate",
  "client-certificate-data",
  "client-key",
  "client-key-data",
];

interface Kubeconfig {
  "current-context"?: unknown;
  contexts?: { name?: unknown; context?: { user?: unknown } }[];
  users?: { name?: unknown; user?: unknown }[];
}

/** The current context's user of the kubeconfig at `path`; `field` names the option in errors. */
export function operatorUserFrom(path: string, field: string): OperatorUser {
  let config: Kubeconfig | null;
  try {
    config = parse(readFileSync(path, "utf8")) as Kubeconfig | null;
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    throw new Error(`${field}: cannot read ${JSON.stringify(path)}: ${reason}`);
  }
  const contextName = config?.["current-context"];
  const userName = config?.contexts?.find((c) => c.name === contextName)?.context?.user;
  const entry = config?.users?.find((u) => u.name === userName)?.user;
  if (typeof entry !== "object" || entry === null || Array.isArray(entry)) {
    throw new Error(
      `${field}: ${JSON.stringify(path)} has no user for current-context ${JSON.stringify(contextName)}`,
    );
  }
  const user = { ...(entry as Record<string, unknown>) };
  const certificate = clientCertificateFields.filter((key) => user[key] !== undefined);
  if (certificate.length > 0) {
    throw new Error(
      `${field}: user ${JSON.stringify(userName)} in ${JSON.stringify(path)} authenticates with a client ` +
        `certificate (${certificate.join(", ")}), which cannot pass through the API proxy: TLS ends at the ` +
        "proxy, so the apiserver would never see it. Use a token, tokenFile or an exec credential plugin.",
    );
  }
  const base = dirname(path);
  if (typeof user.tokenFile === "string" && !isAbsolute(user.tokenFile)) {
    user.tokenFile = resolve(base, user.tokenFile);
  }
  // client-go resolves an exec command against the kubeconfig's directory only when it names a path.
  const exec = user.exec as Record<string, unknown> | undefined;
  if (typeof exec?.command === "string" && exec.command.includes("/") && !isAbsolute(exec.command)) {
    user.exec = { ...exec, command: resolve(base, exec.command) };
  }
  const holdsSecret =
    user.token !== undefined || user.password !== undefined || user["auth-provider"] !== undefined;
  return { user, holdsSecret };
}
