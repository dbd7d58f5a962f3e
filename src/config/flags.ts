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
  metricAllowlist: string | undefined;
  metricDenylist: string | undefined;
  metricOptInList: string | undefined;
  tracingEndpoint: string | undefined;
  tracingTracesEndpoint: string | undefined;
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
  webConfigFile: string | undefined;
  shard: string | undefined;
  totalShards: string | undefined;
  pod: string | undefined;
  podNamespace: string | undefined;
  /** Validate this configuration file and exit. */
  checkConfig: string | undefined;
  help: boolean;
  version: boolean;
}

export const usage = `Usage: cr-status-exporter [flags]
       cr-status-exporter status [flags]    what is not Ready, from the cluster or a running exporter
       cr-status-exporter explain [flags]   which CRDs are watched and the series they would cost

Watches custom resources and serves their status as Prometheus metrics (and
OpenTelemetry spans when tracing is on). Flags override the configuration file.

Flags:
  --config PATH            YAML configuration file (see config.example.yaml); reloaded when it changes
  --check-config PATH      validate a configuration file (and the OTEL_* variables), then exit
  --kubeconfig PATH        kubeconfig to use (default: $KUBECONFIG, ~/.kube/config, or in-cluster)
  --context NAME           kubeconfig context to use
  --listen HOST:PORT       where to serve /metrics, /healthz, /readyz (default 127.0.0.1:9184)
  --metric-prefix PREFIX   prefix of every metric name (default cr_)
  --log-level LEVEL        debug, info, warn or error (default info)
  --metric-allowlist LIST  comma-separated metric families (globs) to export, and nothing else
  --metric-denylist LIST   comma-separated metric families (globs) not to export
  --metric-opt-in-list LIST
                           comma-separated opt-in metric families (globs) to add to the default set
                           (the three replace the file's global metrics rules; allow and deny are
                           mutually exclusive; docs/metrics.md lists the families)
  --tracing-endpoint URL   OTLP/HTTP base URL; /v1/traces is appended (e.g. http://collector:4318)
  --tracing-traces-endpoint URL
                           OTLP/HTTP traces URL, used as given (e.g. http://collector:4318/v1/traces)
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
  --web-config-file PATH   serve /metrics over HTTPS as this exporter-toolkit web configuration says
  --shard N, --total-shards M
                           keep, export and trace only the objects whose uid hashes to shard N of M
                           (FNV-1a 64 and jump hashing, as kube-state-metrics shards)
  --pod NAME, --pod-namespace NAMESPACE
                           or: this process is StatefulSet pod NAME (e.g. from the downward API): shard =
                           its ordinal, shards = the StatefulSet's replicas, followed as it scales
  --version                print the version and exit
  -h, --help               print this help and exit

Environment:
  KUBECONFIG               kubeconfig file(s) when --kubeconfig is not given
  KUBERNETES_SERVICE_HOST, KUBERNETES_SERVICE_PORT
                           in a pod: the in-cluster apiserver (with the service-account token)
  POD_NAME                 this replica's identity in the tracing Lease (default: hostname-pid)
  \${NAME} in the configuration file
                           replaced by the variable NAME (\${NAME:-default} with a default)
  OTEL_EXPORTER_OTLP_ENDPOINT, OTEL_EXPORTER_OTLP_TRACES_ENDPOINT
                           OTLP/HTTP base URL (/v1/traces appended) or traces URL (as given); tracing
                           is off when neither these nor the tracing flags or configuration give one
  OTEL_EXPORTER_OTLP_PROTOCOL, OTEL_EXPORTER_OTLP_TRACES_PROTOCOL
                           http/protobuf (default) or http/json; grpc is refused
  OTEL_EXPORTER_OTLP_HEADERS, OTEL_EXPORTER_OTLP_TIMEOUT, OTEL_EXPORTER_OTLP_COMPRESSION
                           and their TRACES_ forms: headers, timeout (ms), gzip
  OTEL_SERVICE_NAME, OTEL_RESOURCE_ATTRIBUTES
                           resource attributes of the spans (default service.name cr-status-exporter)
  OTEL_TRACES_SAMPLER, OTEL_TRACES_SAMPLER_ARG
                           always_on (default), always_off, traceidratio and their parentbased_ forms
  OTEL_BSP_SCHEDULE_DELAY, OTEL_BSP_MAX_QUEUE_SIZE, OTEL_BSP_MAX_EXPORT_BATCH_SIZE, OTEL_BSP_EXPORT_TIMEOUT
                           span batching
  OTEL_SDK_DISABLED=true, OTEL_TRACES_EXPORTER=none
                           tracing off

Exit codes:
  0  stopped by SIGTERM or SIGINT, or --help, --version, --check-config with a valid file
  1  runtime error (e.g. no cluster configured, the listen address is taken)
  2  configuration error (flags, configuration file, OTEL_* variables)

Logs are JSON lines on stderr, configuration errors included.
`;

// biome-ignore lint/complexity/noExcessiveLinesPerFunction: one switch over every flag, in the order --help lists them
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
        "metric-allowlist": { type: "string" },
        "metric-denylist": { type: "string" },
        "metric-opt-in-list": { type: "string" },
        "tracing-endpoint": { type: "string" },
        "tracing-traces-endpoint": { type: "string" },
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
        "web-config-file": { type: "string" },
        shard: { type: "string" },
        "total-shards": { type: "string" },
        pod: { type: "string" },
        "pod-namespace": { type: "string" },
        "check-config": { type: "string" },
        help: { type: "boolean", short: "h", default: false },
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
      metricAllowlist: values["metric-allowlist"],
      metricDenylist: values["metric-denylist"],
      metricOptInList: values["metric-opt-in-list"],
      tracingEndpoint: values["tracing-endpoint"],
      tracingTracesEndpoint: values["tracing-traces-endpoint"],
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
      webConfigFile: values["web-config-file"],
      shard: values.shard,
      totalShards: values["total-shards"],
      pod: values.pod,
      podNamespace: values["pod-namespace"],
      checkConfig: values["check-config"],
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
  const list = (text: string | undefined): string[] | undefined =>
    text
      ?.split(",")
      .map((item) => item.trim())
      .filter((item) => item !== "");
  if (flags.metricAllowlist ?? flags.metricDenylist ?? flags.metricOptInList) {
    // Every key is set (undefined where no flag was given) so that the flags
    // replace the file's global rules instead of mixing with them.
    out.metrics = {
      allow: list(flags.metricAllowlist),
      deny: list(flags.metricDenylist),
      optIn: list(flags.metricOptInList),
    };
  }
  set(out, "webConfigFile", flags.webConfigFile);
  const tracing: Record<string, unknown> = {};
  set(tracing, "endpoint", flags.tracingEndpoint);
  set(tracing, "tracesEndpoint", flags.tracingTracesEndpoint);
  if (Object.keys(tracing).length > 0) out.tracing = tracing;
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
  // Numbers stay text when they are not whole numbers, so validation names what was given.
  const whole = (text: string | undefined): unknown => (text && /^\d+$/.test(text) ? Number(text) : text);
  const sharding: Record<string, unknown> = {};
  set(sharding, "shard", whole(flags.shard));
  set(sharding, "totalShards", whole(flags.totalShards));
  set(sharding, "pod", flags.pod);
  set(sharding, "podNamespace", flags.podNamespace);
  if (Object.keys(sharding).length > 0) out.sharding = sharding;
  return out;
}
