// Command-line flags. They override the matching configuration-file fields.
import { parseArgs } from "node:util";
import { ConfigError } from "./validate.ts";

export interface Flags {
  config: string | undefined;
  kubeconfig: string | undefined;
  context: string | undefined;
  listen: string | undefined;
  metricPrefix: string | undefined;
  logLevel: string | undefined;
  tracingEndpoint: string | undefined;
  apiProxyListen: string | undefined;
  apiProxyAllowNonLoopback: boolean;
  apiProxyKubeconfig: string | undefined;
  apiProxyPlainHttp: boolean;
  apiProxyUserFromKubeconfig: string | undefined;
  auditListen: string | undefined;
  auditTlsCert: string | undefined;
  auditTlsKey: string | undefined;
  auditTokenFile: string | undefined;
  auditClientCa: string | undefined;
  help: boolean;
  version: boolean;
}

export const usage = `Usage: cr-status-exporter [flags]
       cr-status-exporter status [flags]    what is not Ready, from the cluster or a running exporter
       cr-status-exporter explain [flags]   which CRDs are watched and the series they would cost

  --config PATH            YAML configuration file (see config.example.yaml); reloaded when it changes
  --kubeconfig PATH        kubeconfig to use (default: $KUBECONFIG, ~/.kube/config, or in-cluster)
  --context NAME           kubeconfig context to use
  --listen HOST:PORT       where to serve /metrics, /healthz, /readyz (default 127.0.0.1:9184)
  --metric-prefix PREFIX   prefix of every metric name (default cr_)
  --log-level LEVEL        debug, info, warn or error (default info)
  --tracing-endpoint URL   OTLP/HTTP traces endpoint (default: OTEL_EXPORTER_OTLP_* variables; off when unset)
  --api-proxy-listen HOST:PORT
                           run the sidecar API proxy that counts status writes (loopback only unless
                           --api-proxy-allow-non-loopback)
  --api-proxy-allow-non-loopback
  --api-proxy-kubeconfig PATH
                           write a kubeconfig pointing the operator at the proxy
  --api-proxy-user-from-kubeconfig PATH
                           in that kubeconfig, use the current user of this one (token, exec plugin, …;
                           not a client certificate) instead of the pod's service-account token
  --api-proxy-plain-http   serve plain HTTP instead of TLS (client-go, so kubectl and
                           controller-runtime, then sends no credentials: do not use with them)
  --audit-listen HOST:PORT run the audit webhook receiver (HTTPS)
  --audit-tls-cert PATH, --audit-tls-key PATH
                           its serving certificate and key
  --audit-token-file PATH  bearer token the apiserver's webhook must present
  --audit-client-ca PATH   or: CA of the client certificate it must present
  --version                print the version and exit
  --help                   print this help and exit
`;

export function parseFlags(argv: string[]): Flags {
  try {
    const { values } = parseArgs({
      args: argv,
      strict: true,
      allowPositionals: false,
      options: {
        config: { type: "string" },
        kubeconfig: { type: "string" },
        context: { type: "string" },
        listen: { type: "string" },
        "metric-prefix": { type: "string" },
        "log-level": { type: "string" },
        "tracing-endpoint": { type: "string" },
        "api-proxy-listen": { type: "string" },
        "api-proxy-allow-non-loopback": { type: "boolean", default: false },
        "api-proxy-kubeconfig": { type: "string" },
        "api-proxy-plain-http": { type: "boolean", default: false },
        "api-proxy-user-from-kubeconfig": { type: "string" },
        "audit-listen": { type: "string" },
        "audit-tls-cert": { type: "string" },
        "audit-tls-key": { type: "string" },
        "audit-token-file": { type: "string" },
        "audit-client-ca": { type: "string" },
        help: { type: "boolean", default: false },
        version: { type: "boolean", default: false },
      },
    });
    return {
      config: values.config,
      kubeconfig: values.kubeconfig,
      context: values.context,
      listen: values.listen,
      metricPrefix: values["metric-prefix"],
      logLevel: values["log-level"],
      tracingEndpoint: values["tracing-endpoint"],
      apiProxyListen: values["api-proxy-listen"],
      apiProxyAllowNonLoopback: values["api-proxy-allow-non-loopback"] ?? false,
      apiProxyKubeconfig: values["api-proxy-kubeconfig"],
      apiProxyPlainHttp: values["api-proxy-plain-http"] ?? false,
      apiProxyUserFromKubeconfig: values["api-proxy-user-from-kubeconfig"],
      auditListen: values["audit-listen"],
      auditTlsCert: values["audit-tls-cert"],
      auditTlsKey: values["audit-tls-key"],
      auditTokenFile: values["audit-token-file"],
      auditClientCa: values["audit-client-ca"],
      help: values.help ?? false,
      version: values.version ?? false,
    };
  } catch (error) {
    throw new ConfigError([`command line: ${(error as Error).message}`]);
  }
}

/** The flags as raw configuration, laid over the file's before validation. */
export function flagOverrides(flags: Flags): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  const set = (target: Record<string, unknown>, key: string, value: unknown): void => {
    if (value !== undefined) target[key] = value;
  };
  set(out, "listen", flags.listen);
  set(out, "metricPrefix", flags.metricPrefix);
  set(out, "logLevel", flags.logLevel);
  if (flags.tracingEndpoint !== undefined) out.tracing = { endpoint: flags.tracingEndpoint };
  const proxy: Record<string, unknown> = {};
  set(proxy, "listen", flags.apiProxyListen);
  if (flags.apiProxyAllowNonLoopback) proxy.allowNonLoopback = true;
  set(proxy, "kubeconfigPath", flags.apiProxyKubeconfig);
  if (flags.apiProxyPlainHttp) proxy.plainHttp = true;
  set(proxy, "userFromKubeconfig", flags.apiProxyUserFromKubeconfig);
  if (Object.keys(proxy).length > 0) out.apiProxy = proxy;
  const audit: Record<string, unknown> = {};
  set(audit, "listen", flags.auditListen);
  set(audit, "certFile", flags.auditTlsCert);
  set(audit, "keyFile", flags.auditTlsKey);
  set(audit, "bearerTokenFile", flags.auditTokenFile);
  set(audit, "clientCaFile", flags.auditClientCa);
  if (Object.keys(audit).length > 0) out.auditReceiver = audit;
  return out;
}
