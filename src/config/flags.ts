// Command-line flags. They override the matching configuration-file fields.
import { parseArgs } from "node:util";
import { readPath } from "../core/project/fields.ts";
import { ConfigError } from "./validate.ts";

/**
 * Every flag, once: its type, and the configuration key it sets (dotted;
 * none for flags that are not configuration). `whole`: a whole number given
 * as text (anything else stays text, so validation names what was given).
 * The metric-list flags replace the file's global metrics rules together
 * (flagOverrides). `usage` documents each (a test keeps the two equal).
 */
const flagSpecs = {
  config: { type: "string" },
  "check-config": { type: "string" },
  kubeconfig: { type: "string" },
  context: { type: "string" },
  listen: { type: "string", to: "listen" },
  "metric-prefix": { type: "string", to: "metricPrefix" },
  "log-level": { type: "string", to: "logLevel" },
  "metric-allowlist": { type: "string" },
  "metric-denylist": { type: "string" },
  "metric-opt-in-list": { type: "string" },
  "tracing-endpoint": { type: "string", to: "tracing.endpoint" },
  "tracing-traces-endpoint": { type: "string", to: "tracing.tracesEndpoint" },
  "api-proxy-listen": { type: "string", to: "apiProxy.listen" },
  "api-proxy-allow-non-loopback": { type: "boolean", to: "apiProxy.allowNonLoopback" },
  "api-proxy-kubeconfig": { type: "string", to: "apiProxy.kubeconfigPath" },
  "api-proxy-user-from-kubeconfig": { type: "string", to: "apiProxy.userFromKubeconfig" },
  "api-proxy-plain-http": { type: "boolean", to: "apiProxy.plainHttp" },
  "audit-listen": { type: "string", to: "auditReceiver.listen" },
  "audit-tls-cert": { type: "string", to: "auditReceiver.certFile" },
  "audit-tls-key": { type: "string", to: "auditReceiver.keyFile" },
  "audit-token-file": { type: "string", to: "auditReceiver.bearerTokenFile" },
  "audit-client-ca": { type: "string", to: "auditReceiver.clientCaFile" },
  "web-config-file": { type: "string", to: "webConfigFile" },
  shard: { type: "string", to: "sharding.shard", whole: true },
  "total-shards": { type: "string", to: "sharding.totalShards", whole: true },
  "shard-filter": { type: "string", to: "sharding.filter" },
  pod: { type: "string", to: "sharding.pod" },
  "pod-namespace": { type: "string", to: "sharding.podNamespace" },
  version: { type: "boolean" },
  help: { type: "boolean", short: "h" },
} as const satisfies Record<string, FlagSpec>;

interface FlagSpec {
  type: "string" | "boolean";
  to?: string;
  whole?: boolean;
  short?: string;
}

type FlagName = keyof typeof flagSpecs;
/** kebab-case → camelCase, as each flag's field in Flags is named. */
type Camel<S extends string> = S extends `${infer Head}-${infer Tail}`
  ? `${Head}${Capitalize<Camel<Tail>>}`
  : S;
type FlagValue<S extends FlagSpec> = S["type"] extends "boolean" ? boolean : string | undefined;

/** The parsed command line: one field per flag, named in camelCase (a boolean is false when not given). */
export type Flags = { [K in FlagName as Camel<K>]: FlagValue<(typeof flagSpecs)[K]> };

/** The flag that sets each configuration key (dotted), for the configuration reference. */
export const flagOfKey: ReadonlyMap<string, string> = new Map(
  Object.entries(flagSpecs as Record<string, FlagSpec>).flatMap(([name, spec]) =>
    spec.to === undefined ? [] : [[spec.to, `--${name}`] as const],
  ),
);

/** The flags, as `usage` names them. */
export const flagNames = Object.keys(flagSpecs) as FlagName[];

const camel = (name: string): string => name.replace(/-([a-z])/g, (_, c: string) => c.toUpperCase());

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
                           (FNV-1a 64 of the uid in N equal ranges, as the apiserver's ShardedListAndWatch)
  --pod NAME, --pod-namespace NAMESPACE
                           or: this process is StatefulSet pod NAME (e.g. from the downward API): shard =
                           its ordinal, shards = the StatefulSet's replicas, followed as it scales
  --shard-filter WHERE     apiserver (default): list and watch with the shard's selector, so an apiserver
                           with ShardedListAndWatch sends only this shard's objects; exporter: receive all
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

export function parseFlags(argv: string[]): Flags {
  const options = Object.fromEntries(
    Object.entries(flagSpecs).map(([name, spec]: [string, FlagSpec]) => [
      name,
      { type: spec.type, ...(spec.short && { short: spec.short }) },
    ]),
  );
  let values: Record<string, string | boolean | undefined>;
  try {
    ({ values } = parseArgs({ args: argv, strict: true, allowPositionals: false, options }));
  } catch (error) {
    throw new ConfigError([`command line: ${(error as Error).message}`]);
  }
  const flags = Object.fromEntries(
    Object.entries(flagSpecs).map(([name, spec]: [string, FlagSpec]) => [
      camel(name),
      values[name] ?? (spec.type === "boolean" ? false : undefined),
    ]),
  );
  return flags as Flags;
}

/** Sets `value` at the dotted `path` of `target`, making the objects on the way. */
function setPath(target: Record<string, unknown>, path: string, value: unknown): void {
  const keys = path.split(".");
  const last = keys.pop() as string;
  let at = target;
  for (const key of keys) {
    at[key] ??= {};
    at = at[key] as Record<string, unknown>;
  }
  at[last] = value;
}

/** The configuration path each flag sets, the metric lists included. */
const flagPaths: readonly { flag: string; path: string }[] = [
  ...(Object.entries(flagSpecs) as [string, FlagSpec][]).flatMap(([flag, spec]) =>
    spec.to === undefined ? [] : [{ flag, path: spec.to }],
  ),
  { flag: "metric-allowlist", path: "metrics.allow" },
  { flag: "metric-denylist", path: "metrics.deny" },
  { flag: "metric-opt-in-list", path: "metrics.optIn" },
];

/**
 * The flag that set the value a validation problem is about (the problem
 * starts with its path), so a bad flag is not blamed on the file.
 */
export function flagOfProblem(problem: string, overrides: Record<string, unknown>): string | undefined {
  const hit = flagPaths.find(
    ({ path }) =>
      readPath(overrides, path.split(".")) !== undefined &&
      problem.startsWith(path) &&
      /^[:.[]/.test(problem.slice(path.length)),
  );
  return hit && `--${hit.flag}`;
}

const list = (text: string | undefined): string[] | undefined =>
  text
    ?.split(",")
    .map((item) => item.trim())
    .filter((item) => item !== "");

/** The flags as raw configuration, laid over the file's before validation. */
export function flagOverrides(flags: Flags): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  const given = flags as unknown as Record<string, string | boolean | undefined>;
  for (const [name, spec] of Object.entries(flagSpecs) as [string, FlagSpec][]) {
    const value = given[camel(name)];
    // A boolean flag only ever turns its key on; a flag not given leaves the file's value.
    if (spec.to === undefined || value === undefined || value === false) continue;
    const text = typeof value === "string" ? value : undefined;
    setPath(out, spec.to, spec.whole && text !== undefined && /^\d+$/.test(text) ? Number(text) : value);
  }
  if (flags.metricAllowlist ?? flags.metricDenylist ?? flags.metricOptInList) {
    // Every key is set (undefined where no flag was given) so that the flags
    // replace the file's global rules instead of mixing with them.
    out.metrics = {
      allow: list(flags.metricAllowlist),
      deny: list(flags.metricDenylist),
      optIn: list(flags.metricOptInList),
    };
  }
  return out;
}
